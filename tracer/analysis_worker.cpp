#include "tracer/analysis_worker.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace streamcheck::tracer {
namespace {

thread_local bool t_on_worker = false;

// Each record in the ring: its length (4 bytes), then its encoding. A length
// of kWrapMarker (or fewer than 4 bytes left) sends the reader to the ring's start.
constexpr size_t kHeader = sizeof(uint32_t);
constexpr uint32_t kWrapMarker = 0xffffffff;

// An empty ring sends the worker to sleep for this long, doubling while it
// stays empty; a waiting producer wakes it at once.
constexpr std::chrono::microseconds kShortestNap{20}, kLongestNap{1000};

}  // namespace

AnalysisWorker::AnalysisWorker(Analyze analyze, size_t capacity_bytes)
    : analyze_(std::move(analyze)), ring_(std::max<size_t>(capacity_bytes, 4096)) {
  running_ = true;
  thread_ = std::thread([this] { Run(); });
}

AnalysisWorker::~AnalysisWorker() { Stop(); }

bool AnalysisWorker::OnWorkerThread() { return t_on_worker; }

uint64_t AnalysisWorker::Push(const TraceRecord& record) {
  const trace_internal::BlockCodecState before = encode_state_;
  encoded_.clear();
  trace_internal::EncodeRecord(record, &encode_state_, &encoded_);
  const size_t size = ring_.size();
  if (encoded_.size() + kHeader > size / 4) {
    encode_state_ = before;  // the worker never decodes this one
    AnalyseInPlace(record);
    return ++records_pushed_;
  }
  const uint64_t length = encoded_.size();
  uint64_t offset = write_position_ % size;
  const uint64_t skip = size - offset < kHeader + length ? size - offset : 0;
  const uint64_t end = write_position_ + skip + kHeader + length;
  // Reading consumed_ pulls a line the worker writes: only when the ring
  // looks full by what was read last time.
  if (end - consumed_seen_ > size) {
    consumed_seen_ = consumed_.load(std::memory_order_acquire);
    if (end - consumed_seen_ > size) {
      WaitUntil([&] { return end - consumed_.load(std::memory_order_acquire) <= size; });
      consumed_seen_ = consumed_.load(std::memory_order_acquire);
    }
  }
  if (skip != 0) {
    if (skip >= kHeader) std::memcpy(&ring_[offset], &kWrapMarker, kHeader);
    offset = 0;
  }
  const auto length32 = static_cast<uint32_t>(length);
  std::memcpy(&ring_[offset], &length32, kHeader);
  std::memcpy(&ring_[offset + kHeader], encoded_.data(), length);
  write_position_ = end;
  published_.store(end, std::memory_order_release);
  return ++records_pushed_;
}

void AnalysisWorker::AnalyseInPlace(const TraceRecord& record) {
  WaitUntil([&] { return consumed_.load(std::memory_order_acquire) == write_position_; });
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
    const uint64_t end = published_.load(std::memory_order_acquire);
    if (end != position) {
      AnalyseBatch(&position, end);
      nap = kShortestNap;
      continue;
    }
    std::unique_lock<std::mutex> lock(sleep_mutex_);
    if (stopping_ && published_.load(std::memory_order_acquire) == position) break;
    if (!hurry_) wake_.wait_for(lock, nap, [&] { return hurry_ || stopping_; });
    hurry_ = false;
    nap = std::min(nap * 2, kLongestNap);
  }
}

void AnalysisWorker::AnalyseBatch(uint64_t* position, uint64_t end) {
  {
    std::lock_guard<std::mutex> busy(busy_);
    const size_t size = ring_.size();
    while (*position != end) {
      const uint64_t offset = *position % size;
      uint32_t length = kWrapMarker;
      if (size - offset >= kHeader) std::memcpy(&length, &ring_[offset], kHeader);
      if (length == kWrapMarker) {
        *position += size - offset;
        continue;
      }
      const uint8_t* p = &ring_[offset + kHeader];
      std::string problem;  // stays empty (no allocation) unless decoding fails
      if (trace_internal::DecodeRecord(&p, p + length, &decode_state_, &decoded_, &problem)) {
        analyze_(decoded_);
      } else {
        // Our own encoding: only a bug gets here. Say so once, go on.
        static bool said = false;
        if (!said) std::fprintf(stderr, "streamcheck: internal error: a queued record did not decode (%s)\n", problem.c_str());
        said = true;
      }
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
    if (consumed_.load() == published_.load()) return true;
    if (waited_ms >= timeout_ms) return false;
    const timespec one_ms{0, 1000 * 1000};
    nanosleep(&one_ms, nullptr);
  }
}

}  // namespace streamcheck::tracer
