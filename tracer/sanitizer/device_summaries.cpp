#include "tracer/sanitizer/device_summaries.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <span>
#include <thread>

#include "tracer/sanitizer/access_summary.h"
#include "tracer/sanitizer/log_capacity.h"

namespace streamcheck::tracer::precise {
namespace {

// Pinned memory all slots may take together. Past it a launch first waits
// for the worker to give slots back, then keeps fast mode's extents.
constexpr size_t kMaxPinnedBytes = size_t{2} << 30;
// Accesses one launch record may carry (access_summary.h joins neighbours past it).
constexpr size_t kMaxAccesses = 8192;
// How long the worker waits for a launch's end: a kernel still running
// after this keeps fast mode's extents (and its slot is never reused).
constexpr auto kLaunchTimeout = std::chrono::seconds(60);
// After its stream synchronized, a launch whose patches did not report its
// end is given this long before it is taken as over without a summary.
constexpr auto kSettledGrace = std::chrono::milliseconds(200);
// How long a launch over the pinned budget waits for a slot to come back
// before it makes one: as long as pinning its log took the slots made
// before (a launch waiting longer would have been faster pinning one; the
// cuda-samples' StreamPriorities, whose kernels run tens of milliseconds,
// lost 100 ms to a wait), at most this.
constexpr auto kMaxSlotWait = std::chrono::milliseconds(100);
// Slots this large or larger measure the rate (smaller ones' fixed costs would overstate it).
constexpr size_t kPinRateBytes = size_t{4} << 20;

// A launch that logged this many ranges is merged on several threads (at
// some 20 ns a range, a million took one thread 20 ms), at most this many.
constexpr size_t kParallelRanges = size_t{1} << 18;
constexpr uint32_t kMaxMergeThreads = 8;

constexpr const char* kPinnedUsedUp = "precise: pinned memory for launch summaries used up (fast mode's extents)";

constexpr size_t kRecentBytes = size_t{kSegments} * kRecentPerSegment * sizeof(AccessRange);
constexpr size_t kWarpTableBytes = size_t{kWarpRecentEntries} * sizeof(AccessRange);

size_t LogBytes(uint32_t segment_capacity) { return size_t{kSegments} * segment_capacity * sizeof(AccessRange); }

// A slot's pinned memory: the host side, the header's staging copy, the
// log, each at its type's alignment (the header's counters are on lines of
// their own, and the compiler copies such a type with aligned stores).
constexpr size_t AlignUp(size_t n, size_t alignment) { return (n + alignment - 1) / alignment * alignment; }
constexpr size_t kStagingOffset = AlignUp(sizeof(SummaryHostSide), alignof(DeviceSummary));
constexpr size_t kLogOffset = AlignUp(kStagingOffset + sizeof(DeviceSummary), alignof(AccessRange));
size_t SlotBytes(uint32_t segment_capacity) { return kLogOffset + LogBytes(segment_capacity); }

uint64_t BlocksOf(const Sanitizer_LaunchData& launch) {
  return uint64_t{launch.gridDim_x} * launch.gridDim_y * launch.gridDim_z;
}

uint64_t ThreadsPerBlockOf(const Sanitizer_LaunchData& launch) {
  return uint64_t{launch.blockDim_x} * launch.blockDim_y * launch.blockDim_z;
}

uint64_t ThreadsOf(const Sanitizer_LaunchData& launch) { return BlocksOf(launch) * ThreadsPerBlockOf(launch); }

}  // namespace

DeviceSummaries::DeviceSummaries(const SanitizerLibrary& api, TracerProfile& profile)
    : api_(api),
      profile_(profile),
      merge_(std::clamp(std::thread::hardware_concurrency() / 2, 1u, kMaxMergeThreads), kParallelRanges) {}

void DeviceSummaries::Note(const std::string& what) {
  std::lock_guard<std::mutex> lock(mutex_);
  ++notes_[what];
}

std::map<std::string, uint64_t> DeviceSummaries::Notes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return notes_;
}

