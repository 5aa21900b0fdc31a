// NCCL: a collective runs on the stream it is given, reading sendbuff and
// writing recvbuff. The gradients are computed on `compute` and reduced on
// `comm` with nothing ordering them (racy); an event does (fixed). The host
// reads the reduced result after synchronizing the wrong stream (racy too).
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void backward(float* grad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) grad[i] = 1.0f;
}

void racy(ncclComm_t world, float* grad, float* reduced, float* host, int n) {
  cudaStream_t compute, comm;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&comm, cudaStreamNonBlocking);
  backward<<<(n + 255) / 256, 256, 0, compute>>>(grad, n);
  ncclAllReduce(grad, reduced, n, ncclFloat, ncclSum, world, comm);  // expected-warning:3{{cross-stream-race}}{{`ncclAllReduce` on stream `comm` (non-blocking) reads `grad` while kernel `backward`}}
  cudaMemcpyAsync(host, reduced, n * sizeof(float), cudaMemcpyDeviceToHost, comm);
  cudaStreamSynchronize(compute);
}

void fixed(ncclComm_t world, float* grad, float* reduced, int n) {
  cudaStream_t compute, comm;
  cudaEvent_t grads_ready;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&comm, cudaStreamNonBlocking);
  cudaEventCreateWithFlags(&grads_ready, cudaEventDisableTiming);
  backward<<<(n + 255) / 256, 256, 0, compute>>>(grad, n);
  cudaEventRecord(grads_ready, compute);
  cudaStreamWaitEvent(comm, grads_ready, 0);
  ncclGroupStart();
  ncclAllReduce(grad, reduced, n, ncclFloat, ncclSum, world, comm);
  ncclGroupEnd();
  cudaStreamSynchronize(comm);
}
