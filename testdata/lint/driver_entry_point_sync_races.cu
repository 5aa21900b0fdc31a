// Racy twin of driver_entry_point_sync_clean.cu: the synchronize through the
// driver's pointer waits for another stream than the copy's, and a call
// through a pointer nothing bound to a CUDA call (a program's callback) is
// no synchronize at all.
#include <cuda.h>
#include <cuda_runtime.h>

typedef CUresult (*PfnStreamSynchronize)(CUstream);
static PfnStreamSynchronize pfn_cuStreamSynchronize;
static PfnStreamSynchronize on_done;  // the program's own callback

void init_driver_calls(PfnStreamSynchronize callback) {
  cudaDriverEntryPointQueryResult status;
  cudaGetDriverEntryPoint("cuStreamSynchronize", (void**)&pfn_cuStreamSynchronize, cudaEnableDefault, &status);
  on_done = callback;
}

unsigned read_after_other_sync(const unsigned* d, unsigned* pinned, cudaStream_t s, cudaStream_t other) {
  cudaMemcpyAsync(pinned, d, 4 * sizeof(unsigned), cudaMemcpyDeviceToHost, s);
  pfn_cuStreamSynchronize(other);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}

unsigned read_after_callback(const unsigned* d, unsigned* pinned, cudaStream_t s) {
  cudaMemcpyAsync(pinned, d, 4 * sizeof(unsigned), cudaMemcpyDeviceToHost, s);
  if (on_done != nullptr) on_done(s);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}
