// Findings in the user's words (report/finding_words.h, report/object_names.h):
// one headline, why and fix per kind of bug, in the framework's API when a
// framework issued the operations, and streams named by where they came from.
#include <gtest/gtest.h>

#include "report/finding_words.h"
#include "report/object_names.h"

namespace streamcheck::report {
namespace {

ResolvedFrame At(const std::string& file, uint32_t line, const std::string& function = "main") {
  return {function, file, line, 0, 0x1000 + line, "", 0};
}

FindingAccess Access(const std::string& role, const std::string& op, AccessMode mode, const std::string& kind,
                     Handle stream, ResolvedFrame where) {
  FindingAccess a;
  a.role = role;
  a.op = op;
  a.api = op;
  a.mode = mode;
  a.stream_kind = kind;
  a.stream_handle = stream;
  a.stream_flags = kind == "created" ? 1 : 0;
  a.on_host = kind == "host";
  a.thread = 1;
  a.size = 4096;
  a.stack = {where};
  return a;
}

// A stream the program created at `line` of app.cu, its `ordinal`th.
void CreatedAt(FindingAccess* a, uint32_t ordinal, uint32_t line) {
  a->stream_origin.ordinal = ordinal;
  a->stream_origin.created_by = "cudaStreamCreateWithFlags";
  a->stream_origin.created_at = {At("/src/app.cu", line)};
}

Finding Race(std::string rule, FindingKind kind, FindingAccess earlier, FindingAccess later, std::string gap) {
  Finding f;
  f.rule = std::move(rule);
  f.kind = kind;
  f.order_gap = std::move(gap);
  f.buffer.known_allocation = true;
  f.buffer.memory_kind = MemoryKind::kDevice;
  f.buffer.address = 0x7f0000000000;
  f.buffer.size = 4096;
  f.buffer.allocated_by = "cudaMalloc";
  f.buffer.allocation_stack = {At("/src/app.cu", 20)};
  f.accesses = {std::move(earlier), std::move(later)};
  f.reason = "the engine's reason";
  f.fix = "the engine's fix";
  return f;
}

// Two streams of a C++ program, no event between them.
Finding TwoStreams() {
  FindingAccess copy = Access("earlier", "cudaMemcpyAsync", AccessMode::kWrite, "created", 0x55, At("/src/app.cu", 30));
  CreatedAt(&copy, 1, 17);
  FindingAccess kernel = Access("later", "void scale<float>(float const*, float*)", AccessMode::kRead, "created", 0x66,
                                At("/src/app.cu", 31));
  CreatedAt(&kernel, 2, 18);
  return Race("cross-stream-race", FindingKind::kReadAfterWrite, copy, kernel, "no-event-wait");
}

TEST(FindingWords, TwoCudaStreamsWithoutAnEvent) {
  const FindingWords w = DescribeFinding(TwoStreams());
  EXPECT_EQ(w.headline,
            "scale (app.cu:31) reads the 4 KiB buffer from cudaMalloc while cudaMemcpyAsync (app.cu:30) on "
            "stream 1 may still write it");
  EXPECT_EQ(w.why,
            "stream 2 (created at app.cu:18) never waited for stream 1 (created at app.cu:17): no event recorded after "
            "cudaMemcpyAsync was waited on there, and the host did not synchronize in between");
  EXPECT_EQ(w.fix,
            "after app.cu:30, record an event on stream 1 with `cudaEventRecord(event, stream)`, and before app.cu:31 "
            "make stream 2 wait for it with `cudaStreamWaitEvent(stream, event, 0)`");
}

TEST(FindingWords, AnEventRecordedButNeverWaitedForIsNamed) {
  Finding f = TwoStreams();
  f.order_gap = "event-not-waited";
  FindingAccess record = Access("event record", "cudaEventRecord", AccessMode::kUnknown, "created", 0x55,
                                At("/src/app.cu", 33));
  CreatedAt(&record, 1, 17);
  record.event = 0xe0;
  record.event_origin.ordinal = 3;
  record.event_origin.created_at = {At("/src/app.cu", 14)};
  f.syncs = {record};
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.why, "event 3 (created at app.cu:14) was recorded on stream 1 (created at app.cu:17) after "
                   "cudaMemcpyAsync, but stream 2 (created at app.cu:18) never waited for it before scale");
  EXPECT_EQ(w.fix, "before app.cu:31, make stream 2 wait for event 3 (created at app.cu:14) with "
                   "`cudaStreamWaitEvent(stream, event, 0)`");
}

TEST(FindingWords, TheHostSynchronizedTheWrongStream) {
  Finding f = TwoStreams();
  f.rule = "host-device-race";
  f.order_gap = "host-not-synchronized";
  f.accesses[1] = Access("later", "host read", AccessMode::kRead, "host", 0, At("/src/app.cu", 34));
  FindingAccess sync = Access("stream synchronize", "cudaStreamSynchronize", AccessMode::kUnknown, "created", 0x77,
                              At("/src/app.cu", 33));
  CreatedAt(&sync, 3, 19);
  sync.on_host = true;
  f.syncs = {sync};
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.headline.substr(0, 42), "the host (app.cu:34) reads the 4 KiB buffe");
  EXPECT_EQ(w.why, "the host did not wait for stream 1 (created at app.cu:17) after cudaMemcpyAsync: the "
                   "cudaStreamSynchronize at app.cu:33 waited for stream 3 (created at app.cu:19) instead");
  EXPECT_EQ(w.fix, "before app.cu:34, wait for stream 1 with `cudaStreamSynchronize(stream)`, or with "
                   "`cudaEventSynchronize(event)` on an event recorded after cudaMemcpyAsync (app.cu:30)");
  // Without the wrong synchronize, the why says nothing synchronized.
  f.syncs.clear();
  EXPECT_EQ(DescribeFinding(f).why,
            "the host did not wait for stream 1 (created at app.cu:17) after cudaMemcpyAsync: no synchronization with "
            "it came before app.cu:34");
}

