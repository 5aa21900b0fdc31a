// The binary trace writer: records are encoded into one block buffer, which is
// written with a single write() when it reaches the block size or on Flush().
#include <algorithm>

#include "runtime/trace/binary_format.h"
#include "runtime/trace/buffered_sink.h"
#include "runtime/trace/crc32c.h"
#include "runtime/trace/record_codec.h"
#include "runtime/trace/trace_readers.h"

namespace streamcheck {
namespace trace_internal {
namespace {

std::string FileHeader() {
  std::string header(kBinaryTraceMagic);
  unsigned char fields[8];
  StoreU32(kFormatVersion, fields);
  StoreU32(0, fields + 4);  // flags
  header.append(reinterpret_cast<const char*>(fields), sizeof fields);
  return header;
}

// Whole cache lines, as Engine::Impl (engine_impl.h): the tracer's worker
// writes it per record.
class alignas(64) BinaryTraceWriter final : public BufferedSink {
 public:
  BinaryTraceWriter(std::unique_ptr<ByteOutput> output, BinaryWriterOptions options)
      : BufferedSink(std::move(output),
                     std::clamp<size_t>(options.block_bytes, 1,
                                        kMaxBlockPayloadBytes - kMaxRecordBytes),
                     kBlockHeaderBytes) {
    // The header goes out at once so that even an empty or crashed trace is
    // recognizable as binary.
    WriteDirect(FileHeader());
  }
  ~BinaryTraceWriter() override { Close(); }

 private:
  bool Encode(const TraceRecord& record, std::string* buffer, std::string* error) override {
    if (!IsWritableRecord(record, error)) return false;
    size_t before = buffer->size();
    BlockCodecState saved = state_;
    EncodeRecord(record, &state_, buffer);
    size_t bytes = buffer->size() - before;
    if (bytes > kMaxRecordBytes) {
      state_ = saved;
      *error = "record too large for the trace format (" + std::to_string(bytes) +
               " bytes encoded; the limit is " + std::to_string(kMaxRecordBytes) + ")";
      return false;
    }
    return true;
  }

  std::string_view Frame(std::string* buffer, size_t records) override {
    auto* header = reinterpret_cast<unsigned char*>(buffer->data());
    const size_t payload_bytes = buffer->size() - kBlockHeaderBytes;
    StoreU32(kBlockMagic, header);
    StoreU32(static_cast<uint32_t>(payload_bytes), header + 4);
    StoreU32(static_cast<uint32_t>(records), header + 8);
    const char* payload = buffer->data() + kBlockHeaderBytes;
    StoreU32(BlockChecksum(header, payload, payload_bytes), header + 12);
    return *buffer;
  }

  void OnFlushed() override { state_ = BlockCodecState(); }

  BlockCodecState state_;
};

}  // namespace

std::unique_ptr<TraceSink> MakeBinaryTraceWriter(std::unique_ptr<ByteOutput> output,
                                                 BinaryWriterOptions options) {
  return std::make_unique<BinaryTraceWriter>(std::move(output), options);
}

}  // namespace trace_internal

std::unique_ptr<TraceSink> CreateBinaryTraceWriter(const std::string& path, std::string* error,
                                                   BinaryWriterOptions options) {
  auto output = trace_internal::OpenFileOutput(path, error);
  if (!output) return nullptr;
  auto writer = trace_internal::MakeBinaryTraceWriter(std::move(output), options);
  if (!writer->error().empty()) {
    *error = path + ": " + writer->error();
    return nullptr;
  }
  return writer;
}

std::unique_ptr<TraceSink> CreateBinaryTraceWriter(std::string* out, BinaryWriterOptions options) {
  return trace_internal::MakeBinaryTraceWriter(trace_internal::MakeStringOutput(out), options);
}

std::unique_ptr<TraceSink> CreateBinaryTraceWriter(std::FILE* file, BinaryWriterOptions options) {
  return trace_internal::MakeBinaryTraceWriter(trace_internal::MakeStdioOutput(file), options);
}

}  // namespace streamcheck
