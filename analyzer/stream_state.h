// The flow-sensitive model of one host function: what asynchronous work may
// still be running at a program point and what each stream, event and the
// host are ordered after. One FlowState per CFG edge; states meet at joins.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <clang/Basic/SourceLocation.h>

#include "analyzer/host_loops.h"
#include "analyzer/known_values.h"
#include "analyzer/op_set.h"
#include "analyzer/symbolic.h"
#include "runtime/finding.h"
#include "runtime/trace_record.h"

namespace streamcheck::lint {


// Stream keys for the handles CUDA gives meaning to.
inline constexpr const char* kLegacyStream = "#legacy";
inline constexpr const char* kPerThreadStream = "#per-thread";
// The first character of the key of a stream that may be any stream (a
// library handle bound elsewhere): never certainly distinct from another.
inline constexpr const char* kAnyStream = "~";

enum class StreamKind { kUnknown, kBlocking, kNonBlocking, kLegacy, kPerThread };

struct BufferAccess {
  BufferRef ref;
  AccessMode mode = AccessMode::kUnknown;
  std::optional<int64_t> size_bytes;  // when the byte count is a constant
  std::string size_key;               // symbolic byte count ("" = unknown extent)
  // Made in a loop with an offset that moves with the loop (`h[i]`, `d + i * chunk`):
  // where the first iteration's access starts. It meets work from outside the
  // loop there; work of the same iteration matches the offset as written.
  std::optional<BufferRef> first_step;
  // Made in a loop at an offset that moves by a constant stride with its
  // counter: two accesses of one run of the loop are compared at the
  // iterations they can be of (DeviceConflicts).
  std::optional<LoopStride> stride;
  // Made in loops at offsets that move with their counters by an amount not
  // known (UnknownStrides): an access of another iteration of one of them
  // lies at a distance not known.
  std::vector<LoopStride> unknown_strides;
  // A kernel's pointer argument indexed by its scalar arguments: the kernel
  // and those arguments ("relax(iy_start, nx)"; kernel_index_params.h). One
  // kernel launched with others there may touch another part.
  std::string index_range;
  bool atomic = false;  // a kernel's atomic read-modify-writes only: no race with another's
  // Made only if this condition (a ConditionKey) held at the launch: the
  // kernel touches the buffer only under a flag argument (`if (calculate_norm)`).
  std::string only_if;
  bool operator==(const BufferAccess&) const = default;
};

// An asynchronous operation as issued: a kernel, a copy, a memset, a graph.
struct DeviceOp {
  int id = 0;
  Symbol stream;
  int stream_id = -1;  // stream.key interned by the OpTable (compared per pending op)
  std::string api;   // the API called: "cudaMemcpyAsync", "<<<>>>", "cudaGraphLaunch"
  std::string what;  // "kernel `scale`", "cudaMemcpyAsync"
  std::vector<BufferAccess> accesses;
  clang::SourceLocation loc;         // in the analysed function (the call site of an inlined helper)
  clang::SourceLocation inner_loc;   // inside the helper; equal to loc when not inlined
  std::string helper;                // the inlined helper's name, if any
  std::string context;               // the call-site chain of that helper; "" at the top
  bool captured = false;             // issued under stream capture: runs only when the graph is launched
  // A copy into pageable host memory (cudaMemcpyAsync device-to-host): staged,
  // and whether it runs synchronously is not defined, so the host touching its
  // destination before a synchronize is pageable-async-copy, not a race.
  bool staged_into_pageable = false;
  // A blocking cudaMemcpy from pageable memory to the device: it returns once
  // the data is staged, "the DMA to final destination may not have completed"
  // (CUDA's API synchronization behavior): a race with it is only possible.
  bool staged_destination = false;
  // Issued in a loop on `streams[i]`: the first iteration's stream
  // (`streams[0]`), distinct from another element where the key `streams[*]`
  // is not. It goes with the accesses' first steps.
  Symbol first_step_stream;
  // A graph memory node (a captured cudaMallocAsync/cudaFreeAsync): the base it allocates or frees.
  std::string allocates;
  std::string frees;
};

// A graph, or an executable graph instantiated from one, as far as the
// function shows it. Graph memory nodes allocate anew at every launch, so
// their memory is live for each launch and freed after it.
struct GraphInfo {
  OpSet nodes;                      // may: the work of its nodes (captured or added by API)
  std::set<std::string> allocates;  // may: bases its allocation nodes allocate
  std::set<std::string> frees;      // must: bases its free nodes free
  bool operator==(const GraphInfo&) const = default;
};

struct HostAccess {
  BufferAccess access;
  clang::SourceLocation loc;
  clang::SourceLocation inner_loc;
  std::string helper;
  std::string context;  // the inlined helper's call-site chain; "" at the top
};

struct StreamInfo {
  StreamKind kind = StreamKind::kUnknown;
  bool owned = false;  // created in this function: distinct from every other stream
  clang::SourceLocation created;
  bool operator==(const StreamInfo&) const = default;
};

struct BufferInfo {
  MemoryKind kind = MemoryKind::kPageableHost;
  std::string allocated_by;
  clang::SourceLocation allocated;
  std::string context;  // the inlined helper (call-site chain) that allocated it; "" at the top
  clang::SourceLocation allocated_inner;  // inside that helper; equal to `allocated` at the top
  bool operator==(const BufferInfo&) const = default;
};

struct FlowState {
  bool reached = false;
  OpSet pending;  // may still be running
  // Ops the next work on a stream is (must be) ordered after.
  std::map<std::string, OpSet> after;
  OpSet after_any_blocking;  // ... for blocking streams first seen later (legacy-stream work)
  std::map<std::string, StreamInfo> streams;
  std::map<std::string, OpSet> event_capture;                  // must: ops a record captured
  std::map<std::string, clang::SourceLocation> event_recorded;  // may: last record site
  std::map<std::string, Symbol> event_stream;                  // stream of the last record
  std::set<std::string> events_created;                         // created in this function
  std::set<std::string> events_host_complete;                   // must: host waited for the record
  std::map<std::string, BufferInfo> buffers;                    // allocation kind per base
  std::map<std::string, clang::SourceLocation> freed;           // must: freed bases
  std::map<std::string, BufferRef> aliases;                     // `float* q = p + off`
  std::map<std::string, Symbol> values;                         // `cfg.stream = s`, `cur = s1`
  std::optional<OpSet> since_clock;                             // ops issued since the last host clock read
  clang::SourceLocation clock_loc;
  clang::SourceLocation clock_inner_loc;  // inside the inlined helper that read it
  std::string clock_context;              // that helper's call-site chain; "" at the top
  std::map<std::string, std::string> capturing;                 // stream -> origin stream of its capture
  // may: a local object that ends a capture when it dies (its destructor not
  // followed: an RAII guard a helper that began the capture returned, as
  // tiny-cuda-nn's CudaGraph::capture_guard) -> the capture's origin stream
  std::map<std::string, std::string> capture_guards;
  // may: an open capture's origin stream -> the call-site chain of the helper that began it
  std::map<std::string, std::string> capture_sites;
  std::map<std::string, GraphInfo> graphs;                      // graph / exec
  // Ops of non-blocking streams that a legacy-stream op or sync would have
  // ordered had the stream been blocking: the reason behind nonblocking-legacy-order.
  OpSet legacy_bypassed;
  // What the last `return` of an inlined helper returned (a buffer, or a
  // std::vector it filled), and the call it returned to, for the caller's
  // `auto v = helper(...)`.
  struct Returned {
    const void* call = nullptr;
    BufferRef ref;
    bool operator==(const Returned&) const = default;
  };
  std::optional<Returned> returned;
  // Variables holding what a cudaStreamQuery/cudaEventQuery returned
  // (`err = cudaStreamQuery(s)`), or a value that is not cudaSuccess
  // (`cudaError_t err = cudaErrorNotReady` before a polling loop); and a
  // helper's returned test of one (`bool ready() { return cudaStreamQuery(s)
  // == cudaSuccess; }`). A branch on them that means success orders the host
  // after the queried work (query_polling.cpp).
  struct QueryResult {
    std::string target;         // the stream's or event's key; "" for "not cudaSuccess"
    bool stream = true;         // cudaStreamQuery (else cudaEventQuery)
    bool success_when_true = false;  // a helper's bool: true means cudaSuccess
    const void* call = nullptr;      // the call a helper's test returned to
    bool operator==(const QueryResult&) const = default;
  };
  std::map<std::string, QueryResult> query_results;
  std::optional<QueryResult> returned_query;
  // Conditions this path has taken (ConditionKey -> the value it found), so
  // the same test later, with nothing it reads written since, goes the same
  // way (`if (blocking) return;` in a helper, `if (blocking) sync();` after
  // it); with the keys of the variables each reads.
  struct Fact {
    bool value = false;
    std::vector<std::string> vars;
    bool operator==(const Fact&) const = default;
  };
  std::map<std::string, Fact> facts;
  // Variables this path knows the value of (known_values.h).
  KnownValues known_values;
  // Variables holding a pointer-location query's answer (symbolic.h): a test
  // of one is a test of the question, so the same test in another helper
  // call, of the same pointer, goes the same way.
  QueryValues query_values;
  // Parameters written in their function (`p = next`, `++p`): their key is
  // still the caller's argument's, so nothing asked of it is kept.
  std::set<std::string> rebound;
  // Ops pending, and events the host has not waited for, only on the paths
  // where a condition had a value ("KEY=1"), from a join of paths that went
  // both ways (a helper's early return that skips its synchronize): the same
  // test later, going the other way, knows they are done.
  struct Guard {
    OpSet ops;
    std::set<std::string> events;  // in events_host_complete on the other value's paths
    OpSet timed;                   // in since_clock on this value's paths only (a clock read on the other's)
    bool empty() const { return ops.empty() && events.empty() && timed.empty(); }
    std::vector<std::string> vars;  // what the condition reads, as in Fact
    bool operator==(const Guard&) const = default;
  };
  std::map<std::string, Guard> guarded;
  // Ops launched with accesses made only if a condition held (BufferAccess::
  // only_if), by the condition's key, while nothing it reads is written since
  // the launch: on a path that finds the condition false (or where they are
  // pending only on its false value) those accesses were not made. An op
  // launched again names its latest launch. `events` is unused.
  std::map<std::string, Guard> launched_under;
  bool operator==(const FlowState&) const = default;
};

// Meets two states at a CFG join: may-facts are united, must-facts
// intersected, where an op that is not pending on one side is vacuously
// ordered there.
FlowState Join(const FlowState& a, const FlowState& b);
// The same, taking `a`'s maps over rather than copying them.
FlowState Join(FlowState&& a, const FlowState& b);

class OpTable {
 public:
  int Intern(const void* stmt, const std::string& context);
  // A small integer per stream key, so ops' streams compare as integers.
  int StreamId(const std::string& key);
  int FindStreamId(const std::string& key) const;
  DeviceOp& operator[](int id) { return ops_[id]; }
  const DeviceOp& operator[](int id) const { return ops_[id]; }