// PyTorch: the side stream read what the default stream wrote; the later op
// on the default stream read what a side stream wrote; a collective's output.
Finding PyTorchRace(const std::string& earlier_kind, const std::string& later_kind) {
  FindingAccess w = Access("earlier", "void at::native::fill_kernel<float>(float*)", AccessMode::kWrite, earlier_kind,
                           earlier_kind == "legacy" ? 0 : 0x36fa1d20, At("/home/me/train.py", 4, "<module>"));
  w.framework_op = "aten::fill_";
  FindingAccess r = Access("later", "void at::native::reduce_kernel<512, 1>(float*)", AccessMode::kRead, later_kind,
                           later_kind == "legacy" ? 0 : 0x36fa1d20, At("/home/me/train.py", 7, "<module>"));
  r.framework_op = "aten::sum";
  for (FindingAccess* a : {&w, &r}) {
    if (a->stream_kind != "created") continue;
    a->stream_origin.ordinal = 1;
    a->stream_origin.created_by = "cudaStreamCreateWithPriority";  // PyTorch's pool: no stack
    a->stream_origin.first_op = "aten::fill_";
    a->stream_origin.first_used_at = {At("/home/me/train.py", 3, "<module>")};
  }
  return Race("cross-stream-race", FindingKind::kReadAfterWrite, w, r, "non-blocking-stream");
}

TEST(FindingWords, PyTorchSideStreamReadsWhatTheDefaultStreamWrote) {
  const FindingWords w = DescribeFinding(PyTorchRace("legacy", "created"));
  EXPECT_EQ(w.headline, "aten::sum (train.py:7) reads the 4 KiB buffer from cudaMalloc while aten::fill_ "
                        "(train.py:4) on the default stream may still write it");
  EXPECT_EQ(w.why, "the torch.cuda.Stream first used at train.py:3 never waited for the default stream: PyTorch creates "
                   "its streams non-blocking, so the default stream does not order them, and no event or wait_stream "
                   "made it wait for aten::fill_");
  EXPECT_EQ(w.fix, "before train.py:7, make the side stream wait for the default stream: "
                   "`s.wait_stream(torch.cuda.current_stream())` before entering `with torch.cuda.stream(s)`, or "
                   "`torch.cuda.current_stream().wait_stream(torch.cuda.default_stream())` inside it");
}

TEST(FindingWords, PyTorchDefaultStreamReadsWhatASideStreamWrote) {
  const FindingWords w = DescribeFinding(PyTorchRace("created", "legacy"));
  EXPECT_EQ(w.headline, "aten::sum (train.py:7) reads the 4 KiB buffer from cudaMalloc while aten::fill_ "
                        "(train.py:4) on the torch.cuda.Stream may still write it");
  EXPECT_EQ(w.fix, "before train.py:7, make the current stream wait for the torch.cuda.Stream: "
                   "`torch.cuda.current_stream().wait_stream(s)`, where `s` is the torch.cuda.Stream aten::fill_ ran on");
}

