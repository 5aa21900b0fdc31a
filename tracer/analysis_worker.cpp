#include "tracer/analysis_worker.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include "tracer/hot_path.h"

namespace streamcheck::tracer {
namespace {

thread_local bool t_on_worker = false;

// Each record in the ring: its length (4 bytes), then its copy. A length of
// kWrapMarker (or fewer than 4 bytes left) sends the reader to the ring's start.
constexpr size_t kHeader = sizeof(uint32_t);
constexpr uint32_t kWrapMarker = 0xffffffff;

// A record's copy: its fixed fields as they are in memory, the element count
// of each container, then the containers' elements. Both sides are this
// process, so there is nothing to encode: a launch costs a few block copies
// (the trace format's varint coding took some 600 instructions a record).
struct ContainerSizes {
  uint32_t accesses, deps, frames, text;
};
static_assert(std::is_trivially_copyable_v<MemoryAccess> && std::is_trivially_copyable_v<StackFrame>);

size_t CopySize(const TraceRecord& r) {
  return sizeof(TraceRecordFields) + sizeof(ContainerSizes) + r.accesses.size() * sizeof(MemoryAccess) +
         r.deps.size() * sizeof(Handle) + r.frames.size() * sizeof(StackFrame) + r.text.size();
}

template <typename T>
uint8_t* PutBytes(const T* data, size_t count, uint8_t* p) {
  if (count != 0) std::memcpy(p, data, count * sizeof(T));
  return p + count * sizeof(T);
}

template <typename Container>
const uint8_t* TakeBytes(const uint8_t* p, uint32_t count, Container* out) {
  out->resize(count);
  if (count != 0) std::memcpy(out->data(), p, count * sizeof(typename Container::value_type));
  return p + count * sizeof(typename Container::value_type);
}

// Writes CopySize(r) bytes at p.
void CopyInto(const TraceRecord& r, uint8_t* p) {
  p = PutBytes(static_cast<const TraceRecordFields*>(&r), 1, p);
  const ContainerSizes sizes{static_cast<uint32_t>(r.accesses.size()), static_cast<uint32_t>(r.deps.size()),
                             static_cast<uint32_t>(r.frames.size()), static_cast<uint32_t>(r.text.size())};
  p = PutBytes(&sizes, 1, p);
  p = PutBytes(r.accesses.data(), r.accesses.size(), p);
  p = PutBytes(r.deps.data(), r.deps.size(), p);
  p = PutBytes(r.frames.data(), r.frames.size(), p);
  PutBytes(r.text.data(), r.text.size(), p);
}

// The record CopyInto wrote at p, into *out (whose containers keep their capacity).
void CopyOut(const uint8_t* p, TraceRecord* out) {
  std::memcpy(static_cast<TraceRecordFields*>(out), p, sizeof(TraceRecordFields));
  p += sizeof(TraceRecordFields);
  ContainerSizes sizes;
  std::memcpy(&sizes, p, sizeof sizes);
  p += sizeof sizes;
  p = TakeBytes(p, sizes.accesses, &out->accesses);
  p = TakeBytes(p, sizes.deps, &out->deps);
  p = TakeBytes(p, sizes.frames, &out->frames);
  TakeBytes(p, sizes.text, &out->text);
}

// After each batch the worker sleeps this long, doubling while the ring stays
// empty; a waiting producer wakes it at once. The shortest nap bounds how
// often the worker reads the producers' position (see the header).
constexpr std::chrono::microseconds kShortestNap{20}, kLongestNap{1000};

// The cache lines a producer's next record will most likely use, asked for
// in writable state now: that transfer then overlaps the program's own work
// instead of stalling the next record (the ring's lines were last read by the
// worker, or evicted, since the producer wrote them a lap before).
constexpr size_t kPrefetchBytes = 256;

}  // namespace

AnalysisWorker::AnalysisWorker(Analyze analyze, size_t capacity_bytes)
    : analyze_(std::move(analyze)),
      ring_size_(std::max<size_t>(capacity_bytes, 4096)),
      ring_(new uint8_t[ring_size_]) {
  running_ = true;
  thread_ = std::thread([this] { Run(); });
}

AnalysisWorker::~AnalysisWorker() { Stop(); }

bool AnalysisWorker::OnWorkerThread() { return t_on_worker; }

STREAMCHECK_HOT uint64_t AnalysisWorker::Push(const TraceRecord& record) {
  const uint64_t length = CopySize(record);
  const size_t size = ring_size_;
  if (length + kHeader > size / 4 || length >= kWrapMarker) {
    AnalyseInPlace(record);
    return ++records_pushed_;
  }
  const uint64_t start = write_position_.load(std::memory_order_relaxed);  // only producers write it
  uint64_t offset = start % size;
  const uint64_t skip = size - offset < kHeader + length ? size - offset : 0;
  const uint64_t end = start + skip + kHeader + length;
  // Reading consumed_ pulls a line the worker writes: only when the ring
  // looks full by what was read last time.
  if (end - consumed_seen_ > size) {
    consumed_seen_ = consumed_.load(std::memory_order_acquire);
    if (end - consumed_seen_ > size) {
      WaitForRoom([&] { return end - consumed_.load(std::memory_order_acquire) <= size; });
      consumed_seen_ = consumed_.load(std::memory_order_acquire);
    }
  }
  if (skip != 0) {
    if (skip >= kHeader) std::memcpy(&ring_[offset], &kWrapMarker, kHeader);
    offset = 0;
  }
  const auto length32 = static_cast<uint32_t>(length);
  std::memcpy(&ring_[offset], &length32, kHeader);
  CopyInto(record, &ring_[offset + kHeader]);
  write_position_.store(end, std::memory_order_release);
  const size_t next = end % size;
  for (size_t line = 0; line < kPrefetchBytes && next + line < size; line += 64)
    __builtin_prefetch(&ring_[next + line], /*rw=*/1, /*locality=*/3);
  return ++records_pushed_;
}

void AnalysisWorker::AnalyseInPlace(const TraceRecord& record) {
  const uint64_t written = write_position_.load(std::memory_order_relaxed);
  WaitForRoom([&] { return consumed_.load(std::memory_order_acquire) == written; });
  std::lock_guard<std::mutex> busy(busy_);  // the worker is between batches: analysed_ is ours
  TraceRecord copy = record;
  analyze_(copy);
  analysed_.store(analysed_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
}

template <typename Done>
void AnalysisWorker::WaitUntil(Done done) {
  if (done()) return;
  std::unique_lock<std::mutex> lock(sleep_mutex_);
  waiters_.fetch_add(1);
  while (!done()) {
    hurry_ = true;
    wake_.notify_one();
    // The worker notifies after each batch; the limit covers a notification
    // it sent before it saw this waiter.
    progress_.wait_for(lock, kLongestNap);
  }
  waiters_.fetch_sub(1);
}

template <typename Done>
void AnalysisWorker::WaitForRoom(Done done) {
  if (done()) return;
  const auto start = std::chrono::steady_clock::now();
  WaitUntil(done);
  ++holds_.count;
  holds_.nanoseconds += static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
}

void AnalysisWorker::WaitFor(uint64_t sequence) {
  WaitUntil([&] { return analysed_.load(std::memory_order_acquire) >= sequence; });
}

void AnalysisWorker::Run() {
  t_on_worker = true;
  // Signals sent to the process (SIGINT, SIGCHLD, a timer) are the program's:
  // they must go to one of its own threads, never to this one.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  uint64_t position = 0;
  auto nap = kShortestNap;
  for (;;) {
    const uint64_t end = write_position_.load(std::memory_order_acquire);
    const bool arrived = end != position;
    if (arrived) AnalyseBatch(&position, end);
    std::unique_lock<std::mutex> lock(sleep_mutex_);
    if (stopping_) {
      if (write_position_.load(std::memory_order_acquire) == position) break;
      continue;  // what came before Stop() is analysed first, without napping
    }
    nap = arrived ? kShortestNap : std::min(nap * 2, kLongestNap);
    if (!hurry_) wake_.wait_for(lock, nap, [&] { return hurry_ || stopping_; });
    hurry_ = false;
  }
}

void AnalysisWorker::AnalyseBatch(uint64_t* position, uint64_t end) {
  {
    std::lock_guard<std::mutex> busy(busy_);
    const size_t size = ring_size_;
    while (*position != end) {
      const uint64_t offset = *position % size;
      uint32_t length = kWrapMarker;
      if (size - offset >= kHeader) std::memcpy(&length, &ring_[offset], kHeader);
      if (length == kWrapMarker) {
        *position += size - offset;
        continue;
      }
      CopyOut(&ring_[offset + kHeader], &decoded_);
      analyze_(decoded_);
      *position += kHeader + length;
      consumed_.store(*position, std::memory_order_release);
      analysed_.store(analysed_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
    }
  }
  if (waiters_.load() != 0) {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    progress_.notify_all();
  }
}

void AnalysisWorker::Stop() {
  if (!running_) return;
  {
    std::lock_guard<std::mutex> lock(sleep_mutex_);
    stopping_ = true;
    wake_.notify_one();
  }
  thread_.join();
  running_ = false;
}

bool AnalysisWorker::DrainForCrash(int timeout_ms) const {
  // The worker naps at most kLongestNap, so polling finds it done.
  for (int waited_ms = 0;; ++waited_ms) {
    if (consumed_.load() == write_position_.load()) return true;
    if (waited_ms >= timeout_ms) return false;
    const timespec one_ms{0, 1000 * 1000};
    nanosleep(&one_ms, nullptr);
  }
}

}  // namespace streamcheck::tracer
