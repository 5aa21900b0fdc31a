// A finding as the engine reports it: self-contained (names resolved to text),
// so sinks (the SQLite store, the console) need no access to engine state.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "runtime/ids.h"
#include "runtime/trace_record.h"

namespace streamcheck {

enum class FindingKind : uint8_t {
  kReadAfterWrite = 0,
  kWriteAfterRead = 1,
  kWriteAfterWrite = 2,
  kUseAfterFree = 3,
  kFreeWhileInUse = 4,
  kUseBeforeAlloc = 5,     // stream-ordered allocation used before it is ordered
  kUnrecordedEventWait = 6,
  kPageableAsyncCopy = 7,
  kUnsynchronizedTiming = 8,
  kDefaultStreamUse = 9,   // work issued to a default stream (run --forbid-default-stream)
};
std::string_view FindingKindName(FindingKind kind);

// How sure the engine is: kCertain when both access modes are known.
enum class Confidence : uint8_t { kCertain = 0, kLikely = 1, kPossible = 2 };
std::string_view ConfidenceName(Confidence c);

struct ResolvedFrame {
  std::string function;
  std::string file;
  uint32_t line = 0;
  uint32_t column = 0;  // lint locations; 0 = unknown
  uint64_t pc = 0;
  // The shared object or executable holding `pc` and its offset there, when
  // the symbolizer knew them (a frame without debug information still says
  // "libfoo.so+0x1a2b"); empty / 0 otherwise.
  std::string module;
  uint64_t module_offset = 0;
};

// A frame known by its source place alone (the lint's, a symbolized one).
inline ResolvedFrame SourceFrame(std::string function, std::string file, uint32_t line, uint32_t column = 0) {
  ResolvedFrame f;
  f.function = std::move(function);
  f.file = std::move(file);
  f.line = line;
  f.column = column;
  return f;
}

// Where a stream or event came from, so reports can name it for people
// ("stream 2 (created at train.py:12)") instead of by handle. The engine
// records what it saw; the report layer composes the words.
struct ObjectOrigin {
  uint32_t ordinal = 0;        // the process's Nth stream (or event) created, from 1; 0 = no create seen
  std::string created_by;      // the API that created it, e.g. "cudaStreamCreateWithFlags"
  std::vector<ResolvedFrame> created_at;  // its stack; empty when none was recorded
  // Streams: the first operation enqueued on it (PyTorch hands out streams
  // from a pool it creates all at once, so for a torch.cuda.Stream the first
  // line that used it is the line a person knows it by).
  std::string first_op;        // framework op when known, else kernel or API name
  std::vector<ResolvedFrame> first_used_at;
};

// One side of a finding: an operation and the bytes it touched. Host/device
// races use the read/write kinds above with rule host-device-race.
struct FindingAccess {
  std::string role;          // "earlier" / "later" / "wait" / ...
  std::string op;            // kernel name (demangled) or API name
  std::string api;           // API called, e.g. "cudaLaunchKernel"
  std::string framework_op;  // e.g. "aten::normal_", empty when unknown
  std::string stream;        // display name, e.g. "stream 0x5555 (non-blocking)"
  Handle stream_handle = 0;
  uint32_t stream_flags = 0;
  // "legacy", "per-thread", "created" (by a traced create call), "implicit"
  // (a handle used without a create seen), "graph", "host"; empty when unknown.
  std::string stream_kind;
  ObjectOrigin stream_origin;
  // Synchronization operations: the event recorded, waited on or synchronized.
  Handle event = 0;
  ObjectOrigin event_origin;
  bool on_host = false;      // a host-thread access rather than a stream operation
  DeviceId device = -1;
  ThreadId thread = 0;
  AccessMode mode = AccessMode::kUnknown;
  Address address = 0;
  uint64_t size = 0;
  uint64_t trace_index = 0;  // index of the record in the trace (first occurrence)
  uint64_t timestamp_ns = 0;
  // Innermost frame first. A lint finding's access has one frame: its source location.
  std::vector<ResolvedFrame> stack;
  // The scopes open on the issuing thread when the operation was issued (the
  // test it belongs to: docs/SCOPES.md), outermost first, joined by " > ";
  // empty outside every scope.
  std::string scope;
};

struct FindingBuffer {
  Address address = 0;      // allocation base (or access base when not allocated through CUDA)
  uint64_t size = 0;
  MemoryKind memory_kind = MemoryKind::kPageableHost;
  bool known_allocation = false;
  std::string allocated_by;  // API that allocated it
  std::vector<ResolvedFrame> allocation_stack;
};

// Which half of streamcheck produced a finding.
enum class FindingOrigin : uint8_t { kDynamic = 0, kStatic = 1 };

struct Finding {
  FindingOrigin origin = FindingOrigin::kDynamic;
  std::string rule;  // rule id from rules/
  FindingKind kind = FindingKind::kReadAfterWrite;
  Confidence confidence = Confidence::kCertain;
  // The engine only suspects the rule's violation: the accesses meet only in
  // bytes a kernel was guessed to reach, or the hazard holds by the letter of
  // CUDA's documentation only. Such a finding is at most a warning (SeverityOf).
  bool at_most_warning = false;
  std::string message;  // one line: what raced
  std::string reason;   // why no happens-before edge exists
  std::string fix;      // how to add one
  FindingBuffer buffer;
  std::vector<FindingAccess> accesses;  // usually two: earlier, later
  // Why no happens-before edge joins the two accesses, as a code the reports
  // turn into words (docs/JSON_FORMAT.md lists them); empty when not known.
  std::string order_gap;
  // The synchronization that did happen between the two accesses on their
  // streams and host thread (event records and waits, host syncs), oldest
  // first: what the timeline draws beside the missing edge. Role says which
  // call ("event record", "stream wait", "stream synchronize", ...).
  std::vector<FindingAccess> syncs;
  // Why the finding is possible rather than certain, as codes the reports
  // turn into words (docs/JSON_FORMAT.md lists them), in this order:
  // "unknown-mode" (a side's read or write is not known), one of
  // "guessed-extent", "guessed-mode", "staged-copy" (why it is at most a
  // warning), "unobserved-handover" (only an order of host threads that
  // streamcheck cannot see may be missing: `aware_thread` knew the earlier
  // access was done). Empty for a certain finding, and in rows of stores
  // before schema 4.
  std::vector<std::string> uncertainty;
  ThreadId aware_thread = 0;
  uint64_t count = 1;                   // identical occurrences
  // Identifies "the same finding" across runs: rule, kind, both sides' code
  // locations (not addresses, handles or timestamps) and their scopes (the
  // same race in two tests is two findings).
  std::string fingerprint;
};

// "error", "warning" or "note": the rule's severity, lowered to a warning
// for a finding that is at_most_warning. The one place a finding's severity
// is decided (the store writes it, replay and reports show it).
std::string_view SeverityOf(const Finding& f);

// Receives findings as they are detected (so a crash loses none) and the final
// occurrence counts at the end.
class FindingSink {
 public:
  virtual ~FindingSink() = default;
  // `local_id` numbers findings of this engine from 1.
  virtual void OnFinding(uint64_t local_id, const Finding& finding) = 0;
  virtual void OnFindingCount(uint64_t local_id, uint64_t count) = 0;
};

}  // namespace streamcheck
