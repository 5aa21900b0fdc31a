// A stand-in for the CUDA driver calls the tracer makes (a kernel's name and
// parameter layout, the current context's device), for tests and benchmarks
// on machines without a GPU, and CUPTI's side of a call: its payloads handed
// to the tracer's callback handler.
#pragma once

#include <cuda.h>
#include <cupti.h>

#include "tracer/cupti/cupti_callbacks.h"

namespace streamcheck::fake_cuda {

// The kernel the fake driver knows: `step(const float*, float*, int)`.
CUfunction FakeKernel();
// `idle()`: a kernel without parameters (the driver has no parameter 0 to tell of).
CUfunction ParameterlessFakeKernel();

// A module unloaded and another loaded, which the driver may give the same
// handle: `mark(int, int, float*)` at FakeKernel()'s handle (true), or step
// again (false).
void ReplaceFakeKernel(bool with_mark);
// The device of the calling thread's context, as cuCtxGetDevice answers (0 until set).
int& CurrentDevice();

// One CUDA call as CUPTI reports it: entry, the calls it makes itself
// (`inside`, e.g. a runtime call's driver calls), then exit with `result`.
template <typename Params, typename Inside>
void CallAround(tracer::Tracer* t, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* name,
                const Params& params, Inside&& inside, int result = 0) {
  CUpti_CallbackData data{};
  data.functionName = name;
  data.functionParams = &params;
  data.functionReturnValue = &result;
  data.callbackSite = CUPTI_API_ENTER;
  tracer::HandleCallback(t, domain, cbid, &data);
  inside();
  data.callbackSite = CUPTI_API_EXIT;
  tracer::HandleCallback(t, domain, cbid, &data);
}

// One CUDA call as CUPTI reports it: entry, then exit with `result`.
template <typename Params>
void Call(tracer::Tracer* t, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char* name,
          const Params& params, int result = 0) {
  CallAround(t, domain, cbid, name, params, [] {}, result);
}

// step<<<1, 256, 0, stream>>>(in, out, 1024), through cuLaunchKernel.
inline void LaunchFakeKernel(tracer::Tracer* t, const void* in, void* out, CUstream stream = nullptr) {
  int n = 1024;
  void* args[] = {&in, &out, &n};
  cuLaunchKernel_params p{};
  p.f = FakeKernel();
  p.gridDimX = p.gridDimY = p.gridDimZ = 1;
  p.blockDimX = 256, p.blockDimY = p.blockDimZ = 1;
  p.hStream = stream;
  p.kernelParams = args;
  Call(t, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", p);
}

// cudaGraphAddKernelNode of FakeKernel() with `args`, as CUDA makes it: the
// runtime call around the driver's cuGraphAddKernelNode_v2, which hands the
// tracer the kernel and its arguments.
inline void AddFakeKernelNode(tracer::Tracer* t, cudaGraphNode_t* node, cudaGraph_t graph, void** args) {
  cudaKernelNodeParams k{};
  k.kernelParams = args;
  CUDA_KERNEL_NODE_PARAMS dk{};
  dk.func = FakeKernel();
  dk.kernelParams = args;
  CallAround(t, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddKernelNode_v10000,
             "cudaGraphAddKernelNode", cudaGraphAddKernelNode_v10000_params{node, graph, nullptr, 0, &k}, [&] {
               Call(t, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2,
                    "cuGraphAddKernelNode_v2", cuGraphAddKernelNode_v2_params{nullptr, nullptr, nullptr, 0, &dk});
             });
}

// cudaGraphAddHostNode of `program` after `deps`, as CUDA makes it: the
// runtime call around cuGraphAddHostNode, whose parameters the tracer may
// swap for its own. Returns the driver call's parameters as the call left
// them (its nodeParams: what the graph's exec holds).
inline cuGraphAddHostNode_params AddHostNode(tracer::Tracer* t, cudaGraphNode_t* node, cudaGraph_t graph,
                                             const cudaGraphNode_t* deps, size_t n,
                                             const CUDA_HOST_NODE_PARAMS& program) {
  const cudaHostNodeParams runtime{program.fn, program.userData};
  cuGraphAddHostNode_params driver{nullptr, nullptr, nullptr, 0, &program};
  CallAround(t, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaGraphAddHostNode_v10000,
             "cudaGraphAddHostNode", cudaGraphAddHostNode_v10000_params{node, graph, deps, n, &runtime},
             [&] { Call(t, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuGraphAddHostNode, "cuGraphAddHostNode", driver); });
  return driver;
}

}  // namespace streamcheck::fake_cuda
