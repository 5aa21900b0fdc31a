#include "tests/common/fake_driver.h"

#include <cstddef>
#include <iterator>

namespace streamcheck::fake_cuda {
namespace {

int g_kernel;          // its address is the kernel's handle
int g_idle_kernel;     // `idle()`, a kernel without parameters
struct FakeLayout {
  const char* mangled;
  size_t offsets[3], sizes[3];
};
constexpr FakeLayout kStep = {"_Z4stepPKfPfi", {0, 8, 16}, {8, 8, 4}};
constexpr FakeLayout kMark = {"_Z4markiiPf", {0, 4, 8}, {4, 4, 8}};
const FakeLayout* g_layout = &kStep;

bool IsFakeKernel(const void* f) { return f == &g_kernel; }

}  // namespace

CUfunction FakeKernel() { return reinterpret_cast<CUfunction>(&g_kernel); }
CUfunction ParameterlessFakeKernel() { return reinterpret_cast<CUfunction>(&g_idle_kernel); }

void ReplaceFakeKernel(bool with_mark) { g_layout = with_mark ? &kMark : &kStep; }
int& CurrentDevice() {
  thread_local int device = 0;
  return device;
}

}  // namespace streamcheck::fake_cuda

using streamcheck::fake_cuda::g_idle_kernel;
using streamcheck::fake_cuda::g_layout;
using streamcheck::fake_cuda::IsFakeKernel;

extern "C" {

CUresult CUDAAPI cuFuncGetName(const char** name, CUfunction f) {
  if (f == reinterpret_cast<CUfunction>(&g_idle_kernel)) {
    *name = "_Z4idlev";
    return CUDA_SUCCESS;
  }
  if (!IsFakeKernel(f)) return CUDA_ERROR_INVALID_HANDLE;
  *name = g_layout->mangled;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetParamInfo(CUfunction f, size_t index, size_t* offset, size_t* size) {
  if (f == reinterpret_cast<CUfunction>(&g_idle_kernel)) return CUDA_ERROR_INVALID_VALUE;  // no parameter 0
  if (!IsFakeKernel(f)) return CUDA_ERROR_INVALID_HANDLE;
  if (index >= std::size(g_layout->offsets)) return CUDA_ERROR_INVALID_VALUE;
  *offset = g_layout->offsets[index];
  *size = g_layout->sizes[index];
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetName(const char**, CUkernel) { return CUDA_ERROR_INVALID_HANDLE; }

CUresult CUDAAPI cuKernelGetParamInfo(CUkernel, size_t, size_t*, size_t*) { return CUDA_ERROR_INVALID_HANDLE; }

// No stream of a test process is ever being captured.
CUresult CUDAAPI cuStreamIsCapturing(CUstream, CUstreamCaptureStatus* status) {
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

// The calling thread's context is that of device `fake_cuda::CurrentDevice()`.
CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
  *device = streamcheck::fake_cuda::CurrentDevice();
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorName(CUresult, const char** name) {
  *name = "CUDA_ERROR (fake driver)";
  return CUDA_SUCCESS;
}

}  // extern "C"