 private:
  std::map<std::pair<const void*, std::string>, int> ids_;
  std::map<std::string, int> stream_ids_;
  std::vector<DeviceOp> ops_;
};

StreamKind KindOf(const FlowState& s, const std::string& stream);
bool IsBlocking(StreamKind k);
const OpSet& AfterSet(const FlowState& s, const std::string& stream);
bool OrderedBefore(const FlowState& s, const DeviceOp& earlier, const std::string& stream, const OpTable& ops);
// Whether two stream keys certainly name different streams (params may alias).
bool DistinctStreams(const FlowState& s, const std::string& a, const std::string& b);

enum class Overlap { kNo, kYes, kMaybe };
Overlap Overlaps(const BufferAccess& a, const BufferAccess& b);

// One unordered pair of accesses to overlapping memory, at least one a write.
struct Conflict {
  const DeviceOp* earlier = nullptr;
  BufferAccess earlier_access;
  BufferAccess later_access;
  FindingKind kind = FindingKind::kReadAfterWrite;
  Confidence confidence = Confidence::kCertain;
  bool legacy_assumed = false;  // a legacy-stream op/sync would have ordered it, were the stream blocking
};

std::vector<Conflict> DeviceConflicts(const DeviceOp& later, const FlowState& s, const OpTable& ops);
std::vector<Conflict> HostConflicts(const HostAccess& later, const FlowState& s, const OpTable& ops);

// State transitions, named after what the CUDA runtime does.
void IssueOp(FlowState& s, DeviceOp& op, const OpTable& ops);
void Complete(FlowState& s, const OpSet& ops);
// Whether `key` names memory reached through `root` (`root->val`, `root[i]`,
// `(*root).x`; `root` itself when `itself`): what a write of `root` changes.
bool ReachedThrough(std::string_view key, std::string_view root, bool itself);
// A variable was written (or, with "", anything may have been): the
// conditions that read it, or a member or element of it, are no longer
// known, nor are their values (unless `values` is false), and an answer kept
// of a query of it no longer answers for it.
void ForgetFacts(FlowState& s, const std::string& var, bool values = true);
// The known values of a variable and of its members and elements.
void ForgetKnownValues(FlowState& s, const std::string& var);
// The key of FlowState::guarded for a condition and a value.
std::string GuardKey(const std::string& condition, bool value);
void HostSyncStream(FlowState& s, const std::string& stream, const OpTable& ops);
void HostSyncDevice(FlowState& s, const OpTable& ops);
void RecordEvent(FlowState& s, const std::string& event, const Symbol& stream, clang::SourceLocation loc,
                 const OpTable& ops);
void StreamWaitEvent(FlowState& s, const std::string& stream, const std::string& event);
void HostSyncEvent(FlowState& s, const std::string& event, const OpTable& ops);

}  // namespace streamcheck::lint
