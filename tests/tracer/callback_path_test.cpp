// The tracer's whole path without a GPU: CUPTI's payloads for allocations,
// copies and kernel launches go to the callback handler (the driver calls
// it makes are answered by tests/common/fake_driver.cpp), the records
// cross to the analysis worker, and the trace file it writes must hold each
// launch's accesses as the allocations, copies and framework ops were when
// the launch was made, not when the worker got to it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <string>
#include <thread>
#include <vector>

#include "runtime/engine.h"
#include "runtime/trace/replay.h"
#include "runtime/trace/trace_io.h"
#include "tests/runtime/trace_builder.h"
#include "tests/common/fake_driver.h"
#include "tracer/frameworks/framework_ops.h"
#include "tracer/libraries/nccl/nccl_hooks.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

using fake_cuda::Call;

constexpr uint64_t kBytes = 4096;

class CallbackPath : public ::testing::Test {
 protected:
  CallbackPath() : trace_path_(::testing::TempDir() + "callback_path." + std::to_string(getpid()) + ".trace") {
    TracerConfig config;
    config.trace_path = trace_path_;
    config.capture_stacks = false;
    tracer_ = std::make_unique<Tracer>(config);
  }
  ~CallbackPath() override { std::remove(trace_path_.c_str()); }

  void* Malloc(uintptr_t address, uint64_t size) {
    void* p = reinterpret_cast<void*>(address);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", cudaMalloc_v3020_params{&p, size});
    return p;
  }
  void Free(void* p) { Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, "cudaFree", cudaFree_v3020_params{p}); }
  void CopyToDevice(void* dst, uint64_t bytes) {
    static char host[kBytes];
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync",
            cudaMemcpyAsync_v3020_params{dst, host, bytes, cudaMemcpyHostToDevice, nullptr});
  }
  void Launch(const void* in, void* out) { fake_cuda::LaunchFakeKernel(tracer_.get(), in, out); }
  // The records of these kinds in the trace, in order, once the tracer has finished.
  std::vector<TraceRecord> RecordsInTrace(std::initializer_list<OpCode> kinds) {
    tracer_->Finish();
    std::string error;
    auto source = OpenTrace(trace_path_, &error);
    EXPECT_TRUE(source) << error;
    std::vector<TraceRecord> records;
    TraceRecord r;
    while (source && source->Next(&r) == TraceSource::Status::kRecord) {
      EXPECT_FALSE(r.pointer_words);
      EXPECT_NE(r.op, kOpenFrameworkOps);
      if (std::find(kinds.begin(), kinds.end(), r.op) != kinds.end()) records.push_back(r);
    }
    return records;
  }
  std::vector<TraceRecord> LaunchesInTrace() { return RecordsInTrace({OpCode::kKernelLaunch}); }
  Tracer& tracer() { return *tracer_; }

  template <typename Params>
  void Runtime(CUpti_CallbackId cbid, const char* name, const Params& params) {
    Call(tracer_.get(), CUPTI_CB_DOMAIN_RUNTIME_API, cbid, name, params);
  }
  template <typename Params>
  void Driver(CUpti_CallbackId cbid, const char* name, const Params& params, CUresult result = CUDA_SUCCESS) {
    Call(tracer_.get(), CUPTI_CB_DOMAIN_DRIVER_API, cbid, name, params, result);
  }

 private:
  std::string trace_path_;
  std::unique_ptr<Tracer> tracer_;
};

TEST_F(CallbackPath, LaunchesCarryTheAccessesOfTheirTime) {
  char* x = static_cast<char*>(Malloc(0x7f0000000000, kBytes));
  char* y = static_cast<char*>(Malloc(0x7f0000100000, kBytes));
  Launch(x, y);
  CopyToDevice(y + 2048, 2048);  // bounds y's first half from here on
  Launch(x, y);
  Free(x);
  Launch(x, y);  // x is no allocation any more
  const std::vector<TraceRecord> launches = LaunchesInTrace();
  ASSERT_EQ(launches.size(), 3u);
  // The policy's extents: past the byte each pointer starts at, a guess.
  const auto in = [](const char* p, uint64_t n) {
    return MemoryAccess{Address(p), n, AccessMode::kRead, AccessCertainty::kFirstByte};
  };
  const auto out = [](const char* p, uint64_t n) {
    return MemoryAccess{Address(p), n, AccessMode::kUnknown, AccessCertainty::kFirstByte};
  };
  EXPECT_EQ(launches[0].accesses, (std::vector<MemoryAccess>{in(x, kBytes), out(y, kBytes)}));
  // y's first half is bounded now, and x, unbounded, takes its sibling's extent (access_extent.h).
  EXPECT_EQ(launches[1].accesses, (std::vector<MemoryAccess>{in(x, 2048), out(y, 2048)}));
  EXPECT_EQ(launches[2].accesses, (std::vector<MemoryAccess>{out(y, 2048)}));
}

