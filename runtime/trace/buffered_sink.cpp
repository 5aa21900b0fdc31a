#include "runtime/trace/buffered_sink.h"

namespace streamcheck::trace_internal {

BufferedSink::BufferedSink(std::unique_ptr<ByteOutput> output, size_t flush_bytes,
                           size_t buffer_start)
    : output_(std::move(output)), flush_bytes_(flush_bytes), buffer_start_(buffer_start) {
  buffer_.reserve(flush_bytes_ + 1024);
  buffer_.assign(buffer_start_, '\0');
}

BufferedSink::~BufferedSink() {
  // Subclasses must call Close() in their own destructor (Frame is virtual);
  // this is a last resort that only releases the output.
  if (output_) {
    std::string ignored;
    output_->Close(&ignored);
  }
}

bool BufferedSink::Append(const TraceRecord& record) {
  if (failed_ || closed_) return false;
  size_t before = buffer_.size();
  std::string problem;
  if (!Encode(record, &buffer_, &problem)) {
    buffer_.resize(before);
    error_ = std::move(problem);
    return false;
  }
  if (buffered_records_++ == 0) oldest_unflushed_ = std::chrono::steady_clock::now();
  if (buffer_.size() - buffer_start_ >= flush_bytes_) return Flush();
  return true;
}

bool BufferedSink::Flush() {
  if (failed_) return false;
  if (closed_ || buffered_records_ == 0) return true;
  std::string_view bytes = Frame(&buffer_, buffered_records_);
  std::string problem;
  if (!output_->Write(bytes, &problem)) return Fail(std::move(problem));
  buffer_.assign(buffer_start_, '\0');
  buffered_records_ = 0;
  OnFlushed();
  return true;
}

bool BufferedSink::FlushIfOlderThan(uint64_t ms) {
  if (buffered_records_ == 0) return !failed_;
  auto age = std::chrono::steady_clock::now() - oldest_unflushed_;
  if (age < std::chrono::milliseconds(ms)) return !failed_;
  return Flush();
}

bool BufferedSink::Close() {
  if (closed_) return !failed_;
  bool ok = Flush();
  closed_ = true;
  std::string problem;
  if (!output_->Close(&problem) && ok) ok = Fail(std::move(problem));
  return ok && !failed_;
}

bool BufferedSink::WriteDirect(std::string_view bytes) {
  std::string problem;
  if (!output_->Write(bytes, &problem)) return Fail(std::move(problem));
  return true;
}

bool BufferedSink::Fail(std::string message) {
  failed_ = true;
  error_ = std::move(message);
  return false;
}

}  // namespace streamcheck::trace_internal
