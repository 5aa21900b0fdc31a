// The part both trace writers share: records are encoded into a buffer that
// goes out in one ByteOutput::Write once it is big enough or on Flush(). The
// binary writer frames each flush as a block; the text writer writes lines.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "runtime/trace/byte_io.h"
#include "runtime/trace/trace_io.h"

namespace streamcheck::trace_internal {

class BufferedSink : public TraceSink {
 public:
  bool Append(const TraceRecord& record) final;
  bool Flush() final;
  bool FlushIfOlderThan(uint64_t ms) final;
  bool Close() final;
  const std::string& error() const final { return error_; }

 protected:
  BufferedSink(std::unique_ptr<ByteOutput> output, size_t flush_bytes, size_t buffer_start);
  ~BufferedSink() override;

  // Appends the encoding of `record` to *buffer. Returns false (with *error
  // set) to reject this one record; the writer stays usable.
  virtual bool Encode(const TraceRecord& record, std::string* buffer, std::string* error) = 0;
  // Prepares buffer (which starts with `buffer_start` reserved bytes, then the
  // `records` appended since the last flush) for writing; returns the bytes to write.
  virtual std::string_view Frame(std::string* buffer, size_t records) = 0;
  // Called after each flush, so an encoder can reset per-block state.
  virtual void OnFlushed() {}
  // Writes bytes unbuffered (the binary file header, from a subclass constructor).
  bool WriteDirect(std::string_view bytes);

 private:
  bool Fail(std::string message);

  std::unique_ptr<ByteOutput> output_;
  const size_t flush_bytes_;
  const size_t buffer_start_;
  std::string buffer_;
  size_t buffered_records_ = 0;
  std::chrono::steady_clock::time_point oldest_unflushed_;
  bool failed_ = false;
  bool closed_ = false;
  std::string error_;
};

}  // namespace streamcheck::trace_internal
