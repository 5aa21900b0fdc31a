// Driver calls made through pointers the driver gave (cudaGetDriverEntryPoint
// behind a wrapper taking the call's name, as NVIDIA Warp loads every driver
// call): a synchronize through such a pointer is a synchronize, and the test
// of the pointer before the call (`pfn ? pfn(s) : error`) is taken as the
// pointer given, its null branch the program's failure path.
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

typedef CUresult (*PfnStreamSynchronize)(CUstream);
static PfnStreamSynchronize pfn_cuStreamSynchronize;

static void get_entry_point(const char* name, void** pfn) {
  cudaDriverEntryPointQueryResult status;
  cudaGetDriverEntryPoint(name, pfn, cudaEnableDefault, &status);
}

void init_driver_calls() { get_entry_point("cuStreamSynchronize", &(void*&)pfn_cuStreamSynchronize); }

static CUresult entry_point_error(const char* function) {
  std::fprintf(stderr, "%s: not found in the driver\n", function);
  return CUDA_ERROR_NOT_FOUND;
}

CUresult stream_synchronize(CUstream s) {
  return pfn_cuStreamSynchronize ? pfn_cuStreamSynchronize(s) : entry_point_error(__func__);
}

unsigned read_after_sync(const unsigned* d, unsigned* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4 * sizeof(unsigned), cudaMemcpyDeviceToHost, s);
  stream_synchronize(s);
  return pinned[0] + pinned[3];
}

unsigned read_after_direct_sync(const unsigned* d, unsigned* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4 * sizeof(unsigned), cudaMemcpyDeviceToHost, s);
  if (pfn_cuStreamSynchronize == nullptr) return 0;
  pfn_cuStreamSynchronize(s);
  return pinned[0];
}
