#include "tracer/sanitizer/parallel_merge.h"

#include <unistd.h>

#include <algorithm>
#include <exception>
#include <utility>

namespace streamcheck::tracer::precise {

ParallelMerge::Crew::Crew(uint32_t helpers) {
  for (uint32_t i = 1; i <= helpers; ++i) helpers_.push_back(std::make_unique<std::thread>(&Crew::Loop, this, i));
}

ParallelMerge::Crew::~Crew() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (auto& helper : helpers_)
    if (helper != nullptr) helper->join();
}

void ParallelMerge::Crew::Abandon() {
  for (auto& helper : helpers_) (void)helper.release();
}

void ParallelMerge::Crew::Loop(uint32_t index) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(uint32_t)>* job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || round_ != seen; });
      if (stop_) return;
      seen = round_;
      job = job_;
    }
    std::exception_ptr failure;
    try {
      (*job)(index);
    } catch (...) {  // out of memory: the caller's thread rethrows it, where the tracer's guard catches it
      failure = std::current_exception();
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (failure && !failure_) failure_ = failure;
      if (--pending_ != 0) continue;
    }
    done_.notify_one();
  }
}

void ParallelMerge::Crew::Run(const std::function<void(uint32_t)>& job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    pending_ = static_cast<uint32_t>(helpers_.size());
    ++round_;
  }
  start_.notify_all();
  std::exception_ptr failure;
  try {
    job(0);
  } catch (...) {
    failure = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  if (!failure) failure = std::exchange(failure_, nullptr);
  failure_ = nullptr;
  if (failure) std::rethrow_exception(failure);
}

ParallelMerge::ParallelMerge(uint32_t threads, size_t parallel_ranges)
    : threads_(std::max(threads, 1u)), parallel_ranges_(parallel_ranges) {}

ParallelMerge::~ParallelMerge() { DropCrewOfParent(); }

void ParallelMerge::DropCrewOfParent() {
  if (crew_ == nullptr || crew_pid_ == getpid()) return;
  crew_->Abandon();
  (void)crew_.release();  // the parent's, after a fork: its mutex may be held
}

void ParallelMerge::Partition(uint32_t thread, uint32_t threads,
                              std::span<const std::span<const AccessRange>> segments) {
  std::vector<std::vector<AccessRange>>& buckets = buckets_[thread];
  for (auto& bucket : buckets) bucket.clear();
  for (size_t s = thread; s < segments.size(); s += threads) {
    for (const AccessRange& r : segments[s]) {
      if (!TouchesBytes(r)) continue;
      for (uint64_t begin = r.address, end = r.address + r.size; begin < end;) {
        const uint64_t page = begin / RangeMerger::kPageBytes;
        const uint64_t stop = std::min(end, (page + 1) * RangeMerger::kPageBytes);
        buckets[page % threads].push_back({begin, static_cast<uint32_t>(stop - begin), r.flags});
        begin = stop;
      }
    }
  }
}

void ParallelMerge::Merge(std::span<const std::span<const AccessRange>> segments, size_t max_accesses,
                          std::vector<MemoryAccess>* out, bool* joined) {
  size_t ranges = 0;
  for (std::span<const AccessRange> segment : segments) ranges += segment.size();
  if (mergers_.empty()) mergers_.resize(1);
  if (threads_ == 1 || ranges < parallel_ranges_) {
    for (std::span<const AccessRange> segment : segments) mergers_[0].Add(segment);
    return mergers_[0].Take(max_accesses, out, joined);
  }
  DropCrewOfParent();
  if (crew_ == nullptr) {
    crew_ = std::make_unique<Crew>(threads_ - 1);
    crew_pid_ = getpid();
  }
  const uint32_t n = threads_;
  buckets_.resize(n);
  for (auto& buckets : buckets_) buckets.resize(n);
  mergers_.resize(n);
  pieces_.resize(n);
  crew_->Run([&](uint32_t t) { Partition(t, n, segments); });
  crew_->Run([&](uint32_t t) {
    for (uint32_t reader = 0; reader < n; ++reader) mergers_[t].Add(buckets_[reader][t]);
    bool unlimited = false;  // never joins
    mergers_[t].Take(SIZE_MAX, &pieces_[t], &unlimited);
  });
  out->clear();
  *joined = false;
  for (uint32_t t = 0; t < n; ++t) out->insert(out->end(), pieces_[t].begin(), pieces_[t].end());
  // Runs cut at the threads' pages meet again; the limit holds for them joined.
  JoinParts(out);
  LimitAccesses(out, max_accesses, joined);
}

}  // namespace streamcheck::tracer::precise