// The tracer's own tables grow with what is distinct (strings, stacks), not
// with calls: a thousand launches from one call site hold what a hundred did
// (issue 43 item 6: bounded at a steady state).
TEST(TracerTables, RepeatedLaunchesFromOneSiteDoNotGrowThem) {
  const std::string trace = ::testing::TempDir() + "tracer_tables." + std::to_string(getpid()) + ".trace";
  TracerConfig config;
  config.trace_path = trace;
  config.capture_stacks = true;
  Tracer tracer(config);
  char* x = reinterpret_cast<char*>(0x7f0000000000);
  char* y = reinterpret_cast<char*>(0x7f0000100000);
  const auto launch_from_one_site = [&](int n) {
    for (int i = 0; i < n; ++i) fake_cuda::LaunchFakeKernel(&tracer, x, y);
  };
  const auto table_bytes = [&] {
    std::lock_guard<TracerLock> lock(tracer.tracer_lock());
    return tracer.TableHeapBytes();
  };
  std::vector<size_t> bytes;
  for (int launches : {100, 900}) {  // one call site: one stack
    launch_from_one_site(launches);
    bytes.push_back(table_bytes());
  }
  EXPECT_GT(bytes[0], 0u);
  EXPECT_EQ(bytes[1], bytes[0]);
  tracer.Finish();
  std::remove(trace.c_str());
}

// A framework op's tensors refine the launches inside it, and a block the
// caching allocator hands out inside it is written; a block freed before a
// launch is no access of it.
TEST_F(CallbackPath, FrameworkOpsAndPoolBlocksAsTheyWereAtTheLaunch) {
  char* segment = static_cast<char*>(Malloc(0x7f0000000000, 1 << 20));
  const StreamcheckTensorRegion view{Address(segment) + 512, Address(segment) + 1024, 0};
  {
    std::lock_guard<TracerLock> lock(tracer().tracer_lock());
    tracer().PoolBlock(STREAMCHECK_BLOCK_ALLOCATED, Address(segment), 4096, 0, 0, STREAMCHECK_STACK_NONE);
  }
  ThisThreadFrameworkOps().Begin(tracer().Intern("aten::add"), STREAMCHECK_STACK_NONE, &view, 1);
  {
    std::lock_guard<TracerLock> lock(tracer().tracer_lock());
    tracer().PoolBlock(STREAMCHECK_BLOCK_ALLOCATED, Address(segment) + 8192, 512, 0, 0, 0);
  }
  Launch(segment + 512, segment + 8192);
  ThisThreadFrameworkOps().End();
  {
    std::lock_guard<TracerLock> lock(tracer().tracer_lock());
    tracer().PoolBlock(STREAMCHECK_BLOCK_FREED, Address(segment) + 8192, 0, 0, 0, 0);
  }
  Launch(segment + 512, segment + 8192);
  const std::vector<TraceRecord> launches = LaunchesInTrace();
  ASSERT_EQ(launches.size(), 2u);
  const Address view_begin = Address(segment) + 512, output = Address(segment) + 8192;
  EXPECT_EQ(launches[0].accesses, (std::vector<MemoryAccess>{{view_begin, 512, AccessMode::kRead},
                                                             {output, 512, AccessMode::kWrite}}));
  EXPECT_NE(launches[0].framework_op, 0u);
  // Outside the op, the policy's guess within the live block; the freed block is gone.
  EXPECT_EQ(launches[1].accesses,
            (std::vector<MemoryAccess>{{view_begin, 1, AccessMode::kRead, AccessCertainty::kFirstByte}}));
  EXPECT_EQ(launches[1].framework_op, 0u);
}

// Event records, stream waits and event destruction come from the driver
// calls (the runtime's make them): the per-thread variants' stream 0 is the
// per-thread default stream, a failed call is no operation, and one made
// inside a traced runtime call belongs to that call.
TEST_F(CallbackPath, EventsAndWaitsFromDriverCalls) {
  const auto stream = reinterpret_cast<CUstream>(0x5000);
  const auto event = reinterpret_cast<CUevent>(0x9000);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuEventRecord, "cuEventRecord", cuEventRecord_params{event, stream});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuEventRecord_ptsz, "cuEventRecord_ptsz", cuEventRecord_params{event, nullptr});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuEventRecordWithFlags, "cuEventRecordWithFlags",
         cuEventRecordWithFlags_params{event, nullptr, 1});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent_ptsz, "cuStreamWaitEvent_ptsz",
         cuStreamWaitEvent_params{nullptr, event, 0});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent", cuStreamWaitEvent_params{stream, event, 0},
         CUDA_ERROR_INVALID_HANDLE);
  // A synchronous copy's own driver calls are the copy's.
  static char host[64];
  fake_cuda::CallAround(&tracer(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
                        "cudaMemcpy",
                        cudaMemcpy_v3020_params{reinterpret_cast<void*>(0x7f0000000000), host, 64,
                                                cudaMemcpyHostToDevice},
                        [&] {
                          Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent",
                                 cuStreamWaitEvent_params{stream, event, 0});
                        });
  Driver(CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2, "cuEventDestroy_v2", cuEventDestroy_v2_params{event});

  const std::vector<TraceRecord> records = RecordsInTrace(
      {OpCode::kEventRecord, OpCode::kStreamWaitEvent, OpCode::kEventDestroy, OpCode::kEventCreate});
  ASSERT_EQ(records.size(), 5u);
  const Handle e = 0x9000;
  EXPECT_EQ(records[0].op, OpCode::kEventRecord);
  EXPECT_EQ(records[0].event, e);
  EXPECT_EQ(records[0].stream, Handle{0x5000});
  EXPECT_EQ(records[1].op, OpCode::kEventRecord);
  EXPECT_EQ(records[1].stream, kCudaStreamPerThread);
  EXPECT_EQ(records[2].op, OpCode::kEventRecord);
  EXPECT_EQ(records[2].stream, Handle{0});  // the legacy default stream
  EXPECT_EQ(records[2].flags, 1u);
  EXPECT_EQ(records[3].op, OpCode::kStreamWaitEvent);
  EXPECT_EQ(records[3].stream, kCudaStreamPerThread);
  EXPECT_EQ(records[3].event, e);
  EXPECT_EQ(records[4].op, OpCode::kEventDestroy);
  EXPECT_EQ(records[4].event, e);
}