// PyTorch wrote, CuPy read (a handover through DLPack or
// __cuda_array_interface__): the fix names both frameworks and the protocols'
// rule, not PyTorch's wait_stream (CuPy's stream is no torch.cuda.Stream).
TEST(FindingWords, AHandoverBetweenFrameworksNamesBothAndTheProtocol) {
  Finding f = PyTorchRace("created", "created");
  FindingAccess& cupy = f.accesses[1];
  cupy.framework_op.clear();
  cupy.op = cupy.api = "cupy_sum";
  cupy.stream_handle = 0x4455;
  cupy.stack = {{"_reduction_call", "/venv/lib/python3.12/site-packages/cupy/_core/_reduction.py", 210, 0, 0, "", 0},
                At("/home/me/train.py", 9, "<module>")};
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(FrameworkOfAccess(f.accesses[0]), "PyTorch");
  EXPECT_EQ(FrameworkOfAccess(cupy), "CuPy");
  EXPECT_NE(w.fix.find("order CuPy's work after PyTorch's when the buffer is handed over"), std::string::npos) << w.fix;
  EXPECT_NE(w.fix.find("DLPack's Python API, CUDA Array Interface v3"), std::string::npos) << w.fix;
  EXPECT_EQ(w.fix.find("wait_stream"), std::string::npos) << w.fix;
  EXPECT_NE(w.headline.find("cupy_sum (train.py:9)"), std::string::npos) << w.headline;
  // One framework on both sides, or a program's own kernel on one: no handover.
  cupy.stack = {At("/home/me/train.py", 9, "<module>")};
  cupy.op = "scale";
  EXPECT_EQ(FrameworkOfAccess(cupy), "");
  EXPECT_EQ(DescribeFinding(f).fix.find("handed over"), std::string::npos);
  // JAX's and Numba's work is known by their packages on the stack.
  cupy.stack = {{"", "/venv/lib/python3.12/site-packages/jax/_src/dlpack.py", 80, 0, 0, "", 0}};
  EXPECT_EQ(FrameworkOfAccess(cupy), "JAX");
  cupy.stack = {{"", "", 0, 0, 0x10, "/venv/lib/python3.12/site-packages/numba_cuda/cudadrv/driver.so", 0x10}};
  EXPECT_EQ(FrameworkOfAccess(cupy), "Numba");
}

TEST(FindingWords, ACollectiveIsWaitedForWithWorkWait) {
  Finding f = PyTorchRace("created", "legacy");
  f.accesses[0].framework_op = "c10d::allreduce_";
  EXPECT_EQ(DescribeFinding(f).fix, "before train.py:7, call `work.wait()` on the handle c10d::allreduce_ returned "
                                    "(async_op=True): it makes the current stream wait for the collective");
}

TEST(FindingWords, AReusedBlockAsksForRecordStream) {
  Finding f = PyTorchRace("created", "legacy");
  f.rule = "free-while-in-use";
  f.kind = FindingKind::kFreeWhileInUse;
  f.order_gap = "allocator-reuse";
  f.accesses[0].mode = AccessMode::kRead;
  f.accesses[1].op = "caching allocator: allocate";
  f.accesses[1].framework_op = "aten::empty";
  f.accesses[1].mode = AccessMode::kWrite;
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.headline, "aten::empty (train.py:7) gets a 4 KiB block back from the caching allocator on the default "
                        "stream while aten::fill_ (train.py:4) on the torch.cuda.Stream may still read it");
  EXPECT_EQ(w.fix, "after train.py:4, call `tensor.record_stream(s)` on the tensor aten::fill_ read there, where `s` "
                   "is the torch.cuda.Stream: the caching allocator then waits for that stream before handing the "
                   "block out again (or keep the tensor alive until the streams are synchronized)");
}

