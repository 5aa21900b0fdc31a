// The objects that carry happens-before knowledge: host threads, streams,
// events and devices, and the rules that connect them (issue order, the legacy
// default stream, per-thread default streams, event record/wait, host syncs).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/address_map.h"
#include "runtime/ids.h"
#include "runtime/lane_table.h"
#include "runtime/thread_epochs.h"
#include "runtime/vector_clock.h"

namespace streamcheck {

struct ThreadState {
  ThreadId id = 0;
  Lane lane = kNoLane;
  VectorClock clock;
  DeviceId current_device = 0;
  uint64_t version = 0;  // bumped whenever `clock` changes, so streams can skip re-joins
  uint64_t joins = 0;    // bumped when `clock` takes in another clock (not for its own ticks)
  ThreadEpochs epochs;   // the clocks other threads may be after (thread_epochs.h)
  // Per device the thread synchronized with (cudaDeviceSynchronize, cudaFree,
  // ...), DeviceState::changes then: the streams listed no later are in
  // `clock` already (SyncObjects::JoinDeviceIntoThread).
  struct DeviceSync {
    DeviceId device;
    uint64_t changes;
  };
  std::vector<DeviceSync> device_syncs;
};

struct DeviceState;

struct StreamState {
  Lane lane = kNoLane;
  DeviceState* device_state = nullptr;
  Handle handle = 0;
  DeviceId device = 0;
  bool blocking = true;  // ordered with the legacy default stream
  bool legacy = false;
  VectorClock clock;  // knowledge of the stream's most recent operation
  uint64_t joins = 0;  // bumped when `clock` takes in another clock (Learn; not for its own ticks)
  // Skip re-joining an unchanged issuing thread / legacy stream.
  ThreadId last_joined_thread = 0;
  uint64_t last_joined_thread_version = ~uint64_t{0};
  uint64_t last_joined_thread_joins = ~uint64_t{0};  // ThreadState::joins then
  uint64_t last_joined_legacy_version = 0;
  // `joins` when its device's legacy stream last took this stream's clock
  // (a blocking stream): if it has not changed, only the own entry may have.
  uint64_t joins_seen_by_legacy = ~uint64_t{0};
  // Takes in what another clock knows (an event's, a thread's, a graph's).
  inline void Learn(const VectorClock& other);
  inline void LearnEntry(Lane lane, Clock c);
  // Every change of `clock` comes through here (Learn, LearnEntry,
  // SyncObjects::TickStream): the stream is listed for its device's next
  // synchronizations (DeviceState::changes).
  inline void NoteChanged();
  StreamState* listed_prev = nullptr;
  StreamState* listed_next = nullptr;
  uint64_t listed_at = 0;  // 0: not listed (no work yet)
  // The lane of the stream's host functions (kHostFunctions), made at its
  // first followed one (engine_host_funcs.cpp).
  Lane host_func_lane = kNoLane;
  // Stream capture: while set, operations become nodes of this graph.
  uint64_t capture_graph = 0;
  std::vector<uint32_t> capture_frontier;  // node indices the next captured op depends on
};

struct EventState {
  bool recorded = false;
  VectorClock clock;  // the work captured by the most recent record
  // Set when recorded on a capturing stream: the capture nodes it stands for.
  uint64_t capture_graph = 0;
  std::vector<uint32_t> capture_nodes;
};

struct DeviceState {
  StreamState* legacy = nullptr;
  uint64_t legacy_version = 0;             // bumped per legacy operation
  std::vector<StreamState*> blocking;      // blocking streams (incl. per-thread), not legacy
  std::vector<StreamState*> all;           // every live stream of the device, incl. legacy
  // The work of destroyed streams: it still completes, and a device-wide
  // synchronization (cudaDeviceSynchronize, cudaFree) waits for it too.
  VectorClock retired;
  // A device synchronization must take the clock of every stream of the
  // device, some 135 of a PyTorch process's pool, most of them idle since
  // the thread's previous one. So the streams with work are listed, each
  // with the count `changes` had when it was (`listed_at`, increasing along
  // the list), and a thread's synchronization joins only those listed after
  // its previous one (ThreadState::device_syncs). A stream whose clock
  // changes moves to the end, unless it was listed after the device's
  // latest synchronization by any thread (`synced_at`): every thread's next
  // one reaches it there anyway, and an operation's common case is one
  // compare. Destroyed streams' work counts as listed at `retired_listed_at`.
  uint64_t changes = 0;
  uint64_t synced_at = 0;
  uint64_t retired_listed_at = 0;
  StreamState* listed_first = nullptr;
  StreamState* listed_last = nullptr;
  void Unlist(StreamState* s) {
    if (s->listed_at == 0) return;
    (s->listed_prev ? s->listed_prev->listed_next : listed_first) = s->listed_next;
    (s->listed_next ? s->listed_next->listed_prev : listed_last) = s->listed_prev;
    s->listed_prev = s->listed_next = nullptr;
    s->listed_at = 0;
  }
};

void StreamState::NoteChanged() {
  DeviceState& d = *device_state;
  if (listed_at > d.synced_at) [[likely]] return;
  d.Unlist(this);
  listed_prev = d.listed_last;
  (d.listed_last ? d.listed_last->listed_next : d.listed_first) = this;
  d.listed_last = this;
  listed_at = ++d.changes;
}

void StreamState::Learn(const VectorClock& other) {
  clock.Join(other);
  ++joins;
  NoteChanged();
}

void StreamState::LearnEntry(Lane lane, Clock c) {
  if (c <= clock.Get(lane)) return;
  clock.Set(lane, c);
  ++joins;
  NoteChanged();
}

// Owns threads, streams, events and devices, and resolves handles the way the
// CUDA runtime does (0 and cudaStreamLegacy mean the legacy stream of the
// calling thread's current device; cudaStreamPerThread its per-thread stream).
class SyncObjects {
 public:
  explicit SyncObjects(LaneTable* lanes) : lanes_(lanes) {}
  ~SyncObjects();
  SyncObjects(const SyncObjects&) = delete;
  SyncObjects& operator=(const SyncObjects&) = delete;