// Streams and the host's waits through the driver, as a program without the
// runtime (XLA) makes them, become the runtime's records; the driver calls a
// runtime call makes inside it are that call's.
TEST_F(CallbackPath, StreamsAndHostWaitsFromDriverCalls) {
  CUstream made = reinterpret_cast<CUstream>(0x5100), made2 = reinterpret_cast<CUstream>(0x5200);
  const auto event = reinterpret_cast<CUevent>(0x9000);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority, "cuStreamCreateWithPriority",
         cuStreamCreateWithPriority_params{&made, CU_STREAM_NON_BLOCKING, -1});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, "cuStreamCreate", cuStreamCreate_params{&made2, 0});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, "cuStreamSynchronize_ptsz",
         cuStreamSynchronize_params{nullptr});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamQuery, "cuStreamQuery", cuStreamQuery_params{made}, CUDA_ERROR_NOT_READY);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuEventQuery, "cuEventQuery", cuEventQuery_params{event}, CUDA_ERROR_INVALID_HANDLE);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, "cuEventSynchronize", cuEventSynchronize_params{event});
  fake_cuda::CurrentDevice() = 1;
  Driver(CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, "cuCtxSynchronize", 0);  // no parameters
  fake_cuda::CurrentDevice() = 0;
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, "cuStreamDestroy_v2", cuStreamDestroy_v2_params{made2});
  fake_cuda::CallAround(&tracer(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
                        "cudaStreamSynchronize", cudaStreamSynchronize_v3020_params{made}, [&] {
                          Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize",
                                 cuStreamSynchronize_params{made});
                        });

  const std::vector<TraceRecord> records =
      RecordsInTrace({OpCode::kStreamCreate, OpCode::kStreamDestroy, OpCode::kStreamSynchronize,
                      OpCode::kStreamQuery, OpCode::kEventQuery, OpCode::kEventSynchronize,
                      OpCode::kDeviceSynchronize});
  ASSERT_EQ(records.size(), 8u);
  EXPECT_EQ(records[0].op, OpCode::kStreamCreate);
  EXPECT_EQ(records[0].stream, Handle{0x5100});
  EXPECT_EQ(records[0].flags, uint32_t{CU_STREAM_NON_BLOCKING});
  EXPECT_EQ(records[0].priority, -1);
  EXPECT_EQ(records[1].op, OpCode::kStreamCreate);
  EXPECT_EQ(records[1].stream, Handle{0x5200});
  EXPECT_EQ(records[1].flags, 0u);
  EXPECT_EQ(records[2].op, OpCode::kStreamSynchronize);
  EXPECT_EQ(records[2].stream, kCudaStreamPerThread);
  EXPECT_EQ(records[3].op, OpCode::kStreamQuery);  // not ready: still what the host learnt
  EXPECT_EQ(records[3].stream, Handle{0x5100});
  EXPECT_EQ(records[3].result, int32_t{CUDA_ERROR_NOT_READY});
  EXPECT_EQ(records[4].op, OpCode::kEventSynchronize);  // the failed query made none
  EXPECT_EQ(records[4].event, Handle{0x9000});
  EXPECT_EQ(records[5].op, OpCode::kDeviceSynchronize);
  EXPECT_EQ(records[5].device, 1);
  EXPECT_EQ(records[6].op, OpCode::kStreamDestroy);
  EXPECT_EQ(records[6].stream, Handle{0x5200});
  EXPECT_EQ(records[7].op, OpCode::kStreamSynchronize);  // the runtime's call, once
  EXPECT_EQ(records[7].stream, Handle{0x5100});
}

// Copies and memsets through the driver outside a runtime call (XLA's,
// Numba's) are the runtime's records: direction from the call, the element
// size of a memset, the per-thread default stream of a _ptds call; a failed
// one is none, and one inside a runtime call is that call's.
TEST_F(CallbackPath, CopiesAndMemsetsFromDriverCalls) {
  char* x = static_cast<char*>(Malloc(0x7f0000000000, kBytes));
  static char host[kBytes];
  const auto device = [](const char* p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); };
  const CUstream s = reinterpret_cast<CUstream>(0x5100);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2",
         cuMemcpyHtoDAsync_v2_params{device(x), host, kBytes, s});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, "cuMemcpyDtoH_v2_ptds",
         cuMemcpyDtoH_v2_params{host, device(x), 1024});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async, "cuMemsetD32Async", cuMemsetD32Async_params{device(x), 7, 256, s});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync, "cuMemcpyAsync",
         cuMemcpyAsync_params{device(x + 2048), device(x), 2048, s});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2, "cuMemcpyDtoDAsync_v2",
         cuMemcpyDtoDAsync_v2_params{device(x), device(x + 2048), 2048, s}, CUDA_ERROR_INVALID_VALUE);
  fake_cuda::CallAround(&tracer(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
                        "cudaMemcpyAsync",
                        cudaMemcpyAsync_v3020_params{x, host, 512, cudaMemcpyHostToDevice, nullptr}, [&] {
                          Driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2",
                                 cuMemcpyHtoDAsync_v2_params{device(x), host, 512, nullptr});
                        });

  const std::vector<TraceRecord> records = RecordsInTrace({OpCode::kMemcpy, OpCode::kMemset});
  ASSERT_EQ(records.size(), 5u);
  EXPECT_EQ(records[0].op, OpCode::kMemcpy);
  EXPECT_EQ(records[0].dst, reinterpret_cast<Address>(x));
  EXPECT_EQ(records[0].src, reinterpret_cast<Address>(host));
  EXPECT_EQ(records[0].size, kBytes);
  EXPECT_EQ(records[0].copy_kind, CopyKind::kHostToDevice);
  EXPECT_TRUE(records[0].is_async);
  EXPECT_EQ(records[0].stream, Handle{0x5100});
  EXPECT_EQ(records[1].copy_kind, CopyKind::kDeviceToHost);
  EXPECT_FALSE(records[1].is_async);
  EXPECT_EQ(records[1].stream, kCudaStreamPerThread);
  EXPECT_EQ(records[2].op, OpCode::kMemset);
  EXPECT_EQ(records[2].size, 1024u);  // 256 words of 4 bytes
  EXPECT_TRUE(records[2].is_async);
  EXPECT_EQ(records[3].copy_kind, CopyKind::kDefault);
  EXPECT_EQ(records[3].dst, reinterpret_cast<Address>(x + 2048));
  EXPECT_EQ(records[4].size, 512u);  // the runtime's call, once
  EXPECT_EQ(records[4].stream, 0u);
}

