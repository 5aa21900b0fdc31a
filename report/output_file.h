// Output files that never leave a half-written or emptied file behind: the
// bytes go to a temporary file in the target's folder, renamed over the
// target only once everything was written and flushed. A target that is not
// a regular file (/dev/stdout, /dev/full, a pipe) is written in place. A
// symlink is followed: the file it names is replaced and the link stays; a
// link to nothing is refused.
#pragma once

#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

namespace streamcheck::report {

// An ostream over a file descriptor whose write errors keep errno's text.
class FdStreamBuf final : public std::streambuf {
 public:
  explicit FdStreamBuf(int fd) : fd_(fd) { setp(buffer_, buffer_ + sizeof buffer_); }
  ~FdStreamBuf() override;
  const std::string& error() const { return error_; }

 protected:
  int_type overflow(int_type c) override;
  int sync() override;
  std::streamsize xsputn(const char* s, std::streamsize n) override;

 private:
  bool Drain();
  bool WriteAll(const char* data, size_t n);
  int fd_;
  char buffer_[64 * 1024];
  std::string error_;
};

class OutputFile {
 public:
  // Creates the temporary file (or opens a non-regular target). nullptr with
  // `error` set when that fails; nothing is changed then.
  static std::unique_ptr<OutputFile> Create(const std::string& path, std::string* error);
  // Removes the temporary file unless committed: the target stays as it was.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::ostream& stream() { return stream_; }
  // Flushes, syncs and renames into place. False with a message naming the
  // target (and saying it was left as it was) on any failure so far.
  bool Commit(std::string* error);

 private:
  OutputFile(std::string path, std::string temp, int fd);
  std::string path_;
  std::string temp_;  // empty: writing the target in place
  int fd_;
  FdStreamBuf buffer_;
  std::ostream stream_;
  bool committed_ = false;
};

// Flushes std::cout and stdout; false with "cannot write to standard output:
// REASON" when a write failed (a full disk, /dev/full, a closed pipe).
bool FlushStandardOutput(std::string* error);

}  // namespace streamcheck::report
