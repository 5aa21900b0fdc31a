// The host guards end to end without a GPU (tracer/host/host_guards.h):
// CUPTI's payloads for allocations, copies, launches and synchronizations go
// to the callback handler (tests/common/fake_driver.cpp answers the driver
// calls), mmap'd memory stands in for pinned and managed memory, and the
// test's own reads and writes of it are the program's host accesses. The
// preloaded library's interposers are linked into this test (CMakeLists.txt),
// so the SIGSEGV handler is installed as `streamcheck run` installs it. The
// trace the tracer writes is replayed for the findings.
#include "tracer/host/host_guards.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "runtime/trace/trace_io.h"
#include "tests/common/fake_driver.h"
#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"
#include "tracer/libraries/nccl/nccl_hooks.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

using fake_cuda::Call;
using fake_cuda::CallAround;
const uint64_t kPage = host::GuardTable::PageSize();
const auto kStream = reinterpret_cast<cudaStream_t>(0x5000);
const auto kOtherStream = reinterpret_cast<cudaStream_t>(0x6000);

class HostGuardsPath : public ::testing::Test {
 protected:
  explicit HostGuardsPath(bool wanted = true) : trace_path_(::testing::TempDir() + "host_guards." + std::to_string(getpid()) + ".trace") {
    TracerConfig config;
    config.trace_path = trace_path_;
    config.capture_stacks = false;
    tracer_ = std::make_unique<Tracer>(config);
    guards_ = host::HostGuards::Start(*tracer_, wanted);
    tracer_->set_host_guards(guards_);
    pinned_ = Map(4);
    managed_ = Map(2);
  }
  ~HostGuardsPath() override {
    tracer_->Finish();  // restores every page
    munmap(pinned_, 4 * kPage);
    munmap(managed_, 2 * kPage);
    std::remove(trace_path_.c_str());
  }

  static char* Map(size_t pages) {
    auto* p = static_cast<char*>(mmap(nullptr, pages * kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    std::memset(p, 7, pages * kPage);
    return p;
  }
  template <typename Params>
  void Runtime(CUpti_CallbackId cbid, const char* name, const Params& params) {
    Call(tracer_.get(), CUPTI_CB_DOMAIN_RUNTIME_API, cbid, name, params);
  }
  void HostAlloc(char* p, uint64_t size) {
    void* out = p;
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020, "cudaHostAlloc", cudaHostAlloc_v3020_params{&out, size, 0});
  }
  void MallocManaged(char* p, uint64_t size) {
    void* out = p;
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000, "cudaMallocManaged",
            cudaMallocManaged_v6000_params{&out, size, 1});
  }
  void* DeviceMalloc() {
    void* p = reinterpret_cast<void*>(0x7e0000000000);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", cudaMalloc_v3020_params{&p, 1 << 20});
    return p;
  }
  void CopyAsync(void* dst, const void* src, uint64_t n, cudaMemcpyKind kind, cudaStream_t s = kStream) {
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync",
            cudaMemcpyAsync_v3020_params{dst, src, n, kind, s});
  }
  void StreamSync(cudaStream_t s) {
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize",
            cudaStreamSynchronize_v3020_params{s});
  }
  std::map<std::string, uint64_t> Counters() const { return guards_->Counters(); }
  void Driver(CUpti_CallbackId cbid, const char* name, const auto& params) {
    Call(tracer_.get(), CUPTI_CB_DOMAIN_DRIVER_API, cbid, name, params);
  }
  void EventRecord(CUevent e, cudaStream_t s) {
    Driver(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, "cuEventRecord", cuEventRecord_params{e, s});
  }
  void StreamWaitEvent(cudaStream_t s, CUevent e) {
    Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent", cuStreamWaitEvent_params{s, e, 0});
  }
  void EventSync(CUevent e) {
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, "cudaEventSynchronize",
            cudaEventSynchronize_v3020_params{reinterpret_cast<cudaEvent_t>(e)});
  }
  void DeviceSync() {
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize", 0);  // no parameters
  }

  // The findings a replay of the trace gives, once the tracer has finished.
  // `per_thread_clocks`: as a run's trace says where the preloaded library
  // orders host threads (not linked here): each thread, and each host
  // function's run, on a clock of its own.
  std::vector<Finding> Findings(std::vector<TraceRecord>* host_accesses = nullptr, bool per_thread_clocks = false) {
    tracer_->Finish();
    std::string error;
    auto source = OpenTrace(trace_path_, &error);
    EXPECT_TRUE(source) << error;
    testing::CollectingSink sink;
    Engine engine(&sink);
    TraceRecord r;
    if (per_thread_clocks) {
      r.op = OpCode::kHostThreadOrder;
      r.flags = 1;
      engine.Process(r);
    }
    while (source && source->Next(&r) == TraceSource::Status::kRecord) {
      EXPECT_FALSE(r.guards_host_pages);
      if (host_accesses && r.op == OpCode::kHostAccess) host_accesses->push_back(r);
      engine.Process(r);
    }
    engine.Finish();
    return sink.findings;
  }

  std::string trace_path_;
  std::unique_ptr<Tracer> tracer_;
  host::HostGuards* guards_ = nullptr;
  char* pinned_ = nullptr;
  char* managed_ = nullptr;
};

