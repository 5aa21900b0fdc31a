#include "tests/runtime/differential_generator.h"

#include <algorithm>

namespace streamcheck::testing {
namespace {

struct StreamSpec {
  Handle handle;
  bool legacy;
  bool blocking;
};

}  // namespace

Generated Generate(uint32_t seed, HostOrderProtocol* protocol) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  Generated g;
  g.per_thread = seed % 4 >= 2;
  std::vector<StreamSpec> streams = {{kLegacyStreamHandle, true, true}};
  const int extra = 1 + pick(3);
  for (int i = 0; i < extra; ++i) streams.push_back({Handle(0x10 + i * 0x10), false, pick(2) == 0});
  const int num_events = 1 + pick(3);
  const int num_threads = 1 + pick(g.per_thread ? 3 : 2);
  const int num_objects = 1 + pick(3);
  constexpr Address kBase = 0x1000;
  constexpr int kBytes = 64;
  // Half the traces follow a discipline (join every other stream before a
  // kernel, synchronize before host accesses, and with per-thread clocks
  // hold one lock around each step), so race-free traces are common.
  const bool disciplined = seed % 2 == 0;

  std::map<Handle, int> last_op;          // stream -> last device node
  std::map<Handle, int> event_capture;    // event -> node captured by most recent record (-1 none)
  std::map<ThreadId, int> last_host;      // thread -> its last host node (one chain in trace order: key 0)
  std::map<ThreadId, std::vector<int>> after;  // thread -> host nodes it acquired since its last call
  std::map<int, std::vector<int>> released;    // object -> host nodes released to it
  std::vector<int> legacy_ops, blocking_ops;   // every device node so far, by class
  uint64_t index = 0;
  uint32_t next_site = 1;
  ThreadId thread = 1;  // the thread of the current step

  auto chain_of = [&](ThreadId t) { return g.per_thread ? t : ThreadId{0}; };
  auto append = [&](TraceRecord r) {
    g.records.push_back(std::move(r));
    return index++;
  };
  auto emit = [&](TraceRecord r) {
    r.thread = thread;
    r.name = next_site++;  // a distinct site per call: no deduplication across calls
    if (g.per_thread) {
      std::vector<TraceRecord> before;
      protocol->Before(thread, r, &before);
      for (TraceRecord& b : before) append(std::move(b));
    }
    return append(std::move(r));
  };
  auto host_node = [&](std::vector<int> extra_preds) {
    int& last = last_host.try_emplace(chain_of(thread), -1).first->second;
    extra_preds.push_back(last);
    std::vector<int>& acquired = after[thread];
    extra_preds.insert(extra_preds.end(), acquired.begin(), acquired.end());
    acquired.clear();
    last = g.ref.NewNode(extra_preds);
    return last;
  };
  auto release = [&](int object) {
    protocol->Release(thread, object);
    const auto it = last_host.find(chain_of(thread));
    if (it != last_host.end() && it->second >= 0) released[object].push_back(it->second);
  };
  auto acquire = [&](int object) {
    protocol->Acquire(thread, object);
    const std::vector<int>& nodes = released[object];
    after[thread].insert(after[thread].end(), nodes.begin(), nodes.end());
  };
  // A kernel's extent may be guessed past its first byte, or wholly
  // (MemoryAccess::certainty); a host access is exact.
  auto random_accesses = [&](bool kernel) {
    std::vector<MemoryAccess> out;
    const int n = 1 + pick(2);
    for (int i = 0; i < n; ++i) {
      const int b = pick(kBytes), e = b + 1 + pick(kBytes - b);
      const AccessMode modes[] = {AccessMode::kRead, AccessMode::kWrite, AccessMode::kReadWrite, AccessMode::kUnknown};
      const AccessCertainty certainties[] = {AccessCertainty::kExact, AccessCertainty::kFirstByte,
                                             AccessCertainty::kNone};
      out.push_back({kBase + b, uint64_t(e - b), modes[pick(4)], kernel ? certainties[pick(3)] : AccessCertainty::kExact});
    }
    return out;
  };
  auto reference_access = [](int node, bool host, const MemoryAccess& a, uint64_t idx) {
    const Address certain_end = a.certainty == AccessCertainty::kExact       ? a.addr + a.size
                                : a.certainty == AccessCertainty::kFirstByte ? a.addr + 1
                                                                             : a.addr;
    return RefAccess{node, host, a.addr, a.addr + a.size, MayWrite(a.mode), idx, certain_end,
                     a.mode == AccessMode::kUnknown};
  };
  // A stream operation: after its host call, its stream's previous operation,
  // the legacy-stream rules, and `extra` (e.g. the captured work of an event).
  auto device_op = [&](const StreamSpec& s, int host, int extra = -1) {
    std::vector<int> preds = {host, extra};
    if (last_op.count(s.handle)) preds.push_back(last_op[s.handle]);
    if (s.legacy) preds.insert(preds.end(), blocking_ops.begin(), blocking_ops.end());
    else if (s.blocking) preds.insert(preds.end(), legacy_ops.begin(), legacy_ops.end());
    const int n = g.ref.NewNode(preds);
    last_op[s.handle] = n;
    if (s.legacy) legacy_ops.push_back(n);
    else if (s.blocking) blocking_ops.push_back(n);
    return n;
  };

