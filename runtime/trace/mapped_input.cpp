// Reading a trace file through a memory mapping (the platform seam for it).
//
// FileInput copies every byte from the page cache into its buffer (fread);
// on a 10M-record replay that copy alone was ~5% of the time. Here the
// decoder reads the page-cache pages in place. Only a sliding window of the
// file is mapped, so memory stays flat in trace length.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "runtime/trace/byte_io.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define STREAMCHECK_HAVE_MMAP 1
#endif

namespace streamcheck::trace_internal {

#if defined(STREAMCHECK_HAVE_MMAP)
namespace {

class MappedFileInput final : public ByteInput {
 public:
  MappedFileInput(std::FILE* file, uint64_t size, size_t window_bytes)
      : file_(file), fd_(fileno(file)), size_(size), window_bytes_(window_bytes) {}
  ~MappedFileInput() override {
    Unmap();
    std::fclose(file_);
  }

  size_t Peek(size_t n, const uint8_t** data) override {
    uint64_t want_end = position_ + n;
    // A trace still being written may have grown since it was opened (the
    // fread reader would see the new bytes too).
    if (want_end > size_) Refresh();
    want_end = std::min(want_end, size_);
    if (want_end <= position_) {
      *data = nullptr;
      return 0;
    }
    if (position_ < map_offset_ || want_end > map_offset_ + map_length_) {
      if (!Map(want_end)) {
        *data = nullptr;
        return 0;
      }
    }
    *data = map_ + (position_ - map_offset_);
    return static_cast<size_t>(want_end - position_);
  }
  void Skip(size_t n) override { position_ += n; }
  const std::string& error() const override { return error_; }

 private:
  void Refresh() {
    struct stat st;
    if (fstat(fd_, &st) == 0 && static_cast<uint64_t>(st.st_size) > size_) size_ = st.st_size;
  }

  // Maps [position_ rounded down to a page, at least want_end), a window
  // long, populated at once (one call instead of a page fault per 64 KiB).
  bool Map(uint64_t want_end) {
    Unmap();
    const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    const uint64_t offset = position_ & ~(page - 1);
    const uint64_t length = std::min(std::max<uint64_t>(window_bytes_, want_end - offset), size_ - offset);
    int flags = MAP_PRIVATE;
#if defined(MAP_POPULATE)
    flags |= MAP_POPULATE;
#endif
    void* p = mmap(nullptr, length, PROT_READ, flags, fd_, static_cast<off_t>(offset));
    if (p == MAP_FAILED) {
      error_ = std::string("read error: cannot map the file: ") + std::strerror(errno);
      return false;
    }
    map_ = static_cast<const uint8_t*>(p);
    map_offset_ = offset;
    map_length_ = length;
    return true;
  }
  void Unmap() {
    if (map_ != nullptr) munmap(const_cast<uint8_t*>(map_), map_length_);
    map_ = nullptr;
    map_length_ = 0;
  }

  std::FILE* file_;
  int fd_;
  uint64_t size_;
  const size_t window_bytes_;
  uint64_t position_ = 0;  // file offset of the next unconsumed byte
  const uint8_t* map_ = nullptr;
  uint64_t map_offset_ = 0;
  uint64_t map_length_ = 0;
  std::string error_;
};

}  // namespace

std::unique_ptr<ByteInput> MakeMappedFileInput(std::FILE* file, size_t window_bytes) {
  struct stat st;
  const int fd = fileno(file);
  // Pipes and devices have no stable size to map: those are read with fread.
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return nullptr;
  // Anything the stdio buffer already read ahead would be skipped by a mapping.
  if (std::ftell(file) != 0) return nullptr;
  return std::make_unique<MappedFileInput>(file, static_cast<uint64_t>(st.st_size), window_bytes);
}

#else

std::unique_ptr<ByteInput> MakeMappedFileInput(std::FILE*, size_t) { return nullptr; }

#endif

}  // namespace streamcheck::trace_internal
