// Randomized differential test: the engine against a brute-force reference
// that builds the happens-before graph explicitly (one node per host call and
// per device operation) and checks every pair of conflicting accesses by
// reachability. Properties checked on every generated trace:
//   1. soundness: every pair the engine reports is a real race in the reference;
//   2. completeness: every access that is the first race on some byte in the
//      reference is reported by the engine;
//   3. a race-free trace yields no finding.
#include <gtest/gtest.h>

#include <bitset>
#include <map>
#include <random>
#include <set>

#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr int kMaxNodes = 1024;
using Reach = std::bitset<kMaxNodes>;

struct RefAccess {
  int node;
  bool host;
  Address begin, end;
  bool writes;
  uint64_t trace_index;
};

// The reference model: explicit graph, written independently of the engine.
class Reference {
 public:
  int NewNode(const std::vector<int>& preds) {
    const int n = static_cast<int>(reach_.size());
    Reach r;
    for (int p : preds) {
      if (p < 0) continue;
      r |= reach_[p];
      r.set(p);
    }
    reach_.push_back(r);
    return n;
  }
  bool HappensBefore(int a, int b) const { return a == b || reach_[b].test(a); }
  size_t size() const { return reach_.size(); }

 private:
  std::vector<Reach> reach_;
};

struct StreamSpec {
  Handle handle;
  bool legacy;
  bool blocking;
};

struct Generated {
  std::vector<TraceRecord> records;
  std::vector<RefAccess> accesses;
  Reference ref;
};

