// The memory of instrumented launches (device_summary_layout.h) and their
// completion: a slot per launch in flight, handed out on the program's
// thread when the launch begins and taken back on the analysis worker once
// the launch is over and its ranges merged into the record's exact accesses.
// Slots are reused, per context, by launches that need no more room; a
// kernel whose log overflowed gets twice the room it needed at its next
// launch (this one keeps fast mode's extents). Past a budget of pinned
// memory a launch waits for a slot to come back before it makes one
// (log_capacity.h).
#pragma once

#include <sanitizer.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracer/debug/tracer_profile.h"
#include "tracer/device_accesses.h"
#include "tracer/sanitizer/access_summary.h"
#include "tracer/sanitizer/parallel_merge.h"
#include "tracer/sanitizer/device_summary_layout.h"
#include "tracer/sanitizer/sanitizer_library.h"

namespace streamcheck::tracer::precise {

class DeviceSummaries : public DeviceAccessSource {
 public:
  DeviceSummaries(const SanitizerLibrary& api, TracerProfile& profile);
  ~DeviceSummaries() override = default;

  // In a launch's LAUNCH_BEGIN callback, on the program's thread: a slot for
  // it, made the launch's callback data. The ticket for the launch's record,
  // or 0 when no slot could be had (*why_not says why; the caller made the
  // launch's callback data null).
  uint32_t Begin(const Sanitizer_LaunchData& launch, std::string* why_not);
  // Whether Begin's `why_not` says the pinned memory for slots is used up:
  // once the worker gave slots back, a new Begin may succeed.
  static bool Exhausted(const std::string& why_not);
  // The launch's API call failed after its LAUNCH_BEGIN: its slot goes back.
  void Abandon(uint32_t ticket);
  // A stream (or, stream null, a whole context) finished synchronizing:
  // its launches so far are over, whether or not their patches said so.
  void Settle(CUcontext context, Sanitizer_StreamHandle stream);
  // The context is being destroyed and the worker has analysed everything
  // queued: its slots' memory goes.
  void ForgetContext(CUcontext context);

  void Complete(TraceRecord& launch, const AllocationBounds& allocations) override;
  void Finishing() override;
  // What did not go as planned, counted (the run's summary lists it).
  void Note(const std::string& what);
  std::map<std::string, uint64_t> Notes() const override;

 private:
  struct Slot {
    CUcontext context = nullptr;
    Sanitizer_StreamHandle stream = nullptr;
    CUfunction function = nullptr;
    uint64_t threads = 0;  // of its launch
    DeviceSummary* device = nullptr;   // device memory
    AccessRange* recent = nullptr;     // device memory: the segments' table
    SummaryHostSide* host = nullptr;   // pinned host memory
    DeviceSummary* staging = nullptr;  // pinned: the source of the header's first copy
    AccessRange* log = nullptr;        // pinned
    uint32_t segment_capacity = 0;
    uint64_t launches = 0;  // begun with it: every kTablesClearedEvery-th clears its tables first
    bool in_use = false;
    std::atomic<bool> header_ready{false};  // a launch used it to the end: its header's first copy is done
    std::atomic<bool> settled{false};
  };
  // A free slot of `context` with room for `segment_capacity`: one that is
  // free now, else (over the pinned budget) one the worker gives back within
  // a while, else a new one (null on failure). `lock` holds mutex_.
  Slot* TakeSlot(std::unique_lock<std::mutex>& lock, CUcontext context, Sanitizer_StreamHandle stream,
                 uint32_t segment_capacity, std::string* why_not);
  Slot* IdleSlotFor(CUcontext context, Sanitizer_StreamHandle stream, uint32_t segment_capacity) const;
  Slot* NewSlot(CUcontext context, Sanitizer_StreamHandle stream, uint32_t segment_capacity, std::string* why_not);
  // Idle slots of `context` too small for `segment_capacity` give their
  // memory back while the slots hold more than `limit` with `wanted` more.
  void FreeIdleSlots(CUcontext context, uint32_t segment_capacity, size_t wanted, size_t limit);
  size_t SlotsInFlight(CUcontext context) const;
  void Release(Slot& slot);
  // Gives the slot's memory back (mutex_ held); the slot object stays, for its ticket.
  void FreeSlot(Slot& slot);
  // The context's warps' table (device_summary_layout.h); null when it
  // could not be had.
  AccessRange* WarpTableOf(CUcontext context);
  // The launch's logged ranges as accesses (the worker's, the slot still taken).
  void Merge(const Slot& slot, std::vector<MemoryAccess>* exact, bool* joined);
  // Waits for the launch's end; false when it never reported it.
  bool AwaitEnd(const Slot& slot) const;
  // Per segment: the room the kernel needed before for as many threads, or
  // the first launch's.
  uint32_t CapacityFor(const Sanitizer_LaunchData& launch);

  const SanitizerLibrary& api_;
  TracerProfile& profile_;
  mutable std::mutex mutex_;  // all below: the program's threads and the worker
  std::condition_variable released_;  // a slot came back (Release)
  uint64_t releases_ = 0;
  // releases_ when a launch last waited for a slot in vain: until another
  // comes back, launches make slots at once (the launches in flight may be
  // waiting for the host, as a kernel polling a flag the program sets later).
  uint64_t releases_at_vain_wait_ = ~uint64_t{0};
  // What making the last large slot took per byte (first a 64 MiB log in
  // about 25 ms, as on the H200 machines): how long a launch waits.
  double pin_ns_per_byte_ = 25e6 / double(64 << 20);
  std::vector<std::unique_ptr<Slot>> slots_;  // ticket = index + 1; never shrinks (tickets stay valid)
  std::map<CUcontext, AccessRange*> warp_tables_;  // device memory, one per context, its slots' to share
  // Per kernel that overflowed: the most ranges a segment took, per thread of its launch.
  std::unordered_map<CUfunction, double> ranges_per_thread_;
  size_t pinned_bytes_ = 0;
  std::map<std::string, uint64_t> notes_;
  ParallelMerge merge_;  // the worker's
};

}  // namespace streamcheck::tracer::precise