int ReadInt(const char* p) { return *reinterpret_cast<const volatile int*>(p); }

TEST_F(HostGuardsPath, AHostReadOfAPendingCopysDestinationIsARace) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(pinned_ + kPage, device, kPage, cudaMemcpyDeviceToHost);
  EXPECT_EQ(ReadInt(pinned_ + 8), 0x07070707);  // page 0: not the copy's, no fault
  EXPECT_EQ(ReadInt(pinned_ + kPage + 8), 0x07070707);  // faults, is recorded, goes on
  std::vector<TraceRecord> accesses;
  const std::vector<Finding> findings = Findings(&accesses);
  ASSERT_EQ(accesses.size(), 1u);
  EXPECT_EQ(accesses[0].accesses,
            (std::vector<MemoryAccess>{{Address(pinned_ + kPage + 8), 4, AccessMode::kRead}}));  // the mov's 4 bytes
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "host-device-race");
  EXPECT_EQ(findings[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_EQ(findings[0].accesses[1].op, "host read");
  EXPECT_EQ(Counters()["host_accesses"], 1u);
}

void CUDA_CB WriteOne(void* p) { *static_cast<volatile int*>(p) = 1; }

// Two host functions of two streams write the destination of a copy still
// pending on the first stream, run (as the driver's thread would) second
// first. A fault inside a followed host function opens the page for that
// function only: at its end the page is guarded again while the copy is
// pending, so the other function's write faults too and is judged against
// it (CUDA programming guide, "Host Functions (Callbacks)": host functions
// of different streams are not ordered). Fixed: an event orders the streams.
class HostFunctionGuards : public HostGuardsPath {
 protected:
  std::vector<Finding> TwoHostFunctionsWrite(bool ordered, size_t* host_accesses) {
    HostAlloc(pinned_, 4 * kPage);
    void* device = DeviceMalloc();
    CopyAsync(pinned_ + kPage, device, kPage, cudaMemcpyDeviceToHost, kStream);
    void* target = pinned_ + kPage + 8;
    cuLaunchHostFunc_params first{reinterpret_cast<CUstream>(kStream), WriteOne, target};
    Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, "cuLaunchHostFunc", first);
    if (ordered) {
      const auto event = reinterpret_cast<CUevent>(0x7200);
      EventRecord(event, kStream);
      StreamWaitEvent(kOtherStream, event);
    }
    cuLaunchHostFunc_params second{reinterpret_cast<CUstream>(kOtherStream), WriteOne, target};
    Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, "cuLaunchHostFunc", second);
    EXPECT_NE(first.fn, WriteOne) << "not followed";
    // The driver's one thread: the ordered pair in stream order, the racy
    // one as CUDA may run it (the second stream has nothing before its function).
    std::thread([&] {
      if (ordered) first.fn(first.userData);
      second.fn(second.userData);
      if (!ordered) first.fn(first.userData);
    }).join();
    std::vector<TraceRecord> accesses;
    std::vector<Finding> findings = Findings(&accesses, /*per_thread_clocks=*/true);
    *host_accesses = accesses.size();
    return findings;
  }
};

