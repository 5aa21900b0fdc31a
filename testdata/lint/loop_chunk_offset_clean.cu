// Chunked pipelines over two streams: iteration i writes chunk `base + i * CHUNK`
// on stream a, an event orders stream b after it, and b reads the same chunk.
// Chunks of different iterations never overlap (the offset moves by CHUNK
// elements per iteration and each access stays inside its chunk, or its extent
// is a kernel's and the next chunk starts CHUNK elements on), so the only pair on
// the same bytes is the same iteration's, which the event orders. Silent.
#include <cuda_runtime.h>

constexpr int CHUNK = 1 << 16;
constexpr int NCHUNKS = 8;

__global__ void produce(float* x, int n) { int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < n) x[k] = k; }
__global__ void consume(const float* x, float* y, int n) { int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < n) y[k] = 2 * x[k]; }

// Kernels on both sides, the offset written in each launch.
void kernels_inline() {
  float *base, *out;
  cudaMalloc(&base, NCHUNKS * CHUNK * sizeof(float));
  cudaMalloc(&out, NCHUNKS * CHUNK * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  for (int i = 0; i < NCHUNKS; i++) {
    produce<<<CHUNK / 256, 256, 0, a>>>(base + i * CHUNK, CHUNK);
    cudaEventRecord(done, a);
    cudaStreamWaitEvent(b, done, 0);
    consume<<<CHUNK / 256, 256, 0, b>>>(base + i * CHUNK, out + i * CHUNK, CHUNK);
  }
  cudaDeviceSynchronize();
  cudaFree(base);
  cudaFree(out);
}

// Copies of exactly one chunk (extents known): a host-to-device copy into the
// chunk on a, a device-to-host copy of it on b; the chunk's pointer named once
// in the body.
void copies_through_a_local() {
  float *host, *dev, *back;
  cudaMallocHost(&host, NCHUNKS * CHUNK * sizeof(float));
  cudaMallocHost(&back, NCHUNKS * CHUNK * sizeof(float));
  cudaMalloc(&dev, NCHUNKS * CHUNK * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
  cudaEvent_t loaded;
  cudaEventCreateWithFlags(&loaded, cudaEventDisableTiming);
  for (size_t i = 0; i < NCHUNKS; ++i) {
    float* chunk = dev + i * CHUNK;
    const size_t at = i * CHUNK;
    cudaMemcpyAsync(chunk, host + at, CHUNK * sizeof(float), cudaMemcpyHostToDevice, a);
    cudaEventRecord(loaded, a);
    cudaStreamWaitEvent(b, loaded, 0);
    cudaMemcpyAsync(back + at, chunk, CHUNK * sizeof(float), cudaMemcpyDeviceToHost, b);
  }
  cudaStreamSynchronize(b);
  cudaFree(dev);
  cudaFreeHost(host);
  cudaFreeHost(back);
}

// Two chunks per step of two: iteration i touches elements [i*CHUNK, (i+2)*CHUNK),
// and the next iteration starts two chunks on.
void step_of_two() {
  float* base;
  cudaMalloc(&base, NCHUNKS * CHUNK * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEvent_t done;
  cudaEventCreate(&done);
  for (int i = 0; i < NCHUNKS; i += 2) {
    cudaMemsetAsync(base + i * CHUNK, 0, 2 * CHUNK * sizeof(float), a);
    cudaEventRecord(done, a);
    cudaStreamWaitEvent(b, done, 0);
    cudaMemsetAsync(base + i * CHUNK, 1, 2 * CHUNK * sizeof(float), b);
  }
  cudaDeviceSynchronize();
  cudaFree(base);
}

// The pipeline in a helper that main calls once.
void pipeline(float* base, float* out) {
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  for (int i = 0; i < NCHUNKS; i++) {
    produce<<<CHUNK / 256, 256, 0, a>>>(base + i * CHUNK, CHUNK);
    cudaEventRecord(done, a);
    cudaStreamWaitEvent(b, done, 0);
    consume<<<CHUNK / 256, 256, 0, b>>>(base + i * CHUNK, out + i * CHUNK, CHUNK);
  }
  cudaDeviceSynchronize();
}

int main() {
  kernels_inline();
  copies_through_a_local();
  step_of_two();
  float *base, *out;
  cudaMalloc(&base, NCHUNKS * CHUNK * sizeof(float));
  cudaMalloc(&out, NCHUNKS * CHUNK * sizeof(float));
  pipeline(base, out);
  cudaFree(base);
  cudaFree(out);
  return 0;
}