// Allocations and frees through the driver, as XLA and driver-API programs
// make them outside a runtime call: device, pitched, managed and
// stream-ordered memory (the _ptsz form on the per-thread default stream);
// a failed one is no allocation, and a runtime call's nested driver
// allocation is that call's.
TEST_F(CallbackPath, AllocationsAndFreesFromDriverCalls) {
  CUdeviceptr device = 0x7f0000000000, pitched = 0x7f0000100000, managed = 0x7f0000200000;
  CUdeviceptr pooled = 0x7f0000300000, failed = 0x7f0000400000, nested = 0x7f0000500000;
  size_t pitch = 512;
  const CUstream s = reinterpret_cast<CUstream>(0x5100);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", cuMemAlloc_v2_params{&device, 4096});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2, "cuMemAllocPitch_v2",
         cuMemAllocPitch_v2_params{&pitched, &pitch, 500, 8, 4});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged, "cuMemAllocManaged",
         cuMemAllocManaged_params{&managed, 1024, CU_MEM_ATTACH_GLOBAL});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz, "cuMemAllocAsync_ptsz",
         cuMemAllocAsync_params{&pooled, 2048, nullptr});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", cuMemAlloc_v2_params{&failed, 1 << 20},
         CUDA_ERROR_OUT_OF_MEMORY);
  fake_cuda::CallAround(&tracer(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, "cudaFree",
                        cudaFree_v3020_params{reinterpret_cast<void*>(device)}, [&] {
                          Driver(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", cuMemFree_v2_params{device});
                        });
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, "cuMemFreeAsync", cuMemFreeAsync_params{pooled, s});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", cuMemFree_v2_params{pitched});
  fake_cuda::CallAround(&tracer(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
                        "cudaMalloc", cudaMalloc_v3020_params{reinterpret_cast<void**>(&nested), 64}, [&] {
                          Driver(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2",
                                 cuMemAlloc_v2_params{&nested, 64});
                        });

  const std::vector<TraceRecord> r =
      RecordsInTrace({OpCode::kMalloc, OpCode::kMallocAsync, OpCode::kFree, OpCode::kFreeAsync});
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[0].op, OpCode::kMalloc);
  EXPECT_EQ(r[0].dst, Address{0x7f0000000000});
  EXPECT_EQ(r[0].size, 4096u);
  EXPECT_EQ(r[0].memory_kind, MemoryKind::kDevice);
  EXPECT_EQ(r[1].size, 512u * 8);  // the pitch the driver chose, times the 8 rows
  EXPECT_EQ(r[2].memory_kind, MemoryKind::kManaged);
  EXPECT_EQ(r[3].op, OpCode::kMallocAsync);
  EXPECT_EQ(r[3].stream, kCudaStreamPerThread);
  EXPECT_EQ(r[3].size, 2048u);
  EXPECT_EQ(r[4].op, OpCode::kFree);  // the runtime's cudaFree, once
  EXPECT_EQ(r[4].dst, Address{0x7f0000000000});
  EXPECT_EQ(r[5].op, OpCode::kFreeAsync);
  EXPECT_EQ(r[5].stream, Handle{0x5100});
  EXPECT_EQ(r[6].dst, Address{0x7f0000100000});
  EXPECT_EQ(r[7].op, OpCode::kMalloc);  // the runtime's cudaMalloc, once
  EXPECT_EQ(r[7].size, 64u);
}

// Capture into a graph that exists (cuda-samples' graphConditionalNodes
// captures a conditional node's body so): the record names the graph and the
// nodes the work goes after, and cudaStreamEndCapture with no pGraph (allowed
// then) takes no graph, rather than reading through the null pointer.
TEST_F(CallbackPath, CaptureIntoAGraphThatExists) {
  const cudaStream_t s = reinterpret_cast<cudaStream_t>(0x5100);
  const cudaGraph_t body = reinterpret_cast<cudaGraph_t>(0x6100);
  const cudaGraphNode_t after[] = {reinterpret_cast<cudaGraphNode_t>(0x6201), reinterpret_cast<cudaGraphNode_t>(0x6202)};
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamBeginCaptureToGraph_v12030, "cudaStreamBeginCaptureToGraph",
          cudaStreamBeginCaptureToGraph_v12030_params{s, body, after, nullptr, 2, cudaStreamCaptureModeGlobal});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamEndCapture_v10000, "cudaStreamEndCapture",
          cudaStreamEndCapture_v10000_params{s, nullptr});
  const std::vector<TraceRecord> r = RecordsInTrace({OpCode::kStreamBeginCapture, OpCode::kStreamEndCapture});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].graph, Handle{0x6100});
  EXPECT_EQ(r[0].deps, (std::vector<Handle>{0x6201, 0x6202}));
  EXPECT_EQ(r[0].stream, Handle{0x5100});
  EXPECT_EQ(r[1].graph, 0u);
}

