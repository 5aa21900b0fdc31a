// The binary trace reader: validates the file header, then one block at a
// time (length bounds, CRC) before decoding its records from a contiguous view.
#include <cinttypes>
#include <cstdio>

#include "runtime/trace/binary_format.h"
#include "runtime/trace/crc32c.h"
#include "runtime/trace/record_codec.h"
#include "runtime/trace/trace_readers.h"

namespace streamcheck::trace_internal {
namespace {

std::string Hex(uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%" PRIx64, v);
  return text;
}

class BinaryTraceReader final : public TraceSource {
 public:
  BinaryTraceReader(std::unique_ptr<ByteInput> input, std::string name)
      : input_(std::move(input)), name_(std::move(name)) {}

  Status Next(TraceRecord* out) override {
    if (failed_) return Status::kError;
    while (records_left_ == 0) {
      Status status = AdvanceBlock();
      if (status != Status::kRecord) return status;
    }
    const uint8_t* record_start = pos_;
    if (!DecodeRecord(&pos_, end_, &state_, out, &problem_)) {
      const uint64_t index = block_records_ - records_left_;
      const uint64_t at = block_offset_ + kBlockHeaderBytes + (record_start - payload_);
      if (!input_->error().empty()) return Fail(at, "byte " + std::to_string(at) + ": " + input_->error());
      return Fail(at, "record " + std::to_string(index) + " of " +
                          std::to_string(block_records_) + " in block at offset " +
                          std::to_string(block_offset_) + " (byte " + std::to_string(at) +
                          "): " + problem_);
    }
    --records_left_;
    ++records_read_;
    return Status::kRecord;
  }

  const std::string& error() const override { return error_; }
  uint64_t offset() const override {
    if (failed_) return error_offset_;
    if (payload_ == nullptr) return consumed_;
    return block_offset_ + kBlockHeaderBytes + (pos_ - payload_);
  }
  uint64_t records_read() const override { return records_read_; }
  TraceFormat format() const override { return TraceFormat::kBinary; }

 private:
  // Finishes the current block and loads the next one. Returns kRecord when a
  // block with records is ready, kEnd at a clean end of file, or kError.
  Status AdvanceBlock() {
    if (!header_read_) {
      if (!ReadFileHeader()) return Status::kError;
      header_read_ = true;
    }
    if (payload_ != nullptr) {
      if (pos_ != end_) {
        return Fail(block_offset_, "block at offset " + std::to_string(block_offset_) + ": " +
                                       std::to_string(end_ - pos_) +
                                       " bytes left after its last record");
      }
      input_->Skip(kBlockHeaderBytes + (end_ - payload_));
      consumed_ = block_offset_ + kBlockHeaderBytes + (end_ - payload_);
      payload_ = pos_ = end_ = nullptr;
    }
    block_offset_ = consumed_;
    const std::string at = "block at offset " + std::to_string(block_offset_) + ": ";
    const uint8_t* data;
    size_t got = input_->Peek(kBlockHeaderBytes, &data);
    if (got == 0) {
      if (!input_->error().empty()) return Fail(block_offset_, at + input_->error());
      return Status::kEnd;
    }
    if (got < kBlockHeaderBytes) {
      return Fail(block_offset_, at + "truncated block header (" + std::to_string(got) + " of " +
                                     std::to_string(kBlockHeaderBytes) + " bytes)");
    }
    uint32_t magic = LoadU32(data);
    uint32_t payload_bytes = LoadU32(data + 4);
    uint32_t record_count = LoadU32(data + 8);
    uint32_t stored_crc = LoadU32(data + 12);
    if (magic != kBlockMagic) return Fail(block_offset_, at + "bad block magic " + Hex(magic));
    if (payload_bytes > kMaxBlockPayloadBytes) {
      return Fail(block_offset_, at + "payload length " + std::to_string(payload_bytes) +
                                     " exceeds the limit of " +
                                     std::to_string(kMaxBlockPayloadBytes));
    }
    // Every record takes at least two bytes (opcode and presence mask).
    if (uint64_t{record_count} * 2 > payload_bytes) {
      return Fail(block_offset_, at + "record count " + std::to_string(record_count) +
                                     " cannot fit in " + std::to_string(payload_bytes) +
                                     " payload bytes");
    }
    got = input_->Peek(kBlockHeaderBytes + payload_bytes, &data);
    if (got < kBlockHeaderBytes + payload_bytes) {
      std::string why = input_->error().empty() ? "truncated" : input_->error();
      return Fail(block_offset_, at + why + ": header declares " + std::to_string(payload_bytes) +
                                     " payload bytes, only " +
                                     std::to_string(got - kBlockHeaderBytes) + " present");
    }
    uint32_t crc = BlockChecksum(data, data + kBlockHeaderBytes, payload_bytes);
    if (crc != stored_crc) {
      // Bytes the input lost under us (a file that shrank) fail the check: say that.
      if (!input_->error().empty()) return Fail(block_offset_, at + input_->error());
      return Fail(block_offset_, at + "CRC mismatch (stored " + Hex(stored_crc) + ", computed " +
                                     Hex(crc) + ")");
    }
    payload_ = pos_ = data + kBlockHeaderBytes;
    end_ = payload_ + payload_bytes;
    block_records_ = records_left_ = record_count;
    state_ = BlockCodecState();
    return Status::kRecord;
  }

