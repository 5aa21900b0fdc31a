// cuFFT: cufftSetStream binds the plan; cufftExecC2C reads its input and
// writes its output there. The input is filled on another stream with no
// ordering (racy); on the plan's stream it is ordered (fixed). Out of
// place, the input is only read: a kernel on a second stream reading it
// too is no race (fixed_read_read).
#include <cuda_runtime.h>
#include <cufft.h>

__global__ void make_signal(cufftComplex* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = make_cuFloatComplex(i, 0);
}
__global__ void peek(const cufftComplex* x, float* out) { out[0] = x[0].x; }

void racy(cufftComplex* in, cufftComplex* out, int n) {
  cufftHandle plan;
  cudaStream_t fill, fft;
  cudaStreamCreateWithFlags(&fill, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&fft, cudaStreamNonBlocking);
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  cufftSetStream(plan, fft);
  make_signal<<<(n + 255) / 256, 256, 0, fill>>>(in, n);
  cufftExecC2C(plan, in, out, CUFFT_FORWARD);  // expected-warning:3{{cross-stream-race}}{{`cufftExecC2C` on stream `fft` (non-blocking) reads `in` while kernel `make_signal`}}
  cudaDeviceSynchronize();
  cufftDestroy(plan);
}

void fixed(cufftComplex* in, cufftComplex* out, int n) {
  cufftHandle plan;
  cudaStream_t fft;
  cudaStreamCreateWithFlags(&fft, cudaStreamNonBlocking);
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  cufftSetStream(plan, fft);
  make_signal<<<(n + 255) / 256, 256, 0, fft>>>(in, n);
  cufftExecC2C(plan, in, out, CUFFT_FORWARD);
  cudaStreamSynchronize(fft);
  cufftDestroy(plan);
}

void fixed_read_read(cufftComplex* in, cufftComplex* out, float* first, int n) {
  cufftHandle plan;
  cudaStream_t fft, side;
  cudaStreamCreateWithFlags(&fft, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  cufftPlan1d(&plan, n, CUFFT_C2C, 1);
  cufftSetStream(plan, fft);
  cufftExecC2C(plan, in, out, CUFFT_FORWARD);
  peek<<<1, 1, 0, side>>>(in, first);
  cudaDeviceSynchronize();
  cufftDestroy(plan);
}