TEST_F(HostFunctionGuards, TwoHostFunctionsOfTwoStreamsBothFaultAndRace) {
  size_t host_accesses = 0;
  const std::vector<Finding> findings = TwoHostFunctionsWrite(/*ordered=*/false, &host_accesses);
  EXPECT_EQ(host_accesses, 2u);
  bool functions_race = false, second_races_the_copy = false;
  for (const Finding& f : findings) {
    functions_race |= f.order_gap == "host-functions-not-ordered" && f.accesses[0].on_host && f.accesses[1].on_host;
    second_races_the_copy |= f.rule == "host-device-race" && !f.accesses[0].on_host && f.accesses[1].on_host;
  }
  EXPECT_TRUE(functions_race) << testing::Summary(findings);
  EXPECT_TRUE(second_races_the_copy) << testing::Summary(findings);
}

TEST_F(HostFunctionGuards, AnEventOrdersTheTwoHostFunctions) {
  size_t host_accesses = 0;
  const std::vector<Finding> findings = TwoHostFunctionsWrite(/*ordered=*/true, &host_accesses);
  EXPECT_EQ(host_accesses, 2u);  // the second faults too: the copy is pending for all the program knows
  EXPECT_TRUE(findings.empty()) << testing::Summary(findings);
}

void CUDA_CB ReadFirstInt(void* p) { (void)*static_cast<volatile int*>(p); }

// A CUDA graph's work guards the pages it touches at each launch, as a
// stream's would (graph_guards.h). Built by the API: a kernel node writes the
// pinned buffer and a host node reads it, after the kernel node or (racy) not
// (CUDA programming guide, "CUDA Graphs": nodes without an edge are not
// ordered). Captured: the kernel captured on a stream guards nothing at its
// capture, its graph's launch does, and synchronizing the launching stream
// opens the pages.
class GraphGuardsPath : public HostGuardsPath {
 protected:
  std::vector<Finding> KernelThenHostNode(bool ordered, size_t* host_accesses) {
    HostAlloc(pinned_, 4 * kPage);
    cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x6000);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGraphCreate_v10000, "cudaGraphCreate", cudaGraphCreate_v10000_params{&graph, 0});
    const void* in = pinned_;
    void* out = pinned_ + kPage;
    int n = 1024;
    void* args[] = {&in, &out, &n};
    cudaGraphNode_t fill = reinterpret_cast<cudaGraphNode_t>(0x6001);
    fake_cuda::AddFakeKernelNode(tracer_.get(), &fill, graph, args);
    const CUDA_HOST_NODE_PARAMS program{ReadFirstInt, out};
    cudaGraphNode_t read = reinterpret_cast<cudaGraphNode_t>(0x6002);
    const cuGraphAddHostNode_params driver =
        fake_cuda::AddHostNode(tracer_.get(), &read, graph, ordered ? &fill : nullptr, ordered ? 1 : 0, program);
    EXPECT_NE(driver.nodeParams->fn, ReadFirstInt) << "not followed";
    cudaGraphExec_t exec = reinterpret_cast<cudaGraphExec_t>(0x7000);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000, "cudaGraphInstantiate",
            cudaGraphInstantiate_v12000_params{&exec, graph, 0});
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch", cudaGraphLaunch_v10000_params{exec, kStream});
    const CUDA_HOST_NODE_PARAMS node = *driver.nodeParams;
    std::thread([&] { node.fn(node.userData); }).join();  // the driver's thread
    std::vector<TraceRecord> accesses;
    std::vector<Finding> findings = Findings(&accesses, /*per_thread_clocks=*/true);
    *host_accesses = accesses.size();
    return findings;
  }

  // A kernel captured on kStream writes the pinned buffer; its graph is
  // launched there, then the host reads what it writes (after synchronizing
  // kStream, or not).
  std::vector<Finding> CapturedKernelThenHostRead(bool synced, size_t* host_accesses) {
    HostAlloc(pinned_, 4 * kPage);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCapture_v10000, "cudaStreamBeginCapture",
            cudaStreamBeginCapture_v10000_params{kStream, cudaStreamCaptureModeGlobal});
    fake_cuda::LaunchFakeKernel(tracer_.get(), pinned_, pinned_ + kPage, reinterpret_cast<CUstream>(kStream));
    cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x6100);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, "cudaStreamEndCapture",
            cudaStreamEndCapture_v10000_params{kStream, &graph});
    EXPECT_EQ(ReadInt(pinned_ + kPage), 0x07070707);  // captured, not run: no fault
    EXPECT_EQ(Counters()["faults"], 0u);
    cudaGraphExec_t exec = reinterpret_cast<cudaGraphExec_t>(0x7100);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000, "cudaGraphInstantiate",
            cudaGraphInstantiate_v12000_params{&exec, graph, 0});
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch",
            cudaGraphLaunch_v10000_params{exec, kStream});
    if (synced) StreamSync(kStream);
    EXPECT_EQ(ReadInt(pinned_ + kPage), 0x07070707);
    std::vector<TraceRecord> accesses;
    std::vector<Finding> findings = Findings(&accesses);
    *host_accesses = accesses.size();
    return findings;
  }
};