uint32_t DeviceSummaries::CapacityFor(const Sanitizer_LaunchData& launch) {
  const auto it = ranges_per_thread_.find(launch.function);
  if (it != ranges_per_thread_.end()) return RegrownCapacity(it->second, ThreadsOf(launch));
  return FirstLaunchCapacity(BlocksOf(launch), ThreadsPerBlockOf(launch));
}

DeviceSummaries::Slot* DeviceSummaries::IdleSlotFor(CUcontext context, Sanitizer_StreamHandle stream,
                                                    uint32_t segment_capacity) const {
  for (const auto& slot : slots_) {
    if (slot->in_use || slot->context != context || slot->segment_capacity < segment_capacity) continue;
    // Until a launch has used the slot to its end, its header's first copy
    // may still be queued on the slot's first stream: a launch on another
    // stream could overtake it.
    if (!slot->header_ready && slot->stream != stream) continue;
    return slot.get();
  }
  return nullptr;
}

size_t DeviceSummaries::SlotsInFlight(CUcontext context) const {
  size_t n = 0;
  for (const auto& slot : slots_) n += slot->in_use && slot->context == context && slot->device != nullptr;
  return n;
}

void DeviceSummaries::FreeIdleSlots(CUcontext context, uint32_t segment_capacity, size_t wanted, size_t limit) {
  for (auto& idle : slots_) {
    if (pinned_bytes_ + wanted <= limit) return;
    if (!idle->in_use && idle->device != nullptr && idle->context == context && idle->header_ready &&
        idle->segment_capacity < segment_capacity)
      FreeSlot(*idle);
  }
}

DeviceSummaries::Slot* DeviceSummaries::TakeSlot(std::unique_lock<std::mutex>& lock, CUcontext context,
                                                 Sanitizer_StreamHandle stream, uint32_t segment_capacity,
                                                 std::string* why_not) {
  if (Slot* idle = IdleSlotFor(context, stream, segment_capacity)) return idle;
  const size_t wanted = SlotBytes(segment_capacity);
  FreeIdleSlots(context, segment_capacity, wanted, kPinnedBudgetBytes);
  if (releases_ != releases_at_vain_wait_ && WaitsForSlot(pinned_bytes_, wanted, SlotsInFlight(context))) {
    const uint64_t start = profile_.Now();
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::min<std::chrono::nanoseconds>(kMaxSlotWait, std::chrono::nanoseconds(static_cast<int64_t>(
                                                             pin_ns_per_byte_ * static_cast<double>(wanted))));
    for (;;) {
      if (released_.wait_until(lock, deadline) == std::cv_status::timeout) {
        releases_at_vain_wait_ = releases_;
        ++notes_["precise: a launch waited in vain for a launch summary to come back and made one (earlier "
                 "launches still running)"];
        break;
      }
      if (Slot* idle = IdleSlotFor(context, stream, segment_capacity)) {
        profile_.Add(ProfilePhase::kPreciseSlotWait, start);
        return idle;
      }
      FreeIdleSlots(context, segment_capacity, wanted, kPinnedBudgetBytes);
      if (!WaitsForSlot(pinned_bytes_, wanted, SlotsInFlight(context))) break;
    }
    profile_.Add(ProfilePhase::kPreciseSlotWait, start);
  }
  const uint64_t start = profile_.Now();
  Slot* slot = NewSlot(context, stream, segment_capacity, why_not);
  profile_.Add(ProfilePhase::kPreciseNewSlot, start);
  return slot;
}