TEST(FindingWords, PerThreadDefaultStreamsOfTwoThreadsAreToldApart) {
  FindingAccess a = Access("earlier", "fill(float*)", AccessMode::kWrite, "per-thread", 2, At("/src/t.cu", 10));
  FindingAccess b = Access("later", "fill(float*)", AccessMode::kWrite, "per-thread", 2, At("/src/t.cu", 10));
  b.thread = 2;
  const Finding f = Race("cross-stream-race", FindingKind::kWriteAfterWrite, a, b, "per-thread-streams");
  const LaneNames names = NameLanes(f);
  EXPECT_EQ(names.accesses[0], "per-thread default stream of thread 1");
  EXPECT_EQ(names.accesses[1], "per-thread default stream of thread 2");
  EXPECT_EQ(DescribeFinding(f).headline,
            "fill (t.cu:10) writes the 4 KiB buffer from cudaMalloc while fill (t.cu:10) on the per-thread "
            "default stream of thread 1 may still write it");
  // One stream used from two threads is one stream: nothing to tell apart.
  Finding same = TwoStreams();
  same.accesses[1].stream_handle = same.accesses[0].stream_handle;
  same.accesses[1].stream_origin = same.accesses[0].stream_origin;
  same.accesses[1].thread = 2;
  EXPECT_EQ(NameLanes(same).accesses[1], "stream 1 (created at app.cu:17)");
}

TEST(FindingWords, SingleOperationFindings) {
  Finding f;
  f.rule = "wait-on-unrecorded-event";
  f.kind = FindingKind::kUnrecordedEventWait;
  FindingAccess wait = Access("operation", "cudaStreamWaitEvent", AccessMode::kRead, "created", 0x55,
                              At("/src/app.cu", 40));
  CreatedAt(&wait, 1, 17);
  f.accesses = {wait};
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.headline, "cudaStreamWaitEvent (app.cu:40) waits for an event that was never recorded, so stream 1 "
                        "(created at app.cu:17) waits for nothing");
  EXPECT_EQ(w.fix, "record the event on the producing stream before app.cu:40: `cudaEventRecord(event, stream)`");
}

// A lint finding names the program's variables, which no trace can: its own
// sentences are kept, and its streams keep their variable names.
TEST(FindingWords, LintFindingsKeepTheirOwnWords) {
  Finding f = TwoStreams();
  f.origin = FindingOrigin::kStatic;
  f.message = "read-after-write race: scale on stream `s2` reads `d_in` while cudaMemcpyAsync on stream `s1` may "
              "still write it";
  f.fix = "cudaEventRecord(ev, s1) after line 25; cudaStreamWaitEvent(s2, ev) before line 26";
  for (FindingAccess& a : f.accesses) {
    a.stream_kind.clear();
    a.stream_origin = {};
    a.stream_handle = 0;
  }
  f.accesses[0].stream = "stream `s1` (non-blocking)";
  f.accesses[1].stream = "the legacy default stream";
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.headline, f.message);
  EXPECT_EQ(w.why, f.reason);
  EXPECT_EQ(w.fix, f.fix);
  EXPECT_EQ(StreamName(f.accesses[0]), "stream `s1` (non-blocking)");
  EXPECT_EQ(StreamName(f.accesses[1]), "default stream");
}

// A possible finding says why it is not certain (Finding::uncertainty), in
// the why, and what else would settle it, in the fix; the doubts that hold it
// to a warning make the headline a "possibly".
TEST(FindingWords, AnUnobservedHandoverBetweenHostThreadsIsNamed) {
  Finding f = TwoStreams();
  f.confidence = Confidence::kPossible;
  f.accesses[0].thread = 2;
  f.accesses[1].thread = 3;
  f.uncertainty = {"unobserved-handover"};
  f.aware_thread = 2;
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.headline.rfind("possibly", 0), std::string::npos) << w.headline;
  EXPECT_EQ(w.why,
            "stream 2 (created at app.cu:18) never waited for stream 1 (created at app.cu:17): no event recorded after "
            "cudaMemcpyAsync was waited on there, and host thread 3 did not synchronize in between (confidence: "
            "possible: host thread 2 knew cudaMemcpyAsync was done, but streamcheck saw nothing pass that on to host "
            "thread 3; it sees thread start and join, mutexes, condition variables, semaphores and barriers, not "
            "lock-free atomics or spin flags, and such a handover would order the two)");
  EXPECT_EQ(w.fix,
            "after app.cu:30, record an event on stream 1 with `cudaEventRecord(event, stream)`, and before app.cu:31 "
            "make stream 2 wait for it with `cudaStreamWaitEvent(stream, event, 0)`; or, since host thread 2 knew it "
            "was done, hand the memory over to host thread 3 after that point through a mutex, condition variable, "
            "semaphore, queue or thread join (which streamcheck sees) rather than a lock-free flag");
  // The host's own access (a guard page's fault) after another thread's synchronize.
  f.rule = "host-device-race";
  f.order_gap = "host-not-synchronized";
  f.accesses[1] = Access("later", "host read", AccessMode::kRead, "host", 0, At("/src/app.cu", 34));
  f.accesses[1].thread = 3;
  const std::string why = DescribeFinding(f).why;
  EXPECT_EQ(why.rfind("host thread 3 did not wait for stream 1 (created at app.cu:17) after cudaMemcpyAsync: no "
                      "synchronization with it came before app.cu:34 (confidence: possible: host thread 2 knew",
                      0),
            0u)
      << why;
}

