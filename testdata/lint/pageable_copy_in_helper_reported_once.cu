// A helper that allocates a std::vector, copies into it with cudaMemcpyAsync
// and reads it before synchronizing: the finding is the helper's own and is
// reported once, in the helper, not again at each call; the fixed twin
// synchronizes before it reads (ggml's shape, which is correct as it is).
#include <cuda_runtime.h>
#include <vector>

static int count_racy(const int* d_ids, int n, cudaStream_t s) {
  std::vector<int> ids(n);
  cudaMemcpyAsync(ids.data(), d_ids, n * sizeof(int), cudaMemcpyDeviceToHost, s);  // expected-warning:3{{pageable-async-copy}}
  int total = 0;
  for (int i = 0; i < n; ++i) total += ids[i];
  cudaStreamSynchronize(s);
  return total;
}

static int count_fixed(const int* d_ids, int n, cudaStream_t s) {
  std::vector<int> ids(n);
  cudaMemcpyAsync(ids.data(), d_ids, n * sizeof(int), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  int total = 0;
  for (int i = 0; i < n; ++i) total += ids[i];
  return total;
}

int callers(const int* d_ids, int n, cudaStream_t s) {
  return count_racy(d_ids, n, s) + count_racy(d_ids, 2 * n, s) + count_fixed(d_ids, n, s) + count_fixed(d_ids, n, s);
}
