// The same condition tested twice on one path goes the same way both times
// when nothing it reads was written between: a helper that returns early
// `if (blocking)` and skips its synchronize, then `if (blocking)` synchronizing
// in the caller, leaves nothing pending on either path (fixed). A condition
// whose variable changed between the tests, or a different condition, is not
// known (racy).
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

void start(float* d, float* pinned, cudaStream_t s, bool blocking) {
  produce<<<4, 256, 0, s>>>(d, 1024);
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  if (blocking) return;
  cudaStreamSynchronize(s);
}

float fixed_same_condition(float* d, float* pinned, cudaStream_t s, bool blocking) {
  start(d, pinned, s, blocking);
  if (blocking) cudaStreamSynchronize(s);
  return pinned[0];
}

float fixed_negated(float* d, float* pinned, cudaStream_t s, bool blocking) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  if (blocking) cudaStreamSynchronize(s);
  if (!blocking) cudaStreamSynchronize(s);
  return pinned[0];
}

void start_unless(float* pinned, const float* d, cudaStream_t s, int iters, bool blocking) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  if (blocking && iters <= 1) return;
  cudaStreamSynchronize(s);
}

// A conjunction: its left operand found false decides it as a whole, so the
// helper's three paths meet the caller's test on one key (nccl-tests'
// completeColl and its caller).
float fixed_conjunction(float* d, float* pinned, cudaStream_t s, int iters, bool blocking) {
  start_unless(pinned, d, s, iters, blocking);
  if (blocking && iters <= 1) cudaStreamSynchronize(s);
  return pinned[0];
}

float racy_one_operand(float* d, float* pinned, cudaStream_t s, int iters, bool blocking) {
  start_unless(pinned, d, s, iters, blocking);
  if (iters <= 1) cudaStreamSynchronize(s);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}

// A volatile flag may change under the program (a signal handler's).
float racy_volatile(float* d, float* pinned, cudaStream_t s, volatile bool& blocking) {
  cudaMemcpyAsync(pinned, d, 4096, cudaMemcpyDeviceToHost, s);
  if (blocking) cudaStreamSynchronize(s);
  if (!blocking) cudaStreamSynchronize(s);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}

float racy_changed_between(float* d, float* pinned, cudaStream_t s, bool blocking, bool other) {
  start(d, pinned, s, blocking);
  blocking = other;
  if (blocking) cudaStreamSynchronize(s);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}

float racy_other_condition(float* d, float* pinned, cudaStream_t s, bool blocking, bool verbose) {
  start(d, pinned, s, blocking);
  if (verbose) cudaStreamSynchronize(s);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}

void set_flag(bool& flag) { flag = !flag; }

float racy_passed_by_reference(float* d, float* pinned, cudaStream_t s, bool blocking) {
  start(d, pinned, s, blocking);
  set_flag(blocking);
  if (blocking) cudaStreamSynchronize(s);
  return pinned[0];  // expected-warning:10{{host-device-race}}
}