// The host's own write on thread 1, done; thread 2's kernel reads the bytes
// with nothing ordering the threads: a handover is missing, not a wait.
TEST(FindingWords, AHostAccessOfAnotherThreadAsksForAHandover) {
  FindingAccess write = Access("earlier", "host write", AccessMode::kWrite, "host", 0, At("/src/app.cu", 40));
  FindingAccess kernel = Access("later", "consume", AccessMode::kRead, "created", 0x66, At("/src/app.cu", 52));
  CreatedAt(&kernel, 1, 50);
  kernel.thread = 2;
  Finding f = Race("host-device-race", FindingKind::kReadAfterWrite, write, kernel, "host-thread-not-ordered");
  f.confidence = Confidence::kPossible;
  f.uncertainty = {"unobserved-handover"};
  f.aware_thread = 1;
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.headline,
            "consume (app.cu:52) on stream 1 reads the 4 KiB buffer from cudaMalloc after the host (app.cu:40) on host "
            "thread 1 wrote it, and nothing ordered host thread 2 after that");
  EXPECT_EQ(w.why,
            "host thread 2 enqueued consume without being ordered after host thread 1's access: no synchronization "
            "between the two threads came in between (confidence: possible: host thread 1 made the earlier access "
            "itself, but streamcheck saw nothing pass that on to host thread 2; it sees thread start and join, "
            "mutexes, condition variables, semaphores and barriers, not lock-free atomics or spin flags, and such a "
            "handover would order the two)");
  EXPECT_EQ(w.fix,
            "after app.cu:40, hand the memory over from host thread 1 to host thread 2 through a mutex, condition "
            "variable, semaphore, queue or thread join (which streamcheck sees), and take it before app.cu:52");
}

TEST(FindingWords, GuessedBytesMakeAPossibleRaceAndAskForPrecise) {
  Finding f = TwoStreams();
  f.confidence = Confidence::kPossible;
  f.at_most_warning = true;
  f.uncertainty = {"guessed-extent"};
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.headline.rfind("possibly: scale (app.cu:31) reads", 0), 0u) << w.headline;
  EXPECT_NE(w.why.find("(confidence: possible: the two meet only in bytes streamcheck guessed a kernel reaches"),
            std::string::npos)
      << w.why;
  EXPECT_NE(w.fix.find("; to settle whether they really meet, run `streamcheck run --precise -- ...`"),
            std::string::npos)
      << w.fix;
  // Neither kernel known to write: one doubt, not the unknown mode again.
  f.uncertainty = {"unknown-mode", "guessed-mode"};
  const FindingWords mode = DescribeFinding(f);
  EXPECT_NE(mode.why.find("neither is known to write them)"), std::string::npos) << mode.why;
  EXPECT_EQ(mode.why.find("non-const pointer argument is not known"), std::string::npos) << mode.why;
  EXPECT_NE(mode.fix.find("--precise"), std::string::npos) << mode.fix;
}

TEST(FindingWords, AStagedCopyCitesTheDocumentation) {
  Finding f = TwoStreams();
  f.confidence = Confidence::kPossible;
  f.at_most_warning = true;
  f.accesses[0].op = f.accesses[0].api = "cudaMemcpy";
  f.uncertainty = {"staged-copy"};
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.headline.rfind("possibly: ", 0), 0u) << w.headline;
  EXPECT_NE(w.why.find("cudaMemcpy copied from pageable host memory"), std::string::npos) << w.why;
  EXPECT_NE(w.why.find("\"but the DMA to final destination may not have completed\""), std::string::npos) << w.why;
  EXPECT_NE(w.fix.find("or copy from pinned memory"), std::string::npos) << w.fix;
}