TEST_F(GraphGuardsPath, AHostNodeReadingWhatAnUnorderedKernelNodeWritesRaces) {
  size_t host_accesses = 0;
  const std::vector<Finding> findings = KernelThenHostNode(/*ordered=*/false, &host_accesses);
  EXPECT_EQ(host_accesses, 1u);
  ASSERT_EQ(findings.size(), 1u) << testing::Summary(findings);
  EXPECT_EQ(findings[0].kind, FindingKind::kReadAfterWrite);
}

TEST_F(GraphGuardsPath, AHostNodeAfterTheKernelNodeIsOrdered) {
  size_t host_accesses = 0;
  const std::vector<Finding> findings = KernelThenHostNode(/*ordered=*/true, &host_accesses);
  EXPECT_EQ(host_accesses, 1u);  // it faults (the launch guarded the page) and is judged ordered
  EXPECT_TRUE(findings.empty()) << testing::Summary(findings);
}

TEST_F(GraphGuardsPath, ACapturedKernelGuardsAtItsGraphsLaunchNotAtItsCapture) {
  size_t host_accesses = 0;
  const std::vector<Finding> findings = CapturedKernelThenHostRead(/*synced=*/false, &host_accesses);
  EXPECT_EQ(host_accesses, 1u);
  EXPECT_EQ(findings.size(), 1u) << testing::Summary(findings);
}

TEST_F(GraphGuardsPath, SynchronizingTheLaunchingStreamOpensTheGraphsPages) {
  size_t host_accesses = 0;
  const std::vector<Finding> findings = CapturedKernelThenHostRead(/*synced=*/true, &host_accesses);
  EXPECT_EQ(host_accesses, 0u);  // opened without a fault
  EXPECT_TRUE(findings.empty()) << testing::Summary(findings);
  EXPECT_EQ(Counters()["pages_opened_without_fault"], 4u);  // a kernel's pointer guards its whole region
}

// A locked read-modify-write of a pending copy's destination is the host's
// side of system-scope atomics (cuda-samples' systemWideAtomics): not a
// race, left out and counted as synchronization. A plain store there is.
TEST_F(HostGuardsPath, AHostAtomicIsSynchronizationNotAnAccess) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(pinned_ + kPage, device, kPage, cudaMemcpyDeviceToHost);
  __atomic_fetch_add(reinterpret_cast<int*>(pinned_ + kPage + 8), 1, __ATOMIC_SEQ_CST);  // faults: lock add
  std::vector<TraceRecord> accesses;
  const std::vector<Finding> findings = Findings(&accesses);
  EXPECT_TRUE(accesses.empty());
  EXPECT_TRUE(findings.empty());
  EXPECT_EQ(Counters()["host_accesses"], 0u);
}

// A library's own work (here a copy NCCL makes inside one of its calls) is
// never reported, so it guards nothing: NCCL's proxy thread reads its own
// pinned memory all the time. The same copy made by the program is guarded.
TEST_F(HostGuardsPath, ALibrarysOwnWorkGuardsNothing) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  const StreamcheckLibraryHooks* hooks = LibraryHooksFor(tracer_.get());
  StreamcheckNcclCall call{};
  call.function = STREAMCHECK_NCCL_OTHER;
  call.name = "ncclCommInitRank";
  hooks->nccl_enter(&call);
  CopyAsync(pinned_ + kPage, device, kPage, cudaMemcpyDeviceToHost);
  hooks->nccl_leave(&call);
  EXPECT_EQ(ReadInt(pinned_ + kPage + 8), 0x07070707);
  EXPECT_EQ(Counters()["pages_guarded"], 0u);
  CopyAsync(pinned_ + kPage, device, kPage, cudaMemcpyDeviceToHost);
  EXPECT_EQ(Counters()["pages_guarded"], 1u);
  EXPECT_EQ(ReadInt(pinned_ + kPage + 8), 0x07070707);
  EXPECT_EQ(Findings().size(), 1u);
  EXPECT_EQ(Counters()["faults"], 1u);
}