// A program's teardown after the tracer finished (static destructors that
// launch, wait, destroy events and streams and free memory after the
// tracer's exit handler ran): those calls are analysed inline and must not
// touch what Finish closed.
TEST_F(CallbackPath, CallsAfterTheTracerFinishedAreHarmless) {
  CUstream made = reinterpret_cast<CUstream>(0x5100);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamCreate, "cuStreamCreate", cuStreamCreate_params{&made, 0});
  char* x = static_cast<char*>(Malloc(0x7f0000000000, kBytes));
  Launch(x, x + 64);
  tracer().Finish();
  Launch(x, x + 64);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, "cuStreamSynchronize", cuStreamSynchronize_params{made});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuEventDestroy_v2, "cuEventDestroy_v2",
         cuEventDestroy_v2_params{reinterpret_cast<CUevent>(0x9000)});
  Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamDestroy_v2, "cuStreamDestroy_v2", cuStreamDestroy_v2_params{made});
  Free(x);
  EXPECT_EQ(LaunchesInTrace().size(), 1u);  // the trace closed at Finish
}

// A kernel without parameters (cuda-samples' simpleCooperativeGroups,
// graphConditionalNodes): cuFuncGetParamInfo has no parameter 0 to tell of,
// and the demangled "idle()" says there is none: nothing is left unmodeled.
TEST_F(CallbackPath, AKernelWithoutParametersIsNoUnknownLayout) {
  cuLaunchKernel_params p{};
  p.f = fake_cuda::ParameterlessFakeKernel();
  Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", p);
  ASSERT_EQ(LaunchesInTrace().size(), 1u);
  EXPECT_TRUE(RecordsInTrace({OpCode::kUnmodeledApi}).empty());
}

// A _ptsz launch's stream 0 is the per-thread default stream; a plain
// launch's is the legacy default stream.
TEST_F(CallbackPath, PerThreadLaunchesTakeThePerThreadDefaultStream) {
  char* x = static_cast<char*>(Malloc(0x7f0000000000, kBytes));
  int n = 1024;
  void* args[] = {&x, &x, &n};
  cuLaunchKernel_params p{};
  p.f = fake_cuda::FakeKernel();
  p.kernelParams = args;
  Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz, "cuLaunchKernel_ptsz", p);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", p);
  const std::vector<TraceRecord> launches = LaunchesInTrace();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].stream, kCudaStreamPerThread);
  EXPECT_EQ(launches[1].stream, 0u);
}

// A module unloaded and another loaded may give the new kernel the unloaded
// one's handle (XLA's autotuner, a module per candidate). After the unload
// callback, the launch is decoded with the new kernel's layout and name:
// with step's, mark's pointer (4 bytes into its third slot) went unseen, and
// where the old kernel had more parameters than the new one, words were read
// past the argument array (XLA crashed there).
TEST_F(CallbackPath, AKernelGivenAnUnloadedKernelsHandleIsDecodedWithItsOwnLayout) {
  char* x = static_cast<char*>(Malloc(0x7f0000000000, kBytes));
  char* y = static_cast<char*>(Malloc(0x7f0000100000, kBytes));
  Launch(x, x + 64);  // step's layout cached for the handle
  HandleResourceCallback(CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING);
  fake_cuda::ReplaceFakeKernel(/*with_mark=*/true);
  int a[2] = {1, 0}, b[2] = {2, 0};  // words step's layout would read whole
  void* args[] = {a, b, &y};
  cuLaunchKernel_params p{};
  p.f = fake_cuda::FakeKernel();
  p.kernelParams = args;
  Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", p);
  fake_cuda::ReplaceFakeKernel(/*with_mark=*/false);
  HandleResourceCallback(CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING);  // the other tests' step
  std::vector<std::string> names;
  std::vector<TraceRecord> launches;
  for (const TraceRecord& r : RecordsInTrace({OpCode::kKernelLaunch, OpCode::kDefineString})) {
    if (r.op == OpCode::kKernelLaunch) {
      launches.push_back(r);
      continue;
    }
    if (r.id >= names.size()) names.resize(r.id + 1);
    names[r.id] = r.text;
  }
  ASSERT_EQ(launches.size(), 2u);
  ASSERT_LT(launches[1].name, names.size());
  EXPECT_EQ(names[launches[1].name], "mark(int, int, float*)");
  ASSERT_EQ(launches[1].accesses.size(), 1u);
  EXPECT_EQ(launches[1].accesses[0].addr, reinterpret_cast<Address>(y));
}

