#include "report/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace streamcheck::report {

FdStreamBuf::~FdStreamBuf() = default;

bool FdStreamBuf::WriteAll(const char* data, size_t n) {
  if (!error_.empty()) return false;
  while (n > 0) {
    const ssize_t written = ::write(fd_, data, n);
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) {
      error_ = written < 0 ? std::strerror(errno) : "nothing written";
      return false;
    }
    data += written;
    n -= static_cast<size_t>(written);
  }
  return true;
}

bool FdStreamBuf::Drain() {
  const bool ok = WriteAll(pbase(), static_cast<size_t>(pptr() - pbase()));
  setp(buffer_, buffer_ + sizeof buffer_);
  return ok;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c) {
  if (!Drain()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

std::streamsize FdStreamBuf::xsputn(const char* s, std::streamsize n) {
  if (n >= static_cast<std::streamsize>(epptr() - pptr())) {
    if (!Drain() || !WriteAll(s, static_cast<size_t>(n))) return 0;
    return n;
  }
  std::memcpy(pptr(), s, static_cast<size_t>(n));
  pbump(static_cast<int>(n));
  return n;
}

int FdStreamBuf::sync() { return Drain() ? 0 : -1; }

OutputFile::OutputFile(std::string path, std::string temp, int fd)
    : path_(std::move(path)), temp_(std::move(temp)), fd_(fd), buffer_(fd), stream_(&buffer_) {}

std::unique_ptr<OutputFile> OutputFile::Create(const std::string& given, std::string* error) {
  // A symlink is followed: the file it names is replaced, the link stays (a
  // rename onto the link itself would replace the link with a regular file).
  std::string path = given;
  struct stat link {};
  if (::lstat(given.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    char resolved[PATH_MAX];
    if (::realpath(given.c_str(), resolved) == nullptr) {
      *error = given + ": a symlink to a file that does not exist (or a loop of links): nothing was written";
      return nullptr;
    }
    path = resolved;
  }
  struct stat target {};
  const bool exists = ::stat(path.c_str(), &target) == 0;
  if (exists && S_ISDIR(target.st_mode)) {
    *error = path + ": is a directory";
    return nullptr;
  }
  if (exists && !S_ISREG(target.st_mode)) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
      *error = path + ": cannot write: " + std::strerror(errno);
      return nullptr;
    }
    return std::unique_ptr<OutputFile>(new OutputFile(path, "", fd));
  }
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  std::string temp = dir + "/." + base + ".XXXXXX";
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) {
    *error = path + ": cannot write (no temporary file in " + dir + ": " + std::strerror(errno) + ")";
    return nullptr;
  }
  // The mode a plain create would give, or the replaced file's.
  mode_t mode = 0666;
  if (exists) {
    mode = target.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  ::fchmod(fd, mode);
  ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return std::unique_ptr<OutputFile>(new OutputFile(path, temp, fd));
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

bool OutputFile::Commit(std::string* error) {
  const std::string kept = temp_.empty() ? "" : "; " + path_ + " was left as it was";
  stream_.flush();
  if (!stream_ || !buffer_.error().empty()) {
    *error = path_ + ": cannot write: " + (buffer_.error().empty() ? "write failed" : buffer_.error()) + kept;
    return false;
  }
  if (temp_.empty()) return committed_ = true;
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    fd_ = -1;
    *error = path_ + ": cannot write: " + std::strerror(errno) + kept;
    return false;
  }
  fd_ = -1;
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    *error = path_ + ": cannot replace: " + std::strerror(errno) + kept;
    return false;
  }
  return committed_ = true;
}

bool FlushStandardOutput(std::string* error) {
  errno = 0;
  std::cout.flush();
  const bool cout_ok = static_cast<bool>(std::cout);
  const int flushed = std::fflush(stdout);
  if (cout_ok && flushed == 0 && !std::ferror(stdout)) return true;
  // stdio may have failed on an earlier write, whose errno is gone by now.
  const int code = errno;
  *error = code ? std::string("cannot write to standard output: ") + std::strerror(code)
                : "cannot write to standard output (a full disk, /dev/full or a closed pipe?): what it shows is "
                  "incomplete";
  return false;
}

}  // namespace streamcheck::report