TEST_F(HostGuardsPath, SynchronizingTheCopysStreamOpensItsPagesWithoutAFault) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(pinned_, device, 2 * kPage, cudaMemcpyDeviceToHost);
  StreamSync(kStream);
  EXPECT_EQ(ReadInt(pinned_ + kPage), 0x07070707);
  EXPECT_TRUE(Findings().empty());
  EXPECT_EQ(Counters()["faults"], 0u);
  EXPECT_EQ(Counters()["pages_opened_without_fault"], 2u);
}

// The program's thread waits for a record's analysis only where it may open
// guarded pages: a synchronization or a successful query whose stream or
// event holds guarded work (guarded_streams.h; the pages are then open when
// the call returns). Otherwise it goes on at once: findings need no wait.
TEST_F(HostGuardsPath, ASynchronizationWaitsForItsAnalysisOnlyWhereGuardedWorkIsPending) {
  TraceRecord sync;
  sync.op = OpCode::kStreamSynchronize;  // the legacy default stream: every blocking stream's work
  TraceRecord other_sync = sync;
  other_sync.stream = reinterpret_cast<Handle>(kOtherStream);
  TraceRecord query;
  query.op = OpCode::kStreamQuery;
  query.stream = reinterpret_cast<Handle>(kStream);
  TraceRecord not_ready = query;
  not_ready.result = 600;  // cudaErrorNotReady
  TraceRecord launch;
  launch.op = OpCode::kKernelLaunch;
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  EXPECT_FALSE(guards_->OpensPagesAfter(sync, /*host_waited=*/true));
  EXPECT_FALSE(guards_->OpensPagesAfter(query, false));
  CopyAsync(pinned_ + kPage, device, kPage, cudaMemcpyDeviceToHost);
  EXPECT_TRUE(guards_->OpensPagesAfter(sync, true));
  CopyAsync(pinned_ + kPage, device, kPage, cudaMemcpyDeviceToHost);  // marks kStream again
  EXPECT_FALSE(guards_->OpensPagesAfter(other_sync, true));
  EXPECT_FALSE(guards_->OpensPagesAfter(not_ready, false));
  EXPECT_FALSE(guards_->OpensPagesAfter(launch, false));
  EXPECT_TRUE(guards_->OpensPagesAfter(query, false));
  CopyAsync(pinned_ + kPage, device, kPage, cudaMemcpyDeviceToHost);
  const uint64_t waits = tracer_->sync_waits();
  StreamSync(kStream);  // waits: its analysis opens the page
  EXPECT_EQ(tracer_->sync_waits(), waits + 1);
  EXPECT_FALSE(guards_->OpensPagesAfter(sync, true));
  EXPECT_EQ(ReadInt(pinned_ + kPage + 8), 0x07070707);
  EXPECT_EQ(Counters()["faults"], 0u);
}

// Nothing guarded: no synchronization waits, none is even counted as skipped.
TEST_F(HostGuardsPath, WithNothingGuardedNoSynchronizationWaits) {
  void* device = DeviceMalloc();
  static char pageable[4096];
  CopyAsync(pageable, device, sizeof pageable, cudaMemcpyDeviceToHost);
  StreamSync(kStream);
  DeviceSync();
  EXPECT_EQ(tracer_->sync_waits(), 0u);
  EXPECT_EQ(guards_->waits_skipped(), 0u);
  EXPECT_TRUE(Findings().empty());
}

// Guarded work on one stream: synchronizing another does not wait (it could
// open nothing), synchronizing its own does, and the page is open after it.
TEST_F(HostGuardsPath, OnlyTheStreamWithGuardedWorkWaits) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(pinned_, device, kPage, cudaMemcpyDeviceToHost);
  StreamSync(kOtherStream);
  EXPECT_EQ(tracer_->sync_waits(), 0u);
  EXPECT_EQ(guards_->waits_skipped(), 1u);
  StreamSync(kStream);
  EXPECT_EQ(tracer_->sync_waits(), 1u);
  EXPECT_EQ(ReadInt(pinned_ + 8), 0x07070707);
  EXPECT_TRUE(Findings().empty());
  EXPECT_EQ(Counters()["faults"], 0u);
  EXPECT_EQ(Counters()["pages_opened_without_fault"], 1u);
}

