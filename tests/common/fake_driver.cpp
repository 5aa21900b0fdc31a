#include "tests/common/fake_driver.h"

#include <cstddef>
#include <iterator>

namespace streamcheck::fake_cuda {
namespace {

int g_kernel;  // its address is the kernel's handle
constexpr size_t kParamOffsets[] = {0, 8, 16}, kParamSizes[] = {8, 8, 4};

bool IsFakeKernel(const void* f) { return f == &g_kernel; }

}  // namespace

CUfunction FakeKernel() { return reinterpret_cast<CUfunction>(&g_kernel); }

}  // namespace streamcheck::fake_cuda

using streamcheck::fake_cuda::IsFakeKernel;
using streamcheck::fake_cuda::kParamOffsets;
using streamcheck::fake_cuda::kParamSizes;

extern "C" {

CUresult CUDAAPI cuFuncGetName(const char** name, CUfunction f) {
  if (!IsFakeKernel(f)) return CUDA_ERROR_INVALID_HANDLE;
  *name = "_Z4stepPKfPfi";
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetParamInfo(CUfunction f, size_t index, size_t* offset, size_t* size) {
  if (!IsFakeKernel(f)) return CUDA_ERROR_INVALID_HANDLE;
  if (index >= std::size(kParamOffsets)) return CUDA_ERROR_INVALID_VALUE;
  *offset = kParamOffsets[index];
  *size = kParamSizes[index];
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetName(const char**, CUkernel) { return CUDA_ERROR_INVALID_HANDLE; }

CUresult CUDAAPI cuKernelGetParamInfo(CUkernel, size_t, size_t*, size_t*) { return CUDA_ERROR_INVALID_HANDLE; }

// No stream of a test process is ever being captured.
CUresult CUDAAPI cuStreamIsCapturing(CUstream, CUstreamCaptureStatus* status) {
  *status = CU_STREAM_CAPTURE_STATUS_NONE;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorName(CUresult, const char** name) {
  *name = "CUDA_ERROR (fake driver)";
  return CUDA_SUCCESS;
}

}  // extern "C"