DeviceSummaries::Slot* DeviceSummaries::NewSlot(CUcontext context, Sanitizer_StreamHandle stream,
                                                uint32_t segment_capacity, std::string* why_not) {
  const size_t host_bytes = SlotBytes(segment_capacity);
  // Idle slots too small for this launch make room for one that is not.
  FreeIdleSlots(context, segment_capacity, host_bytes, kMaxPinnedBytes);
  if (pinned_bytes_ + host_bytes > kMaxPinnedBytes) {
    *why_not = kPinnedUsedUp;
    return nullptr;
  }
  // A slot's index tags its launches' entries in the warps' table.
  if (slots_.size() >= kWarpTagSlots) {
    *why_not = "precise: too many launch summaries made in this process (fast mode's extents)";
    return nullptr;
  }
  AccessRange* warp_table = WarpTableOf(context);
  if (warp_table == nullptr) {
    *why_not = "precise: device memory for the warps' table could not be had (fast mode's extents)";
    return nullptr;
  }
  auto slot = std::make_unique<Slot>();
  void* host = nullptr;
  void* device = nullptr;
  void* recent = nullptr;
  const auto pin_start = std::chrono::steady_clock::now();
  if (SanitizerResult rc = api_.sanitizerAllocHost(context, &host, host_bytes); rc != SANITIZER_SUCCESS) {
    *why_not = "precise: sanitizerAllocHost failed (" + api_.Describe(rc) + ")";
    return nullptr;
  }
  if (api_.sanitizerAlloc(context, &device, sizeof(DeviceSummary)) != SANITIZER_SUCCESS ||
      api_.sanitizerAlloc(context, &recent, kRecentBytes) != SANITIZER_SUCCESS ||
      api_.sanitizerMemset(recent, 0, kRecentBytes, stream) != SANITIZER_SUCCESS ||
      // The context's table too, whoever made it: a launch with this slot
      // runs after this (on this stream, or once a launch of it has ended),
      // so no launch reads the table before it was zero once (a stale entry
      // of its memory's last owner would pass for a logged range). Zeroing
      // while other launches run costs them misses, never an access.
      api_.sanitizerMemset(warp_table, 0, kWarpTableBytes, stream) != SANITIZER_SUCCESS) {
    *why_not = "precise: device memory for a launch summary could not be had";
    if (device != nullptr) api_.sanitizerFree(context, device);
    if (recent != nullptr) api_.sanitizerFree(context, recent);
    api_.sanitizerFreeHost(context, host);
    return nullptr;
  }
  pinned_bytes_ += host_bytes;
  if (host_bytes >= kPinRateBytes)
    pin_ns_per_byte_ = static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                               std::chrono::steady_clock::now() - pin_start)
                                               .count()) /
                       static_cast<double>(host_bytes);
  auto* bytes = static_cast<char*>(host);
  slot->context = context;
  slot->stream = stream;
  slot->host = reinterpret_cast<SummaryHostSide*>(bytes);
  slot->staging = reinterpret_cast<DeviceSummary*>(bytes + kStagingOffset);
  slot->log = reinterpret_cast<AccessRange*>(bytes + kLogOffset);
  slot->device = static_cast<DeviceSummary*>(device);
  slot->recent = static_cast<AccessRange*>(recent);
  slot->segment_capacity = segment_capacity;
  std::memset(slot->host, 0, sizeof(SummaryHostSide));
  std::memset(slot->staging, 0, sizeof(DeviceSummary));
  slot->staging->log = slot->log;
  slot->staging->host = slot->host;
  slot->staging->recent = slot->recent;
  slot->staging->generation = 1;
  slot->staging->slot = static_cast<uint32_t>(slots_.size());
  slot->staging->warps = {warp_table, WarpEntryTag(slot->staging->slot, slot->staging->generation)};
  slot->staging->segment_capacity = segment_capacity;
  for (auto& segment : slot->staging->lost)
    for (Hull& hull : segment) hull = {~0ull, 0};
  // Ahead of the launch on its own stream: the copy from pinned memory
  // runs in stream order, before the kernel reads the header.
  if (SanitizerResult rc = api_.sanitizerMemcpyHostToDeviceAsync(slot->device, slot->staging, sizeof(DeviceSummary),
                                                                 stream);
      rc != SANITIZER_SUCCESS) {
    *why_not = "precise: the launch summary's header could not be copied (" + api_.Describe(rc) + ")";
    return nullptr;  // the memory stays allocated (a few bytes): the copy may still run
  }
  slots_.push_back(std::move(slot));
  return slots_.back().get();
}

