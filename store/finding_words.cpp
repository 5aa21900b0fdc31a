#include "store/finding_words.h"

#include <fmt/format.h>

#include "store/html_timeline.h"
#include "store/object_names.h"

namespace streamcheck::store {
namespace {

// One side of a finding, named.
struct Side {
  const FindingAccess* access = nullptr;
  std::string op;      // aten::sum, reduce_kernel, cudaMemcpyAsync, the host
  std::string at;      // scenarios.py:96, or ""
  std::string stream;  // as NameLanes names it, for a sentence ("the default stream")
  std::string brief;   // the same without its origin ("stream 2"), once `stream` introduced it
  bool pytorch = false;

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

std::string Headline(const Finding& f, const Side& a, const Side& b) {
  const std::string memory = MemoryPhrase(f);
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
      return fmt::format("{} on {} copies from or to pageable host memory asynchronously, and nothing synchronized "
                         "{} afterwards",
                         s.Label(), s.stream, s.stream);
    case FindingKind::kUnsynchronizedTiming:
      return fmt::format("{} reads an event time before the end event is known to have completed", s.Label());
    default: return s.Label() + ": " + f.message;
  }
}

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
    return fmt::format("{} never waited for {}: {} recorded after {} was waited on there, and the host did not "
                       "synchronize in between",
                       b.stream, a.stream, pytorch ? "no wait_stream, and no event" : "no event", a.op);
  if (gap == "event-not-waited") {
    const FindingAccess* record = UnwaitedRecord(f, a);
    return fmt::format("{} was recorded on {} after {}, but {} never waited for it before {}",
                       record ? EventName(*record) : "an event", a.stream, a.op, b.stream, b.op);
  }
  if (gap == "host-not-synchronized") {
    if (const FindingAccess* wrong = WrongStreamSync(f, a, b)) {
      const std::string at = ShortLocation(ProgramFrame(wrong->stack));
      return fmt::format("the host did not wait for {} after {}: the {}{} waited for {} instead", a.stream, a.op,
                         OperationName(*wrong), at.empty() ? "" : " at " + at, StreamName(*wrong));
    }
    return fmt::format("the host did not wait for {} after {}: no synchronization with it came {}", a.stream, a.op,
                       b.Before());
  }
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
  return f.reason;
}

std::string Fix(const Finding& f, const Side& a, const Side& b) {
  const bool pytorch = a.pytorch || b.pytorch;
  const std::string& rule = f.rule;
  if (rule == "cross-stream-race" || rule == "use-before-allocation") {
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
  return f.fix;
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
    default: return f.fix;
  }
}

std::string ConfidenceNote(Confidence c) {
  switch (c) {
    case Confidence::kCertain: return "";
    case Confidence::kLikely: return " (confidence: likely)";
    case Confidence::kPossible:
      return " (confidence: possible: whether a kernel reads or writes through a non-const pointer argument is "
             "not known)";
  }
  return "";
}

}  // namespace

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
  words.why = Why(f, a, b);
  if (!words.why.empty()) words.why += ConfidenceNote(f.confidence);
  words.fix = Fix(f, a, b);
  return words;
}

}  // namespace streamcheck::store