  bool ReadFileHeader() {
    const uint8_t* data;
    size_t got = input_->Peek(kFileHeaderBytes, &data);
    std::string_view magic(reinterpret_cast<const char*>(data),
                           std::min(got, kBinaryTraceMagic.size()));
    if (magic != kBinaryTraceMagic.substr(0, magic.size())) {
      Fail(0, "offset 0: not a streamcheck binary trace (bad magic)");
      return false;
    }
    if (got < kFileHeaderBytes) {
      Fail(0, "offset 0: truncated file header (" + std::to_string(got) + " of " +
                  std::to_string(kFileHeaderBytes) + " bytes)");
      return false;
    }
    uint32_t version = LoadU32(data + 8);
    uint32_t flags = LoadU32(data + 12);
    if (version > kFormatVersion) {
      Fail(8, "offset 8: trace format version " + std::to_string(version) +
                  " is newer than this streamcheck reads (up to " +
                  std::to_string(kFormatVersion) + "); use a newer streamcheck");
      return false;
    }
    if (version == 0) {
      Fail(8, "offset 8: invalid trace format version 0");
      return false;
    }
    if (flags & ~kKnownFileFlags) {
      Fail(12, "offset 12: unknown file flags " + Hex(flags));
      return false;
    }
    input_->Skip(kFileHeaderBytes);
    consumed_ = kFileHeaderBytes;
    return true;
  }

  Status Fail(uint64_t offset, const std::string& message) {
    failed_ = true;
    error_offset_ = offset;
    error_ = name_ + ": " + message;
    return Status::kError;
  }

  std::unique_ptr<ByteInput> input_;
  const std::string name_;
  bool header_read_ = false;
  uint64_t consumed_ = 0;      // file offset of the first byte not yet consumed
  uint64_t block_offset_ = 0;  // file offset of the current block
  const uint8_t* payload_ = nullptr;
  const uint8_t* pos_ = nullptr;
  const uint8_t* end_ = nullptr;
  uint32_t block_records_ = 0;
  uint32_t records_left_ = 0;
  BlockCodecState state_;
  uint64_t records_read_ = 0;
  bool failed_ = false;
  uint64_t error_offset_ = 0;
  std::string error_;
  std::string problem_;
};

}  // namespace

std::unique_ptr<TraceSource> MakeBinaryTraceReader(std::unique_ptr<ByteInput> input,
                                                   std::string name) {
  return std::make_unique<BinaryTraceReader>(std::move(input), std::move(name));
}

}  // namespace streamcheck::trace_internal