// Generates a random trace and, alongside, the reference graph for it.
Generated Generate(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  Generated g;
  std::vector<StreamSpec> streams = {{kLegacyStreamHandle, true, true}};
  const int extra = 1 + pick(3);
  for (int i = 0; i < extra; ++i) streams.push_back({Handle(0x10 + i * 0x10), false, pick(2) == 0});
  const int num_events = 1 + pick(3);
  const int num_threads = 1 + pick(2);
  constexpr Address kBase = 0x1000;
  constexpr int kBytes = 64;

  std::map<Handle, int> last_op;          // stream -> last device node
  std::map<Handle, int> event_capture;    // event -> node captured by most recent record (-1 none)
  int last_host = -1;                      // host calls are one chain in trace order
  std::vector<int> legacy_ops, blocking_ops;  // every device node so far, by class
  uint64_t index = 0;
  uint32_t next_site = 1;

  auto emit = [&](TraceRecord r) {
    r.thread = 1 + pick(num_threads);
    r.name = next_site++;  // a distinct site per call: no deduplication across calls
    g.records.push_back(std::move(r));
    return index++;
  };
  auto host_node = [&](std::vector<int> extra_preds) {
    extra_preds.push_back(last_host);
    last_host = g.ref.NewNode(extra_preds);
    return last_host;
  };
  auto random_accesses = [&]() {
    std::vector<MemoryAccess> out;
    const int n = 1 + pick(2);
    for (int i = 0; i < n; ++i) {
      const int b = pick(kBytes), e = b + 1 + pick(kBytes - b);
      const AccessMode modes[] = {AccessMode::kRead, AccessMode::kWrite, AccessMode::kReadWrite, AccessMode::kUnknown};
      out.push_back({kBase + b, uint64_t(e - b), modes[pick(4)]});
    }
    return out;
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
  // Half the traces follow a discipline (join every other stream before a
  // kernel, synchronize before host accesses), so race-free traces are common.
  const bool disciplined = seed % 2 == 0;

  for (size_t i = 1; i < streams.size(); ++i) {
    TraceRecord r;
    r.op = OpCode::kStreamCreate;
    r.stream = streams[i].handle;
    r.flags = streams[i].blocking ? 0 : kStreamNonBlocking;
    emit(r);
    host_node({});
  }
  const int steps = 20 + pick(40);
  for (int step = 0; step < steps; ++step) {
    const StreamSpec& s = streams[pick(streams.size())];
    const Handle e = 0xe0 + pick(num_events);
    TraceRecord r;
    switch (pick(10)) {
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
        r.accesses = random_accesses();
        const uint64_t idx = emit(r);
        const int node = device_op(s, host_node({}));
        for (const auto& a : g.records.back().accesses)
          g.accesses.push_back({node, false, a.addr, a.addr + a.size, MayWrite(a.mode), idx});
        break;
      }
      case 4: {  // host access
        if (disciplined) device_sync();
        r.op = OpCode::kHostAccess;
        r.accesses = random_accesses();
        const uint64_t idx = emit(r);
        const int node = host_node({});
        for (const auto& a : g.records.back().accesses)
          g.accesses.push_back({node, true, a.addr, a.addr + a.size, MayWrite(a.mode), idx});
        break;
      }
      case 5: record(e, s); break;
      case 6: wait(s, e); break;
      case 7: {  // stream sync or successful query
        r.op = pick(2) ? OpCode::kStreamSynchronize : OpCode::kStreamQuery;
        r.stream = s.handle;
        emit(r);
        host_node({last_op.count(s.handle) ? last_op[s.handle] : -1});
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
    }
  }
  return g;
}

struct ReportedPair {
  uint64_t earlier, later;
};

TEST(Differential, EngineMatchesBruteForceHappensBefore) {
  constexpr int kTraces = 3000;
  int racy_traces = 0;
  for (uint32_t seed = 1; seed <= kTraces; ++seed) {
    Generated g = Generate(seed);
    ASSERT_LT(g.ref.size(), size_t(kMaxNodes));
    CollectingSink sink;
    Engine engine(&sink);
    for (const TraceRecord& r : g.records) engine.Process(r);
    engine.Finish();

    std::set<uint64_t> reported_later;
    for (const Finding& f : sink.findings) {
      if (f.rule != "cross-stream-race" && f.rule != "host-device-race") continue;
      ASSERT_EQ(f.accesses.size(), 2u);
      const uint64_t ei = f.accesses[0].trace_index, li = f.accesses[1].trace_index;
      reported_later.insert(li);
      // 1. Soundness: some pair of accesses of these two calls conflicts and is unordered.
      bool real = false;
      for (const RefAccess& a : g.accesses) {
        if (a.trace_index != ei) continue;
        for (const RefAccess& b : g.accesses) {
          if (b.trace_index != li) continue;
          const bool overlap = a.begin < b.end && b.begin < a.end;
          if (overlap && (a.writes || b.writes) && !(a.host && b.host) && !g.ref.HappensBefore(a.node, b.node))
            real = true;
        }
      }
      ASSERT_TRUE(real) << "seed " << seed << ": reported a race that the reference orders: " << f.message;
    }
    // 2./3. Completeness: the first racy access on each byte is reported.
    std::map<Address, uint64_t> first_race;  // byte -> trace index of first racy access
    for (size_t j = 0; j < g.accesses.size(); ++j) {
      const RefAccess& b = g.accesses[j];
      for (size_t i = 0; i < j; ++i) {
        const RefAccess& a = g.accesses[i];
        if (a.trace_index == b.trace_index) continue;
        if (!(a.writes || b.writes) || (a.host && b.host) || g.ref.HappensBefore(a.node, b.node)) continue;
        for (Address x = std::max(a.begin, b.begin); x < std::min(a.end, b.end); ++x)
          if (!first_race.count(x) || first_race[x] > b.trace_index) first_race[x] = b.trace_index;
      }
    }
    if (!first_race.empty()) ++racy_traces;
    if (first_race.empty()) {
      ASSERT_TRUE(reported_later.empty()) << "seed " << seed;
    }
    for (const auto& [byte, idx] : first_race)
      ASSERT_TRUE(reported_later.count(idx)) << "seed " << seed << ": missed the first race on byte 0x"
                                             << std::hex << byte << " at record " << std::dec << idx;
  }
  // The generator must exercise both outcomes, or the test proves nothing.
  EXPECT_GT(racy_traces, kTraces / 10);
  EXPECT_LT(racy_traces, kTraces * 9 / 10);
}

}  // namespace
}  // namespace streamcheck::testing
