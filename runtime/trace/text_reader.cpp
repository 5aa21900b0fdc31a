// The text trace reader: splits the input into lines without loading it
// whole, and parses each with ParseRecordLine.
#include <utility>

#include "runtime/trace/text_format.h"
#include "runtime/trace/trace_readers.h"

namespace streamcheck::trace_internal {
namespace {

constexpr size_t kFirstWindowBytes = 64 * 1024;
constexpr size_t kMaxLineBytes = 16u << 20;

class TextTraceReader final : public TraceSource {
 public:
  TextTraceReader(std::unique_ptr<ByteInput> input, std::string name)
      : input_(std::move(input)), name_(std::move(name)) {}

  Status Next(TraceRecord* out) override {
    if (failed_) return Status::kError;
    while (next_ == pending_.size()) {
      pending_.clear();
      next_ = 0;
      Status status = ParseNextLine();
      if (status != Status::kRecord) return status;
    }
    out->Clear();
    std::swap(*out, pending_[next_++]);
    ++records_read_;
    return Status::kRecord;
  }

  const std::string& error() const override { return error_; }
  uint64_t offset() const override { return failed_ ? error_offset_ : consumed_; }
  uint64_t records_read() const override { return records_read_; }
  TraceFormat format() const override { return TraceFormat::kText; }

 private:
  // Parses one line into pending_. kRecord: a line was read (maybe blank).
  Status ParseNextLine() {
    const uint8_t* data;
    size_t window = kFirstWindowBytes;
    size_t got = 0;
    size_t newline = std::string_view::npos;
    while (true) {
      got = input_->Peek(window, &data);
      newline = std::string_view(reinterpret_cast<const char*>(data), got).find('\n');
      if (newline != std::string_view::npos || got < window) break;
      if (window >= kMaxLineBytes) {
        return Fail(consumed_, std::to_string(line_number_ + 1) + ": line longer than " +
                                   std::to_string(kMaxLineBytes) + " bytes");
      }
      window *= 2;
    }
    if (got == 0) {
      if (!input_->error().empty()) {
        return Fail(consumed_, std::to_string(line_number_ + 1) + ": " + input_->error());
      }
      return Status::kEnd;
    }
    size_t line_bytes = newline == std::string_view::npos ? got : newline;
    std::string_view line(reinterpret_cast<const char*>(data), line_bytes);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_number_;
    TextParseError problem;
    if (!ParseRecordLine(line, &names_, &pending_, &problem)) {
      uint64_t at = consumed_ + problem.column - 1;
      return Fail(at, std::to_string(line_number_) + ":" + std::to_string(problem.column) +
                          " (byte " + std::to_string(at) + "): " + problem.message);
    }
    size_t used = newline == std::string_view::npos ? got : newline + 1;
    input_->Skip(used);
    consumed_ += used;
    return Status::kRecord;
  }

  Status Fail(uint64_t offset, const std::string& where_and_what) {
    failed_ = true;
    error_offset_ = offset;
    error_ = name_ + ":" + where_and_what;
    return Status::kError;
  }

  std::unique_ptr<ByteInput> input_;
  const std::string name_;
  StringNames names_;
  std::vector<TraceRecord> pending_;
  size_t next_ = 0;
  uint64_t line_number_ = 0;
  uint64_t consumed_ = 0;
  uint64_t records_read_ = 0;
  bool failed_ = false;
  uint64_t error_offset_ = 0;
  std::string error_;
};

}  // namespace

std::unique_ptr<TraceSource> MakeTextTraceReader(std::unique_ptr<ByteInput> input,
                                                 std::string name) {
  return std::make_unique<TextTraceReader>(std::move(input), std::move(name));
}

}  // namespace streamcheck::trace_internal