  auto record = [&](Handle e, const StreamSpec& s) {
    TraceRecord r;
    r.op = OpCode::kEventRecord;
    r.event = e;
    r.stream = s.handle;
    emit(r);
    event_capture[e] = device_op(s, host_node({}));
  };
  auto wait = [&](const StreamSpec& s, Handle e) {
    TraceRecord r;
    r.op = OpCode::kStreamWaitEvent;
    r.event = e;
    r.stream = s.handle;
    emit(r);
    auto it = event_capture.find(e);
    if (it == event_capture.end()) {
      host_node({});  // a wait on a never-recorded event orders nothing
      return;
    }
    // The wait is an operation of the stream that follows the captured work.
    const int captured = it->second;
    device_op(s, host_node({}), captured);
  };
  auto device_sync = [&]() {
    TraceRecord r;
    r.op = OpCode::kDeviceSynchronize;
    emit(r);
    std::vector<int> preds;
    for (auto& [h, n] : last_op) preds.push_back(n);
    host_node(preds);
  };

  if (g.per_thread) {
    TraceRecord mode;
    mode.op = OpCode::kHostThreadOrder;
    mode.flags = 1;
    append(mode);
  }
  for (size_t i = 1; i < streams.size(); ++i) {
    TraceRecord r;
    r.op = OpCode::kStreamCreate;
    r.stream = streams[i].handle;
    r.flags = streams[i].blocking ? 0 : kStreamNonBlocking;
    emit(r);
    host_node({});
  }
  constexpr int kGlobalLock = -1;  // what a disciplined program holds around each step
  const int steps = 20 + pick(40);
  for (int step = 0; step < steps; ++step) {
    thread = static_cast<ThreadId>(1 + pick(num_threads));
    const bool locked = g.per_thread && disciplined;
    if (locked) acquire(kGlobalLock);
    const StreamSpec& s = streams[pick(streams.size())];
    const Handle e = 0xe0 + pick(num_events);
    TraceRecord r;
    switch (pick(g.per_thread ? 12 : 10)) {
      case 0: case 1: case 2: case 3: {  // kernel
        if (disciplined) {
          for (size_t o = 0; o < streams.size(); ++o) {
            if (streams[o].handle == s.handle || !last_op.count(streams[o].handle)) continue;
            const Handle join_event = 0x100 + o;
            record(join_event, streams[o]);
            wait(s, join_event);
          }
        }
        r.op = OpCode::kKernelLaunch;
        r.stream = s.handle;
        r.accesses = random_accesses(true);
        const uint64_t idx = emit(r);
        const int node = device_op(s, host_node({}));
        for (const auto& a : g.records.back().accesses) g.accesses.push_back(reference_access(node, false, a, idx));
        break;
      }
      case 4: {  // host access
        if (disciplined) device_sync();
        r.op = OpCode::kHostAccess;
        r.accesses = random_accesses(false);
        const uint64_t idx = emit(r);
        const int node = host_node({});
        for (const auto& a : g.records.back().accesses) g.accesses.push_back(reference_access(node, true, a, idx));
        break;
      }
      case 5: record(e, s); break;
      case 6: wait(s, e); break;
      case 7: {  // stream sync or successful query
        r.op = pick(2) ? OpCode::kStreamSynchronize : OpCode::kStreamQuery;
        r.stream = s.handle;
        emit(r);
        std::vector<int> preds = {last_op.count(s.handle) ? last_op[s.handle] : -1};
        // Waiting for the legacy stream waits for what an operation on it would.
        if (s.legacy) preds.insert(preds.end(), blocking_ops.begin(), blocking_ops.end());
        host_node(preds);
        break;
      }
      case 8: {  // event sync
        r.op = OpCode::kEventSynchronize;
        r.event = e;
        emit(r);
        host_node({event_capture.count(e) ? event_capture[e] : -1});
        break;
      }
      case 9: {  // device sync (rarely) or a query that says "not ready"
        if (pick(3) == 0) {
          device_sync();
        } else {
          r.op = OpCode::kStreamQuery;
          r.stream = s.handle;
          r.result = 600;
          emit(r);
          host_node({});
        }
        break;
      }
      case 10: release(pick(num_objects)); break;  // per-thread clocks only: no record
      case 11: acquire(pick(num_objects)); break;
    }
    if (locked) release(kGlobalLock);
  }
  return g;
}

}  // namespace streamcheck::testing