uint32_t DeviceSummaries::Begin(const Sanitizer_LaunchData& launch, std::string* why_not) {
  std::unique_lock<std::mutex> lock(mutex_);
  Slot* slot = TakeSlot(lock, launch.context, launch.hStream, CapacityFor(launch), why_not);
  if (slot == nullptr) return 0;
  slot->host->done = 0;
  slot->stream = launch.hStream;
  slot->function = launch.function;
  slot->threads = ThreadsOf(launch);
  slot->settled.store(false);
  // Before its tags come round again (device_summary_layout.h): on the
  // launch's stream, ahead of it; the slot's last launch is over.
  if (++slot->launches % kTablesClearedEvery == 0 &&
      (api_.sanitizerMemset(slot->recent, 0, kRecentBytes, launch.hStream) != SANITIZER_SUCCESS ||
       api_.sanitizerMemset(warp_tables_[launch.context], 0, kWarpTableBytes, launch.hStream) !=
           SANITIZER_SUCCESS)) {
    *why_not = "precise: a launch summary's tables could not be cleared";
    slot->context = nullptr;  // never taken again
    return 0;
  }
  if (SanitizerResult rc = api_.sanitizerSetLaunchCallbackData(launch.hLaunch, launch.function, launch.hStream,
                                                               slot->device);
      rc != SANITIZER_SUCCESS) {
    *why_not = "precise: sanitizerSetLaunchCallbackData failed (" + api_.Describe(rc) + ")";
    return 0;
  }
  slot->in_use = true;
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i].get() == slot) return static_cast<uint32_t>(i + 1);
  return 0;
}

bool DeviceSummaries::Exhausted(const std::string& why_not) { return why_not == kPinnedUsedUp; }

void DeviceSummaries::Abandon(uint32_t ticket) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (ticket == 0 || ticket > slots_.size()) return;
  // The kernel may have been queued although the call reports an error: the
  // slot is not trusted again.
  slots_[ticket - 1]->context = nullptr;
}

void DeviceSummaries::Settle(CUcontext context, Sanitizer_StreamHandle stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& slot : slots_)
    if (slot->in_use && slot->context == context && (stream == nullptr || slot->stream == stream))
      slot->settled.store(true);
}

void DeviceSummaries::FreeSlot(Slot& slot) {
  api_.sanitizerFree(slot.context, slot.device);
  api_.sanitizerFree(slot.context, slot.recent);
  api_.sanitizerFreeHost(slot.context, slot.host);
  pinned_bytes_ -= SlotBytes(slot.segment_capacity);
  slot.device = nullptr;
  slot.context = nullptr;  // never matched again; its ticket, if one is left, finds no summary
  slot.in_use = false;
}

void DeviceSummaries::Finishing() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& slot : slots_)
    if (slot->in_use) slot->settled.store(true);
}

void DeviceSummaries::ForgetContext(CUcontext context) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& slot : slots_)
    if (slot->context == context && slot->device != nullptr) FreeSlot(*slot);
  if (const auto it = warp_tables_.find(context); it != warp_tables_.end()) {
    api_.sanitizerFree(context, it->second);
    warp_tables_.erase(it);
  }
}

AccessRange* DeviceSummaries::WarpTableOf(CUcontext context) {
  if (const auto it = warp_tables_.find(context); it != warp_tables_.end()) return it->second;
  void* table = nullptr;
  if (api_.sanitizerAlloc(context, &table, kWarpTableBytes) != SANITIZER_SUCCESS) return nullptr;
  return warp_tables_[context] = static_cast<AccessRange*>(table);
}

bool DeviceSummaries::AwaitEnd(const Slot& slot) const {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point settled_at{};
  auto nap = std::chrono::microseconds(5);
  while (slot.host->done == 0) {
    const Clock::time_point now = Clock::now();
    if (now - start > kLaunchTimeout) return false;
    if (slot.settled.load()) {
      if (settled_at == Clock::time_point{}) settled_at = now;
      else if (now - settled_at > kSettledGrace) return false;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::microseconds(1000));
  }
  std::atomic_thread_fence(std::memory_order_acquire);
  return true;
}