// An event recorded after guarded work carries it: a stream that waits for
// the event, and the event itself, are then worth waiting for; the verdict is
// the engine's (no race, the page opened without a fault).
TEST_F(HostGuardsPath, AnEventCarriesGuardedWorkToTheStreamThatWaitsForIt) {
  const auto event = reinterpret_cast<CUevent>(0x7000);
  const auto early = reinterpret_cast<CUevent>(0x7100);
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  EventRecord(early, kStream);  // before the guarded work: carries none
  CopyAsync(pinned_, device, kPage, cudaMemcpyDeviceToHost);
  EventRecord(event, kStream);
  EventSync(early);
  EXPECT_EQ(tracer_->sync_waits(), 0u);
  StreamWaitEvent(kOtherStream, event);
  StreamSync(kOtherStream);
  EXPECT_EQ(tracer_->sync_waits(), 1u);
  EXPECT_EQ(ReadInt(pinned_ + 8), 0x07070707);
  CopyAsync(pinned_, device, kPage, cudaMemcpyDeviceToHost);
  EventRecord(event, kStream);
  EventSync(event);
  EXPECT_EQ(tracer_->sync_waits(), 2u);
  EXPECT_EQ(ReadInt(pinned_ + 8), 0x07070707);
  EXPECT_TRUE(Findings().empty());
  EXPECT_EQ(Counters()["faults"], 0u);
}

// A wait skipped where the engine does order the host (an ordering the
// program's side does not follow: here a device synchronization of another
// device took every mark): the page opens once the worker gets there, or
// faults first; either way the engine judges the access after the
// synchronization, so the verdict is the same: no race.
TEST_F(HostGuardsPath, ASkippedWaitKeepsTheVerdict) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(pinned_, device, kPage, cudaMemcpyDeviceToHost);
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020, "cudaSetDevice", cudaSetDevice_v3020_params{1});
  DeviceSync();  // device 1's: orders nothing of device 0's
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020, "cudaSetDevice", cudaSetDevice_v3020_params{0});
  EXPECT_EQ(tracer_->sync_waits(), 1u);
  StreamSync(kStream);  // orders the host after the copy; not waited for
  EXPECT_EQ(tracer_->sync_waits(), 1u);
  pinned_[8] = 1;
  EXPECT_TRUE(Findings().empty());
}

// A page left guarded after a synchronization that does not order the host
// after its work: the fault is judged, and it is a race.
TEST_F(HostGuardsPath, SynchronizingAnotherStreamLeavesThePageGuarded) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(pinned_, device, kPage, cudaMemcpyDeviceToHost);
  StreamSync(kOtherStream);
  pinned_[100] = 1;
  const std::vector<Finding> findings = Findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kWriteAfterWrite);
}

// The host overwrites the source of a copy to the device that has not run:
// reads of it are fine (the page is read-only), the write faults.
TEST_F(HostGuardsPath, OverwritingThePendingSourceOfACopyToTheDeviceRaces) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(device, pinned_, kPage, cudaMemcpyHostToDevice);
  EXPECT_EQ(ReadInt(pinned_), 0x07070707);
  EXPECT_EQ(Counters()["faults"], 0u);
  pinned_[0] = 3;
  const std::vector<Finding> findings = Findings();
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].kind, FindingKind::kWriteAfterRead);
  EXPECT_EQ(pinned_[0], 3);
}

// A kernel's pointer arguments into managed memory guard the allocation: its
// const input read-only, its output entirely.
TEST_F(HostGuardsPath, AKernelOnManagedMemoryGuardsItsArguments) {
  MallocManaged(managed_, kPage);
  MallocManaged(managed_ + kPage, kPage);
  fake_cuda::LaunchFakeKernel(tracer_.get(), managed_, managed_ + kPage, reinterpret_cast<CUstream>(kStream));
  EXPECT_EQ(ReadInt(managed_), 0x07070707);  // the input: read-only, no fault
  EXPECT_EQ(ReadInt(managed_ + kPage), 0x07070707);  // the output
  std::vector<TraceRecord> accesses;
  const std::vector<Finding> findings = Findings(&accesses);
  ASSERT_EQ(accesses.size(), 1u);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].rule, "host-device-race");
}

