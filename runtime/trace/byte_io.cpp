#include "runtime/trace/byte_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace streamcheck::trace_internal {
namespace {

class MemoryInput : public ByteInput {
 public:
  explicit MemoryInput(std::string contents) : contents_(std::move(contents)) {}
  size_t Peek(size_t n, const uint8_t** data) override {
    *data = reinterpret_cast<const uint8_t*>(contents_.data()) + position_;
    return std::min(n, contents_.size() - position_);
  }
  void Skip(size_t n) override { position_ += n; }
  const std::string& error() const override { return error_; }

 private:
  std::string contents_;
  size_t position_ = 0;
  std::string error_;  // memory cannot fail
};

// Reads through its own buffer so that Peek can return a contiguous view of
// a whole block. The buffer grows only as bytes actually arrive, so a corrupt
// length field cannot make it allocate more than the file holds.
class FileInput : public ByteInput {
 public:
  explicit FileInput(std::FILE* file) : file_(file) {}
  ~FileInput() override { std::fclose(file_); }

  size_t Peek(size_t n, const uint8_t** data) override {
    while (end_ - begin_ < n && !at_eof_) Fill(n);
    *data = buffer_.data() + begin_;
    return std::min(n, end_ - begin_);
  }
  void Skip(size_t n) override { begin_ += n; }
  const std::string& error() const override { return error_; }

 private:
  static constexpr size_t kChunkBytes = 256 * 1024;

  void Fill(size_t wanted) {
    if (begin_ > 0) {  // keep the unread bytes at the front
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
    }
    size_t target = std::max(wanted, kChunkBytes);
    if (buffer_.size() < target) {
      buffer_.resize(std::min(target, std::max(buffer_.size() * 2, end_ + kChunkBytes)));
    }
    size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
    end_ += got;
    if (got == 0) {
      at_eof_ = true;
      if (std::ferror(file_)) error_ = std::string("read error: ") + std::strerror(errno);
    }
  }

  std::FILE* file_;
  std::vector<uint8_t> buffer_;
  size_t begin_ = 0;
  size_t end_ = 0;
  bool at_eof_ = false;
  std::string error_;
};

class FdOutput : public ByteOutput {
 public:
  explicit FdOutput(int fd) : fd_(fd) {}
  ~FdOutput() override {
    std::string ignored;
    Close(&ignored);
  }
  bool Write(std::string_view bytes, std::string* error) override {
    while (!bytes.empty()) {
      ssize_t n = ::write(fd_, bytes.data(), bytes.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        *error = std::string("write failed: ") + std::strerror(errno);
        return false;
      }
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }
  bool Close(std::string* error) override {
    if (fd_ < 0) return true;
    int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) {
      *error = std::string("close failed: ") + std::strerror(errno);
      return false;
    }
    return true;
  }

 private:
  int fd_;
};

class StdioOutput : public ByteOutput {
 public:
  explicit StdioOutput(std::FILE* file) : file_(file) {}
  bool Write(std::string_view bytes, std::string* error) override {
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size() ||
        std::fflush(file_) != 0) {
      *error = std::string("write failed: ") + std::strerror(errno);
      return false;
    }
    return true;
  }
  bool Close(std::string* error) override { return true; }

 private:
  std::FILE* file_;
};

class StringOutput : public ByteOutput {
 public:
  explicit StringOutput(std::string* out) : out_(out) {}
  bool Write(std::string_view bytes, std::string* error) override {
    out_->append(bytes);
    return true;
  }
  bool Close(std::string* error) override { return true; }

 private:
  std::string* out_;
};

}  // namespace

std::unique_ptr<ByteInput> MakeMemoryInput(std::string contents) {
  return std::make_unique<MemoryInput>(std::move(contents));
}
std::unique_ptr<ByteInput> MakeFileInput(std::FILE* file) {
  return std::make_unique<FileInput>(file);
}

std::unique_ptr<ByteOutput> OpenFileOutput(const std::string& path, std::string* error) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    *error = path + ": cannot create: " + std::strerror(errno);
    return nullptr;
  }
  return std::make_unique<FdOutput>(fd);
}
std::unique_ptr<ByteOutput> MakeStdioOutput(std::FILE* file) {
  return std::make_unique<StdioOutput>(file);
}
std::unique_ptr<ByteOutput> MakeStringOutput(std::string* out) {
  return std::make_unique<StringOutput>(out);
}

}  // namespace streamcheck::trace_internal