// cudaGraphAddKernelNode: the runtime call gives the arguments, the driver
// call nested in it the function. One that fails must not leave its pending
// node behind to swallow the thread's next launch as part of it.
TEST_F(CallbackPath, AFailedKernelNodeLeavesLaterLaunchesAlone) {
  char* x = static_cast<char*>(Malloc(0x7f0000000000, kBytes));
  char* y = static_cast<char*>(Malloc(0x7f0000100000, kBytes));
  int n = 1024;
  void* args[] = {&x, &y, &n};
  cudaKernelNodeParams node{};
  node.kernelParams = args;
  cudaGraphNode_t handle = nullptr;
  const auto graph = reinterpret_cast<cudaGraph_t>(0x6000);
  fake_cuda::CallAround(&tracer(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddKernelNode_v10000,
                        "cudaGraphAddKernelNode",
                        cudaGraphAddKernelNode_v10000_params{&handle, graph, nullptr, 0, &node}, [] {},
                        cudaErrorInvalidValue);
  Launch(x, y);
  EXPECT_EQ(RecordsInTrace({OpCode::kKernelLaunch, OpCode::kGraphAddNode}).size(), 1u);
}

// A thread's state goes at thread exit, before the destructors of the
// thread-locals made before its first CUDA call; a library's pool whose
// destructor still launches (or frees) must find a fresh state with the
// thread's own id, not the destroyed one.
TEST_F(CallbackPath, ALaunchFromAThreadLocalDestructorKeepsItsThread) {
  char* x = static_cast<char*>(Malloc(0x7f0000000000, kBytes));
  char* y = static_cast<char*>(Malloc(0x7f0000100000, kBytes));
  struct LaunchesWhenDestroyed {
    Tracer* tracer = nullptr;
    char *in = nullptr, *out = nullptr;
    ~LaunchesWhenDestroyed() {
      if (tracer) fake_cuda::LaunchFakeKernel(tracer, in, out);
    }
  };
  std::thread([&] {
    thread_local LaunchesWhenDestroyed late;  // made before the thread's state, so destroyed after it
    late.in = x, late.out = y, late.tracer = &tracer();
    Launch(x, y);
  }).join();
  const std::vector<TraceRecord> launches = LaunchesInTrace();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].thread, launches[1].thread);
  EXPECT_NE(launches[0].thread, 0u);
}

// NCCL's calls, as the interposers report them (nccl_hooks.h): the CUDA
// work inside a call is NCCL's own (its streams' waits on never-recorded
// events, its kernels), and the call itself is the program's kernel launch
// with the collective's exact bytes, at the call or at its group's end.
TEST_F(CallbackPath, NcclCallsAreTheProgramsWorkAndWhatIsInsideNcclsOwn) {
  const StreamcheckLibraryHooks* hooks = LibraryHooksFor(&tracer());
  char* x = static_cast<char*>(Malloc(0x7f0000000000, kBytes));
  char* y = static_cast<char*>(Malloc(0x7f0000100000, kBytes));
  const auto internal_stream = reinterpret_cast<CUstream>(0x6000);
  auto call = [&](StreamcheckNcclFunction function, const char* name, const void* send, void* recv, uint64_t count,
                  int32_t peer, auto&& inside) {
    StreamcheckNcclCall c{};
    c.function = function;
    c.name = name;
    c.sendbuff = Address(send), c.recvbuff = Address(recv), c.count = count;
    c.datatype = 7;  // ncclFloat32
    c.root = peer;
    c.stream = 0x5000;
    c.nranks = 2, c.rank = 0, c.device = 0;
    hooks->nccl_enter(&c);
    inside();
    hooks->nccl_leave(&c);
  };
  call(STREAMCHECK_NCCL_ALL_REDUCE, "ncclAllReduce", x, x, kBytes / 4, -1, [&] {
    Driver(CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent, "cuStreamWaitEvent",
           cuStreamWaitEvent_params{internal_stream, reinterpret_cast<CUevent>(0x7000), 0});
    fake_cuda::LaunchFakeKernel(&tracer(), nullptr, nullptr, internal_stream);
  });
  call(STREAMCHECK_NCCL_GROUP_START, "ncclGroupStart", nullptr, nullptr, 0, -1, [] {});
  call(STREAMCHECK_NCCL_SEND, "ncclSend", y, nullptr, 16, 1, [] {});
  call(STREAMCHECK_NCCL_RECV, "ncclRecv", nullptr, y + 64, 16, 1, [] {});
  Launch(x, y);  // the program's, between the calls and the group's launch
  call(STREAMCHECK_NCCL_GROUP_END, "ncclGroupEnd", nullptr, nullptr, 0, -1, [&] {
    fake_cuda::LaunchFakeKernel(&tracer(), nullptr, nullptr, internal_stream);
  });
  const std::vector<TraceRecord> r = RecordsInTrace({OpCode::kStreamWaitEvent, OpCode::kKernelLaunch});
  ASSERT_EQ(r.size(), 7u);
  const StringId nccl = tracer().Intern("nccl");
  EXPECT_EQ(r[0].op, OpCode::kStreamWaitEvent);
  EXPECT_EQ(r[0].library, nccl);
  EXPECT_EQ(r[1].library, nccl);  // NCCL's kernel
  EXPECT_EQ(r[1].stream, 0x6000u);
  EXPECT_EQ(r[2].library, 0u);
  EXPECT_EQ(r[2].name, tracer().Intern("ncclAllReduce"));
  EXPECT_EQ(r[2].api, tracer().Intern("ncclAllReduce"));
  EXPECT_EQ(r[2].stream, 0x5000u);
  EXPECT_EQ(r[2].accesses, (std::vector<MemoryAccess>{{Address(x), kBytes, AccessMode::kReadWrite}}));
  EXPECT_EQ(r[3].library, 0u);  // the program's launch
  EXPECT_EQ(r[4].library, nccl);  // the group's kernel, before the group's operations
  EXPECT_EQ(r[5].name, tracer().Intern("ncclSend"));
  EXPECT_EQ(r[5].api, tracer().Intern("ncclGroupEnd"));
  EXPECT_EQ(r[5].accesses, (std::vector<MemoryAccess>{{Address(y), 64, AccessMode::kRead}}));
  EXPECT_EQ(r[6].name, tracer().Intern("ncclRecv"));
  EXPECT_EQ(r[6].accesses, (std::vector<MemoryAccess>{{Address(y) + 64, 64, AccessMode::kWrite}}));
  EXPECT_EQ(r[6].library, 0u);
}

}  // namespace
}  // namespace streamcheck::tracer