// A possible finding whose doubts a store did not keep (before schema 4):
// the engine's own sentences, which say why, rather than words that would not.
TEST(FindingWords, APossibleFindingWithoutItsDoubtsKeepsTheEnginesWords) {
  Finding f = TwoStreams();
  f.confidence = Confidence::kPossible;
  const FindingWords w = DescribeFinding(f);
  EXPECT_EQ(w.why, "the engine's reason");
  EXPECT_EQ(w.fix, "the engine's fix");
  EXPECT_EQ(w.headline.substr(0, 17), "scale (app.cu:31)");
}

TEST(StreamNames, SayWhereAStreamCameFrom) {
  FindingAccess a = Access("later", "k", AccessMode::kRead, "legacy", 0, At("/src/a.cu", 1));
  EXPECT_EQ(StreamName(a), "default stream");
  a.device = 1;
  EXPECT_EQ(StreamName(a), "default stream of device 1");
  a = Access("later", "k", AccessMode::kRead, "created", 0x55, At("/src/a.cu", 1));
  EXPECT_EQ(StreamName(a), "stream 0x55") << "no create seen, no use known";
  a.stream_origin.ordinal = 4;
  EXPECT_EQ(StreamName(a), "stream 4");
  a.stream_origin.first_op = "cudaMemcpyAsync";
  a.stream_origin.first_used_at = {At("/src/a.cu", 50)};
  EXPECT_EQ(StreamName(a), "stream 4 (first used at a.cu:50)");
  a.stream_origin.created_at = {{"cudaStreamCreate", "", 0, 0, 1, "libcudart.so", 2}, At("/src/a.cu", 12)};
  EXPECT_EQ(StreamName(a), "stream 4 (created at a.cu:12)") << "the program's frame, not the library's";
  // A creation inside a library (PyTorch's pool) is not where the user made it.
  a.stream_origin.created_at = {At("/usr/lib/python3/dist-packages/torch/cuda/streams.py", 30)};
  a.stream_origin.first_op = "aten::add";
  EXPECT_EQ(StreamName(a), "torch.cuda.Stream first used at a.cu:50");
  EXPECT_NE(StreamDetail(a).find("PyTorch takes torch.cuda.Stream objects from a pool"), std::string::npos);
  EXPECT_EQ(StreamInSentence("default stream"), "the default stream");
  EXPECT_EQ(StreamInSentence("stream 4 (created at a.cu:12)"), "stream 4 (created at a.cu:12)");
  EXPECT_EQ(StreamWithoutOrigin("stream 4 (created at a.cu:12)"), "stream 4");
  EXPECT_EQ(StreamWithoutOrigin("torch.cuda.Stream first used at a.cu:50"), "torch.cuda.Stream");
}

TEST(StreamNames, FramesAndSizes) {
  EXPECT_EQ(FrameWhere({"", "", 0, 0, 0x7f00, "/lib/libtorch_cuda.so", 0x1a2b}), "libtorch_cuda.so+0x1a2b");
  EXPECT_EQ(FrameWhere({"_Z5scalePKfPfi", "", 0, 0, 0x7f00, "", 0}), "scale");
  EXPECT_EQ(FrameWhere({"", "", 0, 0, 0x7f00, "", 0}), "0x7f00");
  EXPECT_EQ(FrameWhere({"", "", 0, 0, 0, "", 0}), "<unknown>");
  EXPECT_EQ(HumanSize(16u << 20), "16 MiB");
  EXPECT_EQ(HumanSize(4096), "4 KiB");
  EXPECT_EQ(HumanSize(40000), "39.1 KiB");
  EXPECT_EQ(HumanSize(40), "40 bytes");
  EXPECT_TRUE(IsProgramFrame(At("/home/me/train.py", 3)));
  EXPECT_FALSE(IsProgramFrame(At("/usr/lib/python3.12/threading.py", 3)));
  EXPECT_FALSE(IsProgramFrame(At("/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py", 3)));
  EXPECT_FALSE(IsProgramFrame({"main", "", 0, 0, 1, "/opt/app/bin", 2})) << "no source file";
}

}  // namespace
}  // namespace streamcheck::report