  // The hot calls (one of each per stream operation) are inline: their common
  // case is one comparison or one probe; the rest is out of line.
  ThreadState& Thread(ThreadId id) {
    if (last_thread_state_ && last_thread_state_->id == id) [[likely]] return *last_thread_state_;
    return FindOrAddThread(id);
  }

  // Streams created implicitly because the trace used an unseen handle are
  // counted in `implicit_streams` (the tracer attached late or missed a create).
  StreamState& Stream(Handle handle, ThreadId thread) {
    Thread(thread);  // a stream's first use may come from a thread not seen yet
    if (handle > kCudaStreamPerThread) [[likely]]
      if (StreamState** s = streams_.Find(handle)) return **s;
    return SpecialOrImplicitStream(handle, thread);
  }
  StreamState& CreateStream(Handle handle, ThreadId thread, DeviceId device, uint32_t flags);
  void DestroyStream(Handle handle);

  EventState& Event(Handle handle) { return events_[handle]; }
  void DestroyEvent(Handle handle) { events_.erase(handle); }
  const std::unordered_map<Handle, EventState>& events() const { return events_; }

  DeviceState& Device(DeviceId device);

  // Enqueue edge: the stream's next operation happens after everything the
  // issuing thread knows, and after the legacy-stream rules for its device.
  void PrepareStreamOperation(StreamState& stream, ThreadState& thread) {
    // Nothing new to learn (the common case): the same thread, unchanged,
    // and no legacy-stream work since the last join.
    if (stream.last_joined_thread == thread.id &&
        stream.last_joined_thread_version == thread.version && !stream.legacy &&
        (!stream.blocking || stream.last_joined_legacy_version == stream.device_state->legacy_version))
      return;
    JoinIssuerAndLegacy(stream, thread);
  }
  // Starts a new operation on the stream; returns its epoch.
  Epoch TickStream(StreamState& stream) {
    const Clock c = stream.clock.Get(stream.lane) + 1;
    stream.clock.Set(stream.lane, c);
    stream.NoteChanged();
    if (stream.legacy) ++stream.device_state->legacy_version;
    return {stream.lane, c};
  }
  // Starts a new host operation on the thread; returns its epoch.
  Epoch TickThread(ThreadState& thread);

  void JoinIntoThread(ThreadState& thread, const VectorClock& clock);
  // A device-wide synchronization: the thread learns the work of every
  // stream of `device`, destroyed ones included. Joins only the clocks
  // listed since the thread's previous one (DeviceState::changes).
  void JoinDeviceIntoThread(ThreadState& thread, DeviceId device);
  // Every call of a host thread comes through here. With per-thread clocks
  // (kHostThreadOrder, the default of a trace that observes host
  // synchronization) threads learn from each other only through
  // kThreadAcquire. Otherwise host knowledge moves between threads in trace
  // order: once any host thread has observed work complete, later calls on
  // every thread are after it (what a trace that does not say how its
  // threads synchronize allows to conclude without false reports).
  void SwitchToThread(ThreadState& thread, ThreadId id) {
    if (have_last_thread_ && last_thread_ == id) [[likely]] return;
    SwitchThreads(thread, id);
  }
  void SetPerThreadClocks(bool per_thread);
  bool per_thread_clocks() const { return per_thread_clocks_; }
  ThreadState* FindThread(ThreadId id) {
    auto it = threads_.find(id);
    return it == threads_.end() ? nullptr : &it->second;
  }
  const std::unordered_map<ThreadId, ThreadState>& threads() const { return threads_; }

  uint64_t implicit_streams() const { return implicit_streams_; }
  // Threads, streams, events and devices with their clocks (not the lanes).
  size_t HeapBytes() const;
  Lane NewLane(const LaneInfo& info) { return lanes_->Add(info); }
  LaneTable& lanes() { return *lanes_; }

 private:
  StreamState* NewStream(Handle key, Handle handle, LaneKind kind, ThreadId thread, DeviceId device,
                         uint32_t flags);
  void ForgetStream(StreamState* stream);
  ThreadState& FindOrAddThread(ThreadId id);
  StreamState& SpecialOrImplicitStream(Handle handle, ThreadId thread);
  void JoinIssuerAndLegacy(StreamState& stream, ThreadState& thread);
  void SwitchThreads(ThreadState& thread, ThreadId id);

  LaneTable* lanes_;
  std::unordered_map<ThreadId, ThreadState> threads_;
  ThreadState* last_thread_state_ = nullptr;  // most calls come from the thread of the previous one
  AddressMap<StreamState*> streams_;          // user-created streams by handle
  std::unordered_map<uint64_t, StreamState*> per_thread_streams_;  // key: thread << 32 | device
  std::unordered_map<DeviceId, DeviceState> devices_;
  std::unordered_map<Handle, EventState> events_;
  std::vector<StreamState*> owned_;  // every stream ever made (lanes keep referring to them)
  VectorClock host_knowledge_;
  ThreadId last_thread_ = 0;
  bool have_last_thread_ = false;
  bool per_thread_clocks_ = false;
  uint64_t implicit_streams_ = 0;
};

}  // namespace streamcheck