namespace streamcheck::tracer {
namespace {

int g_host_fn_runs = 0;
void CUDA_CB CountRun(void* data) { g_host_fn_runs += *static_cast<int*>(data); }

// cudaLaunchHostFunc makes cuLaunchHostFunc: there the program's function is
// swapped for the trampoline, which (run as the driver would, after the
// launch's exit) emits host_func_begin/end around the program's function with
// the program's data, under the id of the launch's host_func record.
TEST_F(CallbackPath, AHostFunctionsRunIsFollowedThroughTheDriverCall) {
  int weight = 3;
  cuLaunchHostFunc_params driver{nullptr, CountRun, &weight};
  fake_cuda::CallAround(&tracer(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000,
                        "cudaLaunchHostFunc", cudaLaunchHostFunc_v10000_params{nullptr, CountRun, &weight}, [&] {
                          Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, "cuLaunchHostFunc", driver);
                        });
  ASSERT_NE(driver.fn, CountRun) << "the driver call's function was not replaced";
  ASSERT_NE(driver.userData, static_cast<void*>(&weight));
  g_host_fn_runs = 0;
  std::thread([&] { driver.fn(driver.userData); }).join();  // the driver's thread
  EXPECT_EQ(g_host_fn_runs, 3);
  const auto records = RecordsInTrace({OpCode::kHostFunc, OpCode::kHostFuncBegin, OpCode::kHostFuncEnd});
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].op, OpCode::kHostFunc);
  EXPECT_NE(records[0].id, 0u);
  EXPECT_EQ(records[1].op, OpCode::kHostFuncBegin);
  EXPECT_EQ(records[2].op, OpCode::kHostFuncEnd);
  EXPECT_EQ(records[1].id, records[0].id);
  EXPECT_NE(records[1].thread, records[0].thread);
}

// A host function launched through the driver itself (XLA's completion
// callbacks) is followed as a runtime launch's is: its record, then its run
// on the driver's thread under the same id. A failed launch records nothing.
TEST_F(CallbackPath, ADirectDriverHostFunctionIsFollowed) {
  int weight = 2;
  cuLaunchHostFunc_params failed{nullptr, CountRun, &weight};
  Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, "cuLaunchHostFunc", failed, CUDA_ERROR_INVALID_VALUE);
  cuLaunchHostFunc_params driver{reinterpret_cast<CUstream>(0x5100), CountRun, &weight};
  Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc, "cuLaunchHostFunc", driver);
  ASSERT_NE(driver.fn, CountRun) << "the driver call's function was not replaced";
  g_host_fn_runs = 0;
  std::thread([&] { driver.fn(driver.userData); }).join();  // the driver's thread
  EXPECT_EQ(g_host_fn_runs, 2);
  const auto records = RecordsInTrace({OpCode::kHostFunc, OpCode::kHostFuncBegin, OpCode::kHostFuncEnd});
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].op, OpCode::kHostFunc);
  EXPECT_EQ(records[0].stream, Handle{0x5100});
  EXPECT_NE(records[0].id, 0u);
  EXPECT_EQ(records[1].op, OpCode::kHostFuncBegin);
  EXPECT_EQ(records[1].id, records[0].id);
  EXPECT_EQ(records[2].op, OpCode::kHostFuncEnd);
}