void DeviceSummaries::Release(Slot& slot) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    slot.in_use = false;
    ++releases_;
  }
  released_.notify_all();
}

void DeviceSummaries::Merge(const Slot& slot, std::vector<MemoryAccess>* exact, bool* joined) {
  std::array<std::span<const AccessRange>, kSegments> segments;
  for (uint32_t i = 0; i < kSegments; ++i)
    segments[i] = {slot.log + size_t{i} * slot.segment_capacity, std::min(slot.host->counts[i], slot.segment_capacity)};
  merge_.Merge(segments, kMaxAccesses, exact, joined);
}

void DeviceSummaries::Complete(TraceRecord& launch, const AllocationBounds& allocations) {
  Slot* slot = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (launch.device_access_ticket <= slots_.size()) slot = slots_[launch.device_access_ticket - 1].get();
    if (slot != nullptr && slot->device == nullptr) slot = nullptr;  // its context is gone
  }
  launch.device_access_ticket = 0;
  if (slot == nullptr) return Note("precise: a launch's summary was lost with its context (fast mode's extents)");
  const uint64_t end_start = profile_.Now();
  const bool ended = AwaitEnd(*slot);
  profile_.Add(ProfilePhase::kPreciseLaunchEnd, end_start);
  if (!ended) {
    std::lock_guard<std::mutex> lock(mutex_);
    slot->context = nullptr;  // the device may still write it: never reused
    ++notes_["precise: a launch did not report its end (fast mode's extents)"];
    return;
  }
  slot->header_ready = true;
  uint64_t wanted = 0;
  bool overflow = false;
  std::vector<MemoryAccess> lost;  // the hulls of what overflowing segments could not log
  for (uint32_t i = 0; i < kSegments; ++i) {
    const uint32_t count = slot->host->counts[i];
    wanted = std::max<uint64_t>(wanted, count);
    if (count <= slot->segment_capacity) continue;
    overflow = true;
    const AccessMode modes[] = {AccessMode::kRead, AccessMode::kWrite};
    for (uint32_t mode : {kHullRead, kHullWrite}) {
      const Hull& hull = slot->host->lost[i][mode];
      // Not a byte of it is known to be touched by itself.
      if (hull.low < hull.high) lost.push_back({hull.low, hull.high - hull.low, modes[mode], AccessCertainty::kNone});
    }
  }
  if (overflow) {
    std::lock_guard<std::mutex> lock(mutex_);
    double& per_thread = ranges_per_thread_[slot->function];
    per_thread = std::max(per_thread, static_cast<double>(wanted) / std::max<uint64_t>(slot->threads, 1));
    ++notes_["precise: a launch's log overflowed: what it could not log takes a guessed extent (its kernel gets "
             "more room next time)"];
  }
  std::vector<MemoryAccess> exact;
  bool joined = false;
  const uint64_t merge_start = profile_.Now();
  Merge(*slot, &exact, &joined);
  profile_.Add(ProfilePhase::kPreciseMerge, merge_start);
  Release(*slot);  // the ranges are merged
  exact.insert(exact.end(), lost.begin(), lost.end());
  launch.accesses.clear();
  for (MemoryAccess& a : exact) {
    // Joined neighbours hold bytes no one touched: past their first byte, a guess.
    if (joined) a.certainty = std::max(a.certainty, AccessCertainty::kFirstByte);
    const size_t before = launch.accesses.size();
    allocations.ClipToKnown(a, &launch.accesses);
    // Where clipping cut a guess, its first byte is no longer the one touched.
    for (size_t k = before; k < launch.accesses.size(); ++k)
      if (a.certainty != AccessCertainty::kExact && launch.accesses[k].addr != a.addr)
        launch.accesses[k].certainty = AccessCertainty::kNone;
  }
  launch.pointer_words = false;
  if (joined) Note("precise: a launch touched too many separate ranges; neighbours were joined (possible findings)");
}

}  // namespace streamcheck::tracer::precise