// A synchronous copy reads the guarded source itself: its pages open for the
// call (where the driver may read them on this thread) and close after.
TEST_F(HostGuardsPath, ACudaCallsOwnHostAccessDoesNotFault) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(pinned_, device, kPage, cudaMemcpyDeviceToHost);
  CallAround(tracer_.get(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy",
             cudaMemcpy_v3020_params{device, pinned_, kPage, cudaMemcpyHostToDevice},
             [&] { EXPECT_EQ(ReadInt(pinned_ + 16), 0x07070707); });
  EXPECT_EQ(Counters()["faults"], 0u);
  // A page the call does not name, touched inside it: CUDA's own access,
  // opened and not recorded.
  CopyAsync(pinned_ + 2 * kPage, device, kPage, cudaMemcpyDeviceToHost, kOtherStream);
  CallAround(tracer_.get(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy",
             cudaMemcpy_v3020_params{device, pinned_ + kPage, 64, cudaMemcpyHostToDevice},
             [&] { EXPECT_EQ(ReadInt(pinned_ + 2 * kPage), 0x07070707); });
  EXPECT_EQ(Counters()["faults_inside_cuda"], 1u);
  std::vector<TraceRecord> accesses;
  Findings(&accesses);
  EXPECT_TRUE(accesses.empty());
}

TEST_F(HostGuardsPath, FreeingPinnedMemoryGivesItsPagesBack) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(pinned_, device, kPage, cudaMemcpyDeviceToHost);
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, "cudaFreeHost", cudaFreeHost_v3020_params{pinned_});
  pinned_[0] = 1;  // the mapping is still ours in the test: no fault
  EXPECT_EQ(Counters()["faults"], 0u);
}

TEST_F(HostGuardsPath, PinnedMemoryFromTheDriverIsGuardedToo) {
  void* out = pinned_;
  Call(tracer_.get(), CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, "cuMemHostAlloc",
       cuMemHostAlloc_params{&out, 4 * kPage, 0}, CUDA_SUCCESS);
  void* device = DeviceMalloc();
  CopyAsync(pinned_, device, kPage, cudaMemcpyDeviceToHost);
  EXPECT_EQ(ReadInt(pinned_), 0x07070707);
  EXPECT_EQ(Findings().size(), 1u);
}

// What a framework plugin asks before it leaves a CPU op unobserved
// (framework_hooks.h: may_guard_host): only bytes near pinned memory may be
// guarded, and none before any pinned allocation or with the guards off.
TEST_F(HostGuardsPath, MayGuardOnlyNearPinnedMemory) {
  const auto at = [](const char* p) { return reinterpret_cast<Address>(p); };
  EXPECT_FALSE(guards_->MayGuard(at(pinned_), at(pinned_) + 8));
  HostAlloc(pinned_, 4 * kPage);
  EXPECT_TRUE(guards_->MayGuard(at(pinned_) + kPage, at(pinned_) + kPage + 8));
  EXPECT_TRUE(guards_->MayGuard(at(pinned_) - 8, at(pinned_) + 1));  // overlaps the first byte
  EXPECT_FALSE(guards_->MayGuard(0x1000, 0x1008));                  // far below every region
  EXPECT_FALSE(guards_->MayGuard(~Address{0} - 16, ~Address{0} - 8));
}

class HostGuardsOff : public HostGuardsPath {
 protected:
  HostGuardsOff() : HostGuardsPath(/*wanted=*/false) {}
};

TEST_F(HostGuardsOff, NoHostGuardsNoFaultsAndTheRunSaysSo) {
  HostAlloc(pinned_, 4 * kPage);
  void* device = DeviceMalloc();
  CopyAsync(pinned_, device, kPage, cudaMemcpyDeviceToHost);
  EXPECT_EQ(ReadInt(pinned_), 0x07070707);
  EXPECT_TRUE(Findings().empty());
  EXPECT_EQ(Counters()["enabled"], 0u);
  EXPECT_EQ(Counters()["off_by_request"], 1u);
  EXPECT_EQ(Counters()["pages_guarded"], 0u);
  EXPECT_FALSE(guards_->MayGuard(reinterpret_cast<Address>(pinned_), reinterpret_cast<Address>(pinned_) + 8));
}

}  // namespace
}  // namespace streamcheck::tracer
