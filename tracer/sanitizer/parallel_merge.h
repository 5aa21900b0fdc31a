// A large launch's logged ranges (device_summary_layout.h) merged on several
// threads. No CUDA here: unit-tested and benchmarked without a GPU.
//
// The log lies in pinned host memory, which the GPU machines' CPUs read
// slowly, and a memory-bound launch logs a million ranges. So the log is
// read once: each thread takes its share of the segments and sorts every
// range into the bucket of the thread that owns its page (page number %
// threads), cutting a range at the pages it crosses; then each thread merges
// its buckets into its own pages (access_summary.h), and the pieces that
// meet across two threads' pages are joined again. (Eight threads each
// reading the whole log for the pages they own took a million-range launch
// 27 ms on an H200 machine; reading it once, 11-14 ms.) The threads are
// kept between launches.
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "runtime/trace_record.h"
#include "tracer/sanitizer/access_summary.h"
#include "tracer/sanitizer/device_summary_layout.h"

namespace streamcheck::tracer::precise {

class ParallelMerge {
 public:
  // At most `threads` threads (the caller's one of them) for a launch of at
  // least `parallel_ranges` ranges; fewer ranges are merged on the caller's
  // thread alone.
  ParallelMerge(uint32_t threads, size_t parallel_ranges);
  ~ParallelMerge();
  ParallelMerge(const ParallelMerge&) = delete;
  ParallelMerge& operator=(const ParallelMerge&) = delete;

  // A launch's segments, merged as RangeMerger::Take merges (at most
  // `max_accesses`, *joined when neighbours had to be joined).
  void Merge(std::span<const std::span<const AccessRange>> segments, size_t max_accesses,
             std::vector<MemoryAccess>* out, bool* joined);

 private:
  // Helper threads that run a job on every index at once and wait for the next.
  class Crew {
   public:
    explicit Crew(uint32_t helpers);
    ~Crew();
    // job(1..helpers) on the helpers and job(0) on the caller; returns when
    // all are done, rethrowing what one of them threw.
    void Run(const std::function<void(uint32_t)>& job);
    // After a fork the child has none of the parent's threads: its copy is
    // left as it is (a helper may have held the mutex at the fork).
    void Abandon();

   private:
    void Loop(uint32_t index);
    std::mutex mutex_;
    std::condition_variable start_, done_;
    const std::function<void(uint32_t)>* job_ = nullptr;
    uint64_t round_ = 0;
    uint32_t pending_ = 0;
    bool stop_ = false;
    std::exception_ptr failure_;  // a helper's, for Run to rethrow
    std::vector<std::unique_ptr<std::thread>> helpers_;
  };

  void Partition(uint32_t thread, uint32_t threads, std::span<const std::span<const AccessRange>> segments);
  // After a fork: the crew is the parent's, its threads are not here.
  void DropCrewOfParent();

  const uint32_t threads_;
  const size_t parallel_ranges_;
  std::unique_ptr<Crew> crew_;  // made at the first large launch (in this process)
  pid_t crew_pid_ = 0;
  std::vector<std::vector<std::vector<AccessRange>>> buckets_;  // [reading thread][owning thread]
  std::vector<RangeMerger> mergers_;                             // per owning thread
  std::vector<std::vector<MemoryAccess>> pieces_;                // per owning thread
};

}  // namespace streamcheck::tracer::precise
