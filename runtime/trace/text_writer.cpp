// The text trace writer: one line per record, buffered like the binary writer.
#include "runtime/trace/buffered_sink.h"
#include "runtime/trace/record_codec.h"
#include "runtime/trace/text_format.h"
#include "runtime/trace/trace_readers.h"

namespace streamcheck {
namespace trace_internal {
namespace {

class TextTraceWriter final : public BufferedSink {
 public:
  explicit TextTraceWriter(std::unique_ptr<ByteOutput> output)
      : BufferedSink(std::move(output), 64 * 1024, 0) {}
  ~TextTraceWriter() override { Close(); }

 private:
  bool Encode(const TraceRecord& record, std::string* buffer, std::string* error) override {
    if (!IsWritableRecord(record, error)) return false;
    FormatRecordLine(record, &names_, buffer);
    return true;
  }
  std::string_view Frame(std::string* buffer, size_t records) override { return *buffer; }

  StringNames names_;
};

}  // namespace

std::unique_ptr<TraceSink> MakeTextTraceWriter(std::unique_ptr<ByteOutput> output) {
  return std::make_unique<TextTraceWriter>(std::move(output));
}

}  // namespace trace_internal

std::unique_ptr<TraceSink> CreateTextTraceWriter(const std::string& path, std::string* error) {
  auto output = trace_internal::OpenFileOutput(path, error);
  if (!output) return nullptr;
  return trace_internal::MakeTextTraceWriter(std::move(output));
}
std::unique_ptr<TraceSink> CreateTextTraceWriter(std::string* out) {
  return trace_internal::MakeTextTraceWriter(trace_internal::MakeStringOutput(out));
}
std::unique_ptr<TraceSink> CreateTextTraceWriter(std::FILE* file) {
  return trace_internal::MakeTextTraceWriter(trace_internal::MakeStdioOutput(file));
}

}  // namespace streamcheck
