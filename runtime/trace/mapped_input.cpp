// Reading a trace file through a memory mapping (the platform seam for it).
//
// FileInput copies every byte from the page cache into its buffer (fread);
// on a 10M-record replay that copy alone was ~5% of the time. Here the
// decoder reads the page-cache pages in place. Only a sliding window of the
// file is mapped, so memory stays flat in trace length.
//
// A mapped file that shrinks (truncated by another process while it is read)
// turns reads of the pages it lost into SIGBUS. A handler puts zero pages in
// place of such a mapping and marks it lost, so the read goes on and the
// reader fails with a clear error (and keeps the findings made before)
// instead of the process dying.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <mutex>

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

// The windows mapped now, for the SIGBUS handler (a fixed table: the handler
// can neither allocate nor lock). More readers than slots go unguarded.
struct GuardedWindow {
  std::atomic<uintptr_t> begin{0}, end{0};
  std::atomic<bool> lost{false};
};
constexpr int kGuardedWindows = 16;
GuardedWindow g_windows[kGuardedWindows];
struct sigaction g_previous_sigbus;

void OnSigbus(int, siginfo_t* info, void*) {
  const auto addr = reinterpret_cast<uintptr_t>(info->si_addr);
  for (GuardedWindow& w : g_windows) {
    const uintptr_t begin = w.begin.load(), end = w.end.load();
    if (begin == 0 || addr < begin || addr >= end) continue;
    // mmap is a plain system call here: zero pages where the file's were.
    void* zeros = mmap(reinterpret_cast<void*>(begin), end - begin, PROT_READ,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (zeros != MAP_FAILED) {
      w.lost.store(true);
      return;  // the faulting read runs again, on zeros
    }
  }
  // Not one of ours: the faulting instruction runs again under the previous
  // disposition (the program's handler, or the default: core dump).
  sigaction(SIGBUS, &g_previous_sigbus, nullptr);
}

// A slot of g_windows for [begin, end), or -1; installs the handler once.
int GuardWindow(const void* begin, size_t length) {
  static std::once_flag installed;
  std::call_once(installed, [] {
    struct sigaction action {};
    action.sa_sigaction = OnSigbus;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &g_previous_sigbus);
  });
  for (int i = 0; i < kGuardedWindows; ++i) {
    uintptr_t free_slot = 0;
    GuardedWindow& w = g_windows[i];
    // Claim the slot with a placeholder begin so no other reader takes it.
    if (!w.begin.compare_exchange_strong(free_slot, 1)) continue;
    w.lost.store(false);
    w.end.store(reinterpret_cast<uintptr_t>(begin) + length);
    w.begin.store(reinterpret_cast<uintptr_t>(begin));
    return i;
  }
  return -1;
}

void UnguardWindow(int slot) {
  if (slot < 0) return;
  g_windows[slot].end.store(0);
  g_windows[slot].begin.store(0);
}

class MappedFileInput final : public ByteInput {
 public:
  MappedFileInput(std::FILE* file, uint64_t size, size_t window_bytes)
      : file_(file), fd_(fileno(file)), size_(size), window_bytes_(window_bytes) {}
  ~MappedFileInput() override {
    Unmap();
    std::fclose(file_);
  }

  size_t Peek(size_t n, const uint8_t** data) override {
    if (!error().empty()) {
      *data = nullptr;
      return 0;
    }
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
  const std::string& error() const override {
    if (error_.empty() && window_slot_ >= 0 && g_windows[window_slot_].lost.load()) {
      struct stat st;
      const long long now = fstat(fd_, &st) == 0 ? static_cast<long long>(st.st_size) : -1;
      error_ = "read error: the file shrank while it was being read (to " + std::to_string(now) + " bytes)";
    }
    return error_;
  }

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
    window_slot_ = GuardWindow(map_, map_length_);
    return true;
  }
  void Unmap() {
    if (map_ == nullptr) return;
    (void)error();  // latches a loss the handler marked, before the slot is given back
    UnguardWindow(window_slot_);
    window_slot_ = -1;
    munmap(const_cast<uint8_t*>(map_), map_length_);
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
  int window_slot_ = -1;  // in g_windows, while a window is mapped
  mutable std::string error_;
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
