#include "report/finding_words.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "report/object_names.h"
#include "runtime/mpi_calls.h"

namespace streamcheck::report {
namespace {

// One side of a finding, named.
struct Side {
  const FindingAccess* access = nullptr;
  std::string op;      // aten::sum, reduce_kernel, cudaMemcpyAsync, the host
  std::string at;      // scenarios.py:96, or ""
  std::string stream;  // as NameLanes names it, for a sentence ("the default stream")
  std::string brief;   // the same without its origin ("stream 2"), once `stream` introduced it
  bool pytorch = false;
  std::string framework;  // "PyTorch", "CuPy", "JAX", "Numba", or "" (FrameworkOfAccess)

  std::string Label() const { return at.empty() ? op : op + " (" + at + ")"; }
  // "before scenarios.py:96", or "before aten::sum" without a source line.
  std::string Before() const { return "before " + (at.empty() ? op : at); }
  std::string After() const { return "after " + (at.empty() ? op : at); }
  bool host() const { return access->on_host; }
  bool default_stream() const { return IsDefaultStream(*access); }
};

Side MakeSide(const FindingAccess& a, const std::string& stream) {
  Side s;
  s.access = &a;
  s.op = OperationName(a);
  s.at = ShortLocation(ProgramFrame(a.stack));
  s.stream = StreamInSentence(stream);
  s.brief = StreamInSentence(StreamWithoutOrigin(stream));
  s.pytorch = FrameworkOf(a.framework_op) == "PyTorch";
  s.framework = FrameworkOfAccess(a);
  return s;
}

std::string Present(AccessMode m) { return WordsFor(m).present; }
std::string Infinitive(AccessMode m) { return WordsFor(m).infinitive; }

std::string KindAdjective(MemoryKind k) {
  switch (k) {
    case MemoryKind::kPinnedHost: return "pinned host ";
    case MemoryKind::kRegisteredHost: return "registered host ";
    case MemoryKind::kManaged: return "managed ";
    case MemoryKind::kPageableHost: return "pageable host ";
    case MemoryKind::kAsyncPool: return "stream-ordered ";
    case MemoryKind::kDevice: return "";
  }
  return "";
}

// "the 16 MiB buffer from aten::empty", "4 bytes of the 4 MiB pinned host
// buffer from cudaMallocHost".
std::string MemoryPhrase(const Finding& f) {
  const FindingBuffer& b = f.buffer;
  const uint64_t overlap = f.accesses.empty() ? 0 : f.accesses.front().size;
  if (!b.known_allocation) {
    const uint64_t size = overlap ? overlap : b.size;
    return size == 0 ? "memory" : fmt::format("{} at {:#x}", HumanSize(size), b.address);
  }
  // "the 16 MiB buffer", "the 40-byte buffer".
  std::string size = HumanSize(b.size);
  if (size.ends_with(" bytes") || size.ends_with(" byte")) size = std::to_string(b.size) + "-byte";
  std::string whole = fmt::format("the {} {}buffer", size, KindAdjective(b.memory_kind));
  // Where it was allocated is in the memory detail: the headline stays short.
  if (!b.allocated_by.empty()) whole += " from " + DisplayOpName(b.allocated_by);
  if (overlap != 0 && overlap < b.size) return HumanSize(overlap) + " of " + whole;
  return whole;
}

// The host synchronization by the later side's thread that waited for some
// other stream than the earlier side's: what a person most likely meant.
const FindingAccess* WrongStreamSync(const Finding& f, const Side& earlier, const Side& later) {
  for (const FindingAccess& s : f.syncs) {
    if (!s.on_host || s.thread != later.access->thread || s.role != "stream synchronize") continue;
    if (s.stream_handle != earlier.access->stream_handle || s.stream_kind != earlier.access->stream_kind) return &s;
  }
  return nullptr;
}

// The record of an event on the earlier side's stream, after it, that the
// later side never waited for.
const FindingAccess* UnwaitedRecord(const Finding& f, const Side& earlier) {
  for (const FindingAccess& s : f.syncs)
    if (s.role == "event record" && s.stream_handle == earlier.access->stream_handle &&
        s.stream_kind == earlier.access->stream_kind)
      return &s;
  return nullptr;
}

// "wrote", "read", "read and wrote", "used": what a side did, done.
std::string Past(AccessMode m) {
  switch (m) {
    case AccessMode::kRead: return "read";
    case AccessMode::kWrite: return "wrote";
    case AccessMode::kReadWrite: return "read and wrote";
    case AccessMode::kUnknown: return "used";
  }
  return "used";
}

std::string Headline(const Finding& f, const Side& a, const Side& b) {
  const std::string memory = MemoryPhrase(f);
  // The host's own access, done, on another host thread than the one that
  // enqueued the later work: nothing may still run, the threads' order is missing.
  if (f.order_gap == "host-thread-not-ordered")
    return fmt::format("{} on {} {} {} after {} on host thread {} {} it, and nothing ordered host thread {} after "
                       "that",
                       b.Label(), b.brief, Present(b.access->mode), memory, a.Label(), a.access->thread,
                       Past(a.access->mode), b.access->thread);
  // The headline names streams briefly ("stream 2"); the why line says where they came from.
  const std::string a_where = a.host() ? "" : " on " + a.brief;
  switch (f.kind) {
    case FindingKind::kReadAfterWrite:
    case FindingKind::kWriteAfterRead:
    case FindingKind::kWriteAfterWrite:
      return fmt::format("{} {} {} while {}{} may still {} it", b.Label(), Present(b.access->mode), memory,
                         a.Label(), a_where, Infinitive(a.access->mode));
    case FindingKind::kUseAfterFree:
      return fmt::format("{} {} {} after {} freed it", b.Label(), Present(b.access->mode), memory, a.Label());
    case FindingKind::kFreeWhileInUse:
      // The buffer is the block being handed out: its size says enough.
      if (f.order_gap == "allocator-reuse")
        return fmt::format("{} gets a {} block back from the caching allocator on {} while {}{} may still {} it",
                           b.Label(), HumanSize(f.buffer.size), b.brief, a.Label(), a_where,
                           Infinitive(a.access->mode));
      return fmt::format("{} frees {} while {}{} may still {} it", b.Label(), memory, a.Label(), a_where,
                         Infinitive(a.access->mode));
    case FindingKind::kUseBeforeAlloc:
      return fmt::format("{} on {} {} {} before its allocation by {}{} is ordered before it", b.Label(), b.brief,
                         Present(b.access->mode), memory, a.Label(), a_where);
    default: break;
  }
  return "";
}

std::string SingleHeadline(const Finding& f, const Side& s) {
  switch (f.kind) {
    case FindingKind::kUnrecordedEventWait:
      return fmt::format("{} waits for an event that was never recorded, so {} waits for nothing", s.Label(),
                         s.host() ? "the host" : s.stream);
    case FindingKind::kPageableAsyncCopy:
      return fmt::format("{} on {} copies into pageable host memory asynchronously, and nothing synchronized "
                         "{} afterwards",
                         s.Label(), s.stream, s.stream);
    case FindingKind::kUnsynchronizedTiming:
      return fmt::format("{} reads an event time before the end event is known to have completed", s.Label());
    case FindingKind::kDefaultStreamUse: {
      // The engine's message ends with the object that made the call, when known.
      const size_t by = f.message.rfind(" by ");
      return fmt::format("{} was issued to {}{}", s.Label(), s.stream,
                         by == std::string::npos ? "" : f.message.substr(by));
    }
    default: return s.Label() + ": " + f.message;
  }
}

bool Has(const Finding& f, std::string_view code) {
  return std::find(f.uncertainty.begin(), f.uncertainty.end(), code) != f.uncertainty.end();
}

// "the host", or "host thread 2" where another host thread's knowledge is
// part of the story (Finding::aware_thread): which thread did not wait.
std::string LaterHost(const Finding& f, const Side& b) {
  return f.aware_thread != 0 ? fmt::format("host thread {}", b.access->thread) : "the host";
}

// Empty where the gap is not known: the engine's own reason stands.
std::string Why(const Finding& f, const Side& a, const Side& b) {
  const std::string& gap = f.order_gap;
  const bool pytorch = a.pytorch || b.pytorch;
  const std::string waits = pytorch ? "no event or wait_stream" : "no event";
  if (gap == "non-blocking-stream") {
    if (a.default_stream() && pytorch)
      return fmt::format("{} never waited for the default stream: PyTorch creates its streams non-blocking, so the "
                         "default stream does not order them, and {} made it wait for {}",
                         b.stream, waits, a.op);
    if (a.default_stream())
      return fmt::format("{} never waited for the default stream: it is non-blocking (cudaStreamNonBlocking), so the "
                         "default stream does not order it, and {} made it wait for {}",
                         b.stream, waits, a.op);
    return fmt::format("the default stream never waited for {}: that stream is non-blocking (cudaStreamNonBlocking), so "
                       "the default stream does not wait for its work, and {} made it wait for {}",
                       a.stream, waits, a.op);
  }
  if (gap == "no-event-wait")
    return fmt::format("{} never waited for {}: {} recorded after {} was waited on there, and {} did not "
                       "synchronize in between",
                       b.stream, a.stream, pytorch ? "no wait_stream, and no event" : "no event", a.op,
                       LaterHost(f, b));
  if (gap == "event-not-waited") {
    const FindingAccess* record = UnwaitedRecord(f, a);
    return fmt::format("{} was recorded on {} after {}, but {} never waited for it before {}",
                       record ? EventName(*record) : "an event", a.stream, a.op, b.stream, b.op);
  }
  if (gap == "host-not-synchronized") {
    if (const FindingAccess* wrong = WrongStreamSync(f, a, b)) {
      const std::string at = ShortLocation(ProgramFrame(wrong->stack));
      return fmt::format("{} did not wait for {} after {}: the {}{} waited for {} instead", LaterHost(f, b),
                         a.stream, a.op, OperationName(*wrong), at.empty() ? "" : " at " + at, StreamName(*wrong));
    }
    return fmt::format("{} did not wait for {} after {}: no synchronization with it came {}", LaterHost(f, b),
                       a.stream, a.op, b.Before());
  }
  if (gap == "host-thread-not-ordered")
    return fmt::format("host thread {} enqueued {} without being ordered after host thread {}'s access: no "
                       "synchronization between the two threads came in between",
                       b.access->thread, b.op, a.access->thread);
  if (gap == "per-thread-streams")
    return fmt::format("per-thread default streams of different host threads (threads {} and {}) are not ordered "
                       "with each other, and no event ordered them",
                       a.access->thread, b.access->thread);
  if (gap == "different-devices")
    return fmt::format("the two run on different devices ({} and {}), and no event ordered them", a.access->device,
                       b.access->device);
  if (gap == "graph-no-dependency") return "both are nodes of one CUDA graph with no dependency path between them";
  if (gap == "freed")
    return fmt::format("the memory was freed{} and not allocated again before this use",
                       a.at.empty() ? "" : " at " + a.at);
  if (gap == "allocator-reuse")
    return fmt::format("the block was freed on {} and the caching allocator handed it out again there, but nothing "
                       "ordered {} on {} before the reuse{}",
                       b.stream, a.op, a.stream,
                       pytorch ? " (the tensor was not record_stream()-ed on that stream)" : "");
  return "";
}

// Two frameworks' work on one buffer: it was handed from one to the other,
// and the handover's protocol is what orders the consumer. DLPack's Python
// API (`__dlpack__(stream=)`) makes the consumer's stream wait for the
// producer's *current* stream, not for the one that wrote the buffer; CUDA
// Array Interface v3 carries a stream a consumer may wait for, and PyTorch
// exports version 2, with none.
std::string HandoverFix(const Side& a, const Side& b) {
  return fmt::format("{}, order {}'s work after {}'s when the buffer is handed over: through DLPack "
                     "(`from_dlpack`), hand it over with {} current in {} (`__dlpack__(stream=)` makes the "
                     "consumer's stream wait for the producer's current stream only); through "
                     "`__cuda_array_interface__`, synchronize {} first (PyTorch's interface carries no stream). "
                     "Protocols: DLPack's Python API, CUDA Array Interface v3",
                     b.Before(), b.framework, a.framework, a.brief, a.framework, a.brief);
}

std::string Fix(const Finding& f, const Side& a, const Side& b) {
  const bool pytorch = a.pytorch || b.pytorch;
  const bool handover = !a.framework.empty() && !b.framework.empty() && a.framework != b.framework;
  // A host function's run (runtime/engine_host_funcs.cpp) cannot synchronize
  // (it must not call CUDA): the engine's fix orders its launch instead.
  if (IsHostFunction(*a.access) || IsHostFunction(*b.access)) return "";
  // Two nodes of one graph: only an edge of that graph orders them in every
  // launch (CUDA programming guide, "CUDA Graphs": a node runs after the
  // nodes it depends on, and in any order with the rest).
  if (f.order_gap == "graph-no-dependency")
    return fmt::format("add a dependency from {} to {} in the graph (`cudaGraphAddDependencies`, or the "
                       "dependencies given when {} is added), or capture them in one stream's order",
                       a.Label(), b.Label(), b.op);
  const std::string& rule = f.rule;
  if (f.order_gap == "host-thread-not-ordered")
    return fmt::format("{}, hand the memory over from host thread {} to host thread {} through a mutex, condition "
                       "variable, semaphore, queue or thread join (which streamcheck sees), and take it {}",
                       a.After(), a.access->thread, b.access->thread, b.Before());
  if (rule == "cross-stream-race" || rule == "use-before-allocation") {
    if (handover && rule == "cross-stream-race") return HandoverFix(a, b);
    if (IsDistributedOp(a.access->framework_op))
      return fmt::format("{}, call `work.wait()` on the handle {} returned (async_op=True): it makes the current "
                         "stream wait for the collective",
                         b.Before(), a.op);
    if (pytorch && a.default_stream() && !b.default_stream())
      return fmt::format("{}, make the side stream wait for the default stream: "
                         "`s.wait_stream(torch.cuda.current_stream())` before entering `with torch.cuda.stream(s)`, "
                         "or `torch.cuda.current_stream().wait_stream(torch.cuda.default_stream())` inside it",
                         b.Before());
    if (pytorch)
      return fmt::format("{}, make the current stream wait for {}: `torch.cuda.current_stream().wait_stream(s)`, "
                         "where `s` is the torch.cuda.Stream {} ran on",
                         b.Before(), a.brief, a.op);
    if (f.order_gap == "event-not-waited")
      if (const FindingAccess* record = UnwaitedRecord(f, a))
        return fmt::format("{}, make {} wait for {} with `cudaStreamWaitEvent(stream, event, 0)`", b.Before(),
                           b.brief, EventName(*record));
    return fmt::format("{}, record an event on {} with `cudaEventRecord(event, stream)`, and {} make {} wait for it "
                       "with `cudaStreamWaitEvent(stream, event, 0)`",
                       a.After(), a.brief, b.Before(), b.brief);
  }
  if (rule == "host-device-race" && b.host()) {
    if (IsMpiCall(b.access->op))
      return fmt::format("{}, wait for {} with `cudaStreamSynchronize(stream)`, or with `cudaEventSynchronize(event)` "
                         "on an event recorded after {}: MPI reads and writes the buffer from the host, outside every "
                         "stream's order (a CUDA-aware MPI too), so no stream wait orders it (CUDA's \"API "
                         "synchronization behavior\"; {})",
                         b.Before(), a.brief, a.Label(), MpiStandardCitation(b.access->op));
    if (pytorch)
      return fmt::format("{}, wait for {}: `torch.cuda.synchronize()`, or `.synchronize()` on that stream or on an "
                         "event recorded after {}",
                         b.Before(), a.brief, a.op);
    return fmt::format("{}, wait for {} with `cudaStreamSynchronize(stream)`, or with `cudaEventSynchronize(event)` "
                       "on an event recorded after {}",
                       b.Before(), a.brief, a.Label());
  }
  if (rule == "free-while-in-use") {
    if (f.order_gap == "allocator-reuse" && pytorch)
      return fmt::format("{}, call `tensor.record_stream(s)` on the tensor {} {} there, where `s` is {}: the "
                         "caching allocator then waits for that stream before handing the block out again (or keep "
                         "the tensor alive until the streams are synchronized)",
                         a.After(), a.op, Infinitive(a.access->mode) == "read" ? "read" : "used", a.brief);
    return fmt::format("{}, order the free after {}: free on {} with `cudaFreeAsync(ptr, stream)`, or make the "
                       "freeing stream wait for an event recorded on it {} (`cudaEventRecord` + `cudaStreamWaitEvent`)",
                       b.Before(), a.Label(), a.brief, a.After());
  }
  if (rule == "use-after-free")
    return fmt::format("move the free{} after {}, or stop using the memory once it is freed",
                       a.at.empty() ? "" : " at " + a.at, b.at.empty() ? b.op : b.at);
  return "";
}

std::string SingleFix(const Finding& f, const Side& s) {
  const bool pytorch = s.pytorch;
  switch (f.kind) {
    case FindingKind::kUnrecordedEventWait:
      return fmt::format("record the event on the producing stream {}: {}", s.Before(),
                         pytorch ? "`event.record(stream)`" : "`cudaEventRecord(event, stream)`");
    case FindingKind::kUnsynchronizedTiming:
      return fmt::format("{}, wait for the end event: {}", s.Before(),
                         pytorch ? "`end.synchronize()`" : "`cudaEventSynchronize(end)`");
    case FindingKind::kPageableAsyncCopy:
      return pytorch ? "pin the host tensor (`tensor.pin_memory()`), or synchronize the stream after the copy"
                     : "allocate the host buffer with `cudaMallocHost`/`cudaHostAlloc` (or register it with "
                       "`cudaHostRegister`), or synchronize the stream after the copy";
    case FindingKind::kDefaultStreamUse:
      return fmt::format("{}, pass the stream the code was given: {}",
                         s.at.empty() ? "at " + s.op : "at " + s.at,
                         s.access->api.find("Launch") != std::string::npos || s.access->api.empty()
                             ? "`kernel<<<grid, block, shared_bytes, stream>>>(...)` (or `cudaLaunchKernel(..., stream)`)"
                             : fmt::format("`{}(..., stream)`", s.access->api));
    default: return f.fix;
  }
}

// Why a possible finding is not certain (Finding::uncertainty), after the
// composed why: " (confidence: possible: ...)". Empty for a certain one.
std::string ConfidenceNote(const Finding& f, const Side& a, const Side& b) {
  std::vector<std::string> doubts;
  if (Has(f, "guessed-extent"))
    doubts.push_back("the two meet only in bytes streamcheck guessed a kernel reaches: it sees a kernel's pointer "
                     "arguments, not its indexing");
  if (Has(f, "guessed-mode"))
    doubts.push_back("both kernels take these bytes through pointers that are not const, and neither is known to "
                     "write them");
  else if (Has(f, "unknown-mode"))
    doubts.push_back("whether a kernel reads or writes through a non-const pointer argument is not known");
  if (Has(f, "staged-copy"))
    doubts.push_back(fmt::format("{} copied from pageable host memory, which CUDA's \"API synchronization "
                                 "behavior\" says returns once the data is staged, \"but the DMA to final "
                                 "destination may not have completed\": a hazard by the letter of the documentation",
                                 a.op));
  if (Has(f, "unobserved-handover")) {
    const std::string knew = a.host() && a.access->thread == f.aware_thread
                                 ? fmt::format("host thread {} made the earlier access itself", f.aware_thread)
                                 : fmt::format("host thread {} knew {} was done", f.aware_thread, a.op);
    doubts.push_back(fmt::format("{}, but streamcheck saw nothing pass that on to host thread {}; it sees thread "
                                 "start and join, mutexes, condition variables, semaphores and barriers, not "
                                 "lock-free atomics or spin flags, and such a handover would order the two",
                                 knew, b.access->thread));
  }
  if (doubts.empty()) return "";
  return fmt::format(" (confidence: possible: {})", fmt::join(doubts, "; "));
}

// What settles a doubt, after the composed fix.
std::string DoubtFix(const Finding& f, const Side& b) {
  std::string out;
  if (Has(f, "guessed-extent") || Has(f, "guessed-mode"))
    out += "; to settle whether they really meet, run `streamcheck run --precise -- ...`, which instruments the "
           "kernels and checks the bytes they touch";
  if (Has(f, "staged-copy")) out += "; or copy from pinned memory (`cudaMallocHost`), which cudaMemcpy waits for";
  // (A race on the host's own access: the fix is that handover already.)
  if (Has(f, "unobserved-handover") && f.order_gap != "host-thread-not-ordered")
    out += fmt::format("; or, since host thread {} knew it was done, hand the memory over to host thread {} after "
                       "that point through a mutex, condition variable, semaphore, queue or thread join (which "
                       "streamcheck sees) rather than a lock-free flag",
                       f.aware_thread, b.access->thread);
  return out;
}

}  // namespace

std::pair<size_t, size_t> RacingPair(const Finding& f) {
  size_t earlier = 0, later = f.accesses.empty() ? 0 : f.accesses.size() - 1;
  for (size_t i = 0; i < f.accesses.size(); ++i) {
    if (f.accesses[i].role == "earlier") earlier = i;
    if (f.accesses[i].role == "later") later = i;
  }
  return {earlier, later};
}

FindingWords DescribeFinding(const Finding& f) {
  FindingWords words;
  // The lint already speaks the program's words (its variables: `d_in` on
  // stream `s1`), which a trace cannot know: its sentences stay.
  if (f.origin == FindingOrigin::kStatic || f.accesses.empty()) {
    words.headline = f.message;
    words.why = f.reason;
    words.fix = f.fix;
    return words;
  }
  const LaneNames lanes = NameLanes(f);
  if (f.accesses.size() == 1) {
    const Side s = MakeSide(f.accesses[0], lanes.accesses[0]);
    words.headline = SingleHeadline(f, s);
    words.why = f.reason;
    words.fix = SingleFix(f, s);
    return words;
  }
  const auto [earlier, later] = RacingPair(f);
  const Side a = MakeSide(f.accesses[earlier], lanes.accesses[earlier]);
  const Side b = MakeSide(f.accesses[later], lanes.accesses[later]);
  words.headline = Headline(f, a, b);
  if (words.headline.empty()) words.headline = f.message;
  // Held to a warning: the bytes, the modes or the copy's completion are in doubt.
  else if (Has(f, "guessed-extent") || Has(f, "guessed-mode") || Has(f, "staged-copy"))
    words.headline = "possibly: " + words.headline;
  // A possible finding whose doubts are not known (a store before schema 4):
  // the engine's own sentences say why, and what else may settle it.
  if (f.confidence != Confidence::kCertain && f.uncertainty.empty()) {
    words.why = f.reason;
    words.fix = f.fix;
    return words;
  }
  words.why = Why(f, a, b);
  words.why = words.why.empty() ? f.reason : words.why + ConfidenceNote(f, a, b);
  words.fix = Fix(f, a, b);
  words.fix = words.fix.empty() ? f.fix : words.fix + DoubtFix(f, b);
  return words;
}

}  // namespace streamcheck::report
