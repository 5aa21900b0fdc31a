#include "runtime/sync_objects.h"

#include "runtime/memory_estimate.h"
#include <algorithm>

namespace streamcheck {

SyncObjects::~SyncObjects() {
  for (StreamState* s : owned_) delete s;
}

ThreadState& SyncObjects::FindOrAddThread(ThreadId id) {
  auto it = threads_.find(id);
  if (it == threads_.end()) {
    it = threads_.try_emplace(id).first;
    it->second.id = id;
    LaneInfo info;
    info.kind = LaneKind::kHostThread;
    info.thread = id;
    it->second.lane = lanes_->Add(info);
  }
  last_thread_state_ = &it->second;
  return it->second;
}

DeviceState& SyncObjects::Device(DeviceId device) {
  DeviceState& d = devices_[device];
  if (d.legacy == nullptr) {
    d.legacy = NewStream(/*key=*/0, kLegacyStreamHandle, LaneKind::kLegacyStream, 0, device, 0);
    d.all.push_back(d.legacy);
  }
  return d;
}

StreamState* SyncObjects::NewStream(Handle key, Handle handle, LaneKind kind, ThreadId thread,
                                    DeviceId device, uint32_t flags) {
  auto* s = new StreamState;
  owned_.push_back(s);
  s->handle = handle;
  s->device = device;
  s->device_state = &devices_[device];  // unordered_map references are stable
  s->legacy = kind == LaneKind::kLegacyStream;
  s->blocking = !s->legacy && (flags & kStreamNonBlocking) == 0;
  LaneInfo info;
  info.kind = kind;
  info.handle = handle;
  info.flags = flags;
  info.device = device;
  info.thread = thread;
  s->lane = lanes_->Add(info);
  return s;
}

StreamState& SyncObjects::CreateStream(Handle handle, ThreadId thread, DeviceId device,
                                       uint32_t flags) {
  // A handle value can be reused after cudaStreamDestroy: the new stream is a new lane.
  if (streams_.Find(handle) != nullptr) DestroyStream(handle);
  DeviceState& d = Device(device);
  StreamState* s = NewStream(handle, handle, LaneKind::kStream, thread, device, flags);
  streams_.Set(handle, s);
  d.all.push_back(s);
  if (s->blocking) d.blocking.push_back(s);
  return *s;
}

StreamState& SyncObjects::SpecialOrImplicitStream(Handle handle, ThreadId thread) {
  ThreadState& t = Thread(thread);
  if (handle == kLegacyStreamHandle || handle == kCudaStreamLegacy) {
    return *Device(t.current_device).legacy;
  }
  if (handle == kCudaStreamPerThread) {
    const uint64_t key = (uint64_t{thread} << 32) | static_cast<uint32_t>(t.current_device);
    auto it = per_thread_streams_.find(key);
    if (it != per_thread_streams_.end()) return *it->second;
    DeviceState& d = Device(t.current_device);
    StreamState* s = NewStream(key, kCudaStreamPerThread, LaneKind::kPerThreadStream, thread,
                               t.current_device, 0);
    per_thread_streams_[key] = s;
    d.all.push_back(s);
    d.blocking.push_back(s);  // the per-thread stream is an ordinary blocking stream
    return *s;
  }
  if (StreamState** s = streams_.Find(handle)) return **s;
  // Unknown handle: assume a blocking stream on the current device. Blocking
  // is the assumption that adds ordering, so it cannot create false reports.
  ++implicit_streams_;
  return CreateStream(handle, thread, t.current_device, 0);
}

void SyncObjects::ForgetStream(StreamState* stream) {
  std::erase(stream->device_state->blocking, stream);
  std::erase(stream->device_state->all, stream);
  stream->device_state->Unlist(stream);
}

void SyncObjects::DestroyStream(Handle handle) {
  StreamState** s = streams_.Find(handle);
  if (s == nullptr) return;
  // Pending work still completes after cudaStreamDestroy: "the function will
  // return immediately and the resources associated with stream will be
  // released automatically once the device has completed all work in stream"
  // (cudaStreamDestroy). The lane's epochs stay valid in shadow memory, only
  // the handle goes away; a device-wide synchronization still waits for them.
  DeviceState& d = *(*s)->device_state;
  d.retired.Join((*s)->clock);
  d.retired_listed_at = ++d.changes;
  ForgetStream(*s);
  streams_.Erase(handle);
}

void SyncObjects::JoinIssuerAndLegacy(StreamState& stream, ThreadState& thread) {
  const ThreadId thread_id = thread.id;
  if (stream.last_joined_thread != thread_id || stream.last_joined_thread_version != thread.version) {
    // Where only the thread's own entry moved since (its host operations),
    // the rest of its clock is in the stream's already.
    if (stream.last_joined_thread == thread_id && stream.last_joined_thread_joins == thread.joins)
      stream.LearnEntry(thread.lane, thread.clock.Get(thread.lane));
    else
      stream.Learn(thread.clock);
    stream.last_joined_thread = thread_id;
    stream.last_joined_thread_version = thread.version;
    stream.last_joined_thread_joins = thread.joins;
  }
  DeviceState& d = *stream.device_state;
  if (stream.legacy) {
    // The legacy default stream waits for all prior work of blocking
    // streams: of a stream that only ran work of its own since the last
    // time, that is one entry.
    for (StreamState* b : d.blocking) {
      if (b->joins_seen_by_legacy == b->joins) {
        stream.LearnEntry(b->lane, b->clock.Get(b->lane));
      } else {
        stream.Learn(b->clock);
        b->joins_seen_by_legacy = b->joins;
      }
    }
  } else if (stream.blocking && stream.last_joined_legacy_version != d.legacy_version) {
    // ... and blocking streams' later work waits for the legacy stream.
    stream.Learn(d.legacy->clock);
    stream.last_joined_legacy_version = d.legacy_version;
  }
}

Epoch SyncObjects::TickThread(ThreadState& thread) {
  const Clock c = thread.clock.Get(thread.lane) + 1;
  thread.clock.Set(thread.lane, c);
  ++thread.version;
  return {thread.lane, c};
}

void SyncObjects::JoinIntoThread(ThreadState& thread, const VectorClock& clock) {
  thread.clock.Join(clock);
  ++thread.version;
  ++thread.joins;
}

void SyncObjects::JoinDeviceIntoThread(ThreadState& thread, DeviceId device) {
  DeviceState& d = Device(device);
  auto sync = std::find_if(thread.device_syncs.begin(), thread.device_syncs.end(),
                           [&](const ThreadState::DeviceSync& s) { return s.device == device; });
  // A thread's first synchronization of the device joins every stream with work.
  if (sync == thread.device_syncs.end()) sync = thread.device_syncs.insert(sync, {device, 0});
  // A stream not listed since the thread's previous one has not changed
  // since, and that clock is in the thread's already: clocks only grow.
  const uint64_t seen = sync->changes;
  for (const StreamState* s = d.listed_last; s != nullptr && s->listed_at > seen; s = s->listed_prev)
    JoinIntoThread(thread, s->clock);
  if (d.retired_listed_at > seen) JoinIntoThread(thread, d.retired);
  sync->changes = d.synced_at = d.changes;
}

void SyncObjects::SwitchThreads(ThreadState& thread, ThreadId id) {
  if (!per_thread_clocks_) {
    if (have_last_thread_) host_knowledge_.Join(Thread(last_thread_).clock);
    JoinIntoThread(thread, host_knowledge_);
  }
  last_thread_ = id;
  have_last_thread_ = true;
}

size_t SyncObjects::HeapBytes() const {
  size_t bytes = memory::HashMap(threads_) + streams_.HeapBytes() + memory::HashMap(per_thread_streams_) +
                 memory::HashMap(devices_) + memory::HashMap(events_) + memory::Buffer(owned_) +
                 host_knowledge_.HeapBytes();
  for (const auto& [id, t] : threads_)
    bytes += t.clock.HeapBytes() + t.epochs.HeapBytes() + memory::Buffer(t.device_syncs);
  for (const StreamState* s : owned_)
    bytes += memory::Chunk(sizeof(StreamState)) + s->clock.HeapBytes() + memory::Buffer(s->capture_frontier);
  for (const auto& [id, d] : devices_)
    bytes += memory::Buffer(d.blocking) + memory::Buffer(d.all) + d.retired.HeapBytes();
  for (const auto& [handle, e] : events_) bytes += e.clock.HeapBytes() + memory::Buffer(e.capture_nodes);
  return bytes;
}

void SyncObjects::SetPerThreadClocks(bool per_thread) {
  if (per_thread_clocks_ == per_thread) return;
  per_thread_clocks_ = per_thread;
  // Back to trace order (the tracer could not follow the threads any more):
  // from here on every thread learns all that any thread knows.
  if (!per_thread) {
    for (const auto& [id, t] : threads_) host_knowledge_.Join(t.clock);
    have_last_thread_ = false;  // the next call of any thread joins it
  }
}

}  // namespace streamcheck