// cudaGraphAddHostNode makes cuGraphAddHostNode: there the node's function
// is swapped (through a copy of the parameters; the program's struct stays
// as it was) for the trampoline, which at each launch of the graph emits
// host_func_begin/end under the id of the node's graph_add_node record. The
// engine, given the run's read of the buffer the kernel node writes, finds
// the race without an edge between the nodes and none with it.
class GraphHostNode : public CallbackPath {
 protected:
  // The records of a graph [kernel node writing `pinned`] -> host node
  // (edge only if `ordered`), launched twice, whose node runs after both.
  std::vector<TraceRecord> TwoLaunches(bool ordered, int* weight) {
    void* pinned = reinterpret_cast<void*>(0x7f1000000000);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, "cudaMallocHost", cudaMallocHost_v3020_params{&pinned, kBytes});
    const cudaStream_t s = reinterpret_cast<cudaStream_t>(0x5100);
    cudaGraph_t graph = reinterpret_cast<cudaGraph_t>(0x6000);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGraphCreate_v10000, "cudaGraphCreate", cudaGraphCreate_v10000_params{&graph, 0});
    const void* in = pinned;
    int n = 1024;
    void* args[] = {&in, &pinned, &n};
    cudaGraphNode_t fill = reinterpret_cast<cudaGraphNode_t>(0x6001);
    fake_cuda::AddFakeKernelNode(&tracer(), &fill, graph, args);
    const CUDA_HOST_NODE_PARAMS program_driver{CountRun, weight};
    cudaGraphNode_t read = reinterpret_cast<cudaGraphNode_t>(0x6002);
    const cuGraphAddHostNode_params driver =
        fake_cuda::AddHostNode(&tracer(), &read, graph, ordered ? &fill : nullptr, ordered ? 1 : 0, program_driver);
    EXPECT_EQ(program_driver.fn, CountRun);
    EXPECT_NE(driver.nodeParams, &program_driver);
    EXPECT_NE(driver.nodeParams->fn, CountRun) << "the node's function was not replaced";
    // cudaGraphHostNodeGetParams gives the program its own function and data.
    CUDA_HOST_NODE_PARAMS got = *driver.nodeParams;
    Driver(CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeGetParams, "cuGraphHostNodeGetParams",
           cuGraphHostNodeGetParams_params{read, &got});
    EXPECT_EQ(got.fn, CountRun);
    EXPECT_EQ(got.userData, static_cast<void*>(weight));
    cudaGraphExec_t exec = reinterpret_cast<cudaGraphExec_t>(0x7000);
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGraphInstantiate_v12000, "cudaGraphInstantiate",
            cudaGraphInstantiate_v12000_params{&exec, graph, 0});
    for (int i = 0; i < 2; ++i)
      Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch", cudaGraphLaunch_v10000_params{exec, s});
    g_host_fn_runs = 0;
    const CUDA_HOST_NODE_PARAMS node = *driver.nodeParams;  // what the graph's exec holds
    std::thread([&] {
      node.fn(node.userData);
      node.fn(node.userData);
    }).join();  // the driver's thread
    EXPECT_EQ(g_host_fn_runs, 2 * *weight);
    return RecordsInTrace({OpCode::kGraphAddNode, OpCode::kGraphLaunch, OpCode::kHostFuncBegin, OpCode::kHostFuncEnd,
                           OpCode::kMalloc, OpCode::kGraphCreate, OpCode::kGraphInstantiate});
  }

  // The findings of the records, each run reading the buffer's first bytes
  // (what the guard pages would record).
  std::vector<Finding> Verdict(const std::vector<TraceRecord>& records) {
    testing::CollectingSink sink;
    Engine engine(&sink);
    for (const TraceRecord& r : records) {
      engine.Process(r);
      if (r.op != OpCode::kHostFuncBegin) continue;
      TraceRecord read;
      read.op = OpCode::kHostAccess;
      read.thread = r.thread;
      read.accesses.push_back({0x7f1000000000, 256, AccessMode::kRead});
      engine.Process(read);
    }
    engine.Finish();
    return sink.findings;
  }
};

TEST_F(GraphHostNode, ItsRunsAreFollowedAtEachLaunch) {
  int weight = 5;
  const auto records = TwoLaunches(/*ordered=*/false, &weight);
  std::vector<TraceRecord> node_ops;
  for (const TraceRecord& r : records)
    if (r.op != OpCode::kMalloc && r.op != OpCode::kGraphCreate && r.op != OpCode::kGraphInstantiate)
      node_ops.push_back(r);
  ASSERT_EQ(node_ops.size(), 8u);
  EXPECT_EQ(node_ops[0].node_op, OpCode::kKernelLaunch);
  EXPECT_EQ(node_ops[1].node_op, OpCode::kHostFunc);
  EXPECT_EQ(node_ops[1].node, Handle{0x6002});
  const uint32_t id = node_ops[1].id;
  EXPECT_NE(id, 0u);
  EXPECT_EQ(node_ops[2].op, OpCode::kGraphLaunch);
  EXPECT_EQ(node_ops[3].op, OpCode::kGraphLaunch);
  for (size_t i = 4; i < 8; ++i) {
    EXPECT_EQ(node_ops[i].op, i % 2 == 0 ? OpCode::kHostFuncBegin : OpCode::kHostFuncEnd);
    EXPECT_EQ(node_ops[i].id, id);
    EXPECT_NE(node_ops[i].thread, node_ops[1].thread);
  }
  const auto findings = Verdict(records);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings[0].kind, FindingKind::kReadAfterWrite);
}

TEST_F(GraphHostNode, AnEdgeFromTheKernelNodeOrdersItsRuns) {
  int weight = 1;
  const auto records = TwoLaunches(/*ordered=*/true, &weight);
  EXPECT_TRUE(Verdict(records).empty());
}

// A failed cudaGraphAddHostNode gives its context back and records nothing.
TEST_F(GraphHostNode, AFailedAddRecordsNothing) {
  int weight = 1;
  const CUDA_HOST_NODE_PARAMS program_driver{CountRun, &weight};
  cuGraphAddHostNode_params driver{nullptr, nullptr, nullptr, 0, &program_driver};
  const cudaHostNodeParams program{CountRun, &weight};
  cudaGraphNode_t read = nullptr;
  fake_cuda::CallAround(&tracer(), CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddHostNode_v10000,
                        "cudaGraphAddHostNode",
                        cudaGraphAddHostNode_v10000_params{&read, reinterpret_cast<cudaGraph_t>(0x6000), nullptr, 0,
                                                           &program},
                        [&] { Driver(CUPTI_DRIVER_TRACE_CBID_cuGraphAddHostNode, "cuGraphAddHostNode", driver); },
                        cudaErrorInvalidValue);
  EXPECT_TRUE(RecordsInTrace({OpCode::kGraphAddNode}).empty());
}

}  // namespace
}  // namespace streamcheck::tracer
