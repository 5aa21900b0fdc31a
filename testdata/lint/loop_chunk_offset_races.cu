// The racy twins of loop_chunk_offset_clean: chunked pipelines over two streams
// where iterations do meet on the same bytes, or one iteration's pair is not ordered.
#include <cuda_runtime.h>

constexpr int CHUNK = 1 << 16;
constexpr int NCHUNKS = 8;

__global__ void produce(float* x, int n) { int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < n) x[k] = k; }
__global__ void consume(const float* x, float* y, int n) { int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < n) y[k] = 2 * x[k]; }

// No event: b reads the chunk a is still writing in the same iteration.
void same_iteration_unordered() {
  float *base, *out;
  cudaMalloc(&base, NCHUNKS * CHUNK * sizeof(float));
  cudaMalloc(&out, NCHUNKS * CHUNK * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  for (int i = 0; i < NCHUNKS; i++) {
    produce<<<CHUNK / 256, 256, 0, a>>>(base + i * CHUNK, CHUNK);
    consume<<<CHUNK / 256, 256, 0, b>>>(base + i * CHUNK, out + i * CHUNK, CHUNK);  // expected-warning:5{{cross-stream-race}}{{read-after-write}}
  }
  cudaDeviceSynchronize();
  cudaFree(base);
  cudaFree(out);
}

// The offset moves by half a chunk while each access is a whole chunk:
// iteration i+1's write on a covers the second half of what iteration i's copy
// on b may still read.
void stride_smaller_than_access() {
  float *base, *out;
  cudaMalloc(&base, (NCHUNKS + 1) * CHUNK * sizeof(float));
  cudaMalloc(&out, NCHUNKS * CHUNK * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  for (int i = 0; i < 2 * NCHUNKS; i++) {
    cudaMemsetAsync(base + i * (CHUNK / 2), 0, CHUNK * sizeof(float), a);  // expected-warning:5{{cross-stream-race}}{{write-after-read}}
    cudaEventRecord(done, a);
    cudaStreamWaitEvent(b, done, 0);
    cudaMemcpyAsync(out, base + i * (CHUNK / 2), CHUNK * sizeof(float), cudaMemcpyDeviceToDevice, b);
  }
  cudaDeviceSynchronize();
  cudaFree(base);
  cudaFree(out);
}

// Iteration i reads chunk i + 1 on b, which iteration i + 1 overwrites on a
// with nothing ordering a after b.
void reads_the_next_chunk() {
  float *base, *out;
  cudaMalloc(&base, (NCHUNKS + 1) * CHUNK * sizeof(float));
  cudaMalloc(&out, NCHUNKS * CHUNK * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  for (int i = 0; i < NCHUNKS; i++) {
    produce<<<CHUNK / 256, 256, 0, a>>>(base + i * CHUNK, CHUNK);  // expected-warning:5{{cross-stream-race}}{{write-after-read}}
    cudaEventRecord(done, a);
    cudaStreamWaitEvent(b, done, 0);
    consume<<<CHUNK / 256, 256, 0, b>>>(base + (i + 1) * CHUNK, out + i * CHUNK, CHUNK);
  }
  cudaDeviceSynchronize();
  cudaFree(base);
  cudaFree(out);
}

// Iteration i reads chunk i - 1 on b, written by iteration i - 1 on a; nothing
// orders b after a.
void reads_the_previous_chunk() {
  float *base, *out;
  cudaMalloc(&base, NCHUNKS * CHUNK * sizeof(float));
  cudaMalloc(&out, NCHUNKS * CHUNK * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  for (int i = 1; i < NCHUNKS; i++) {
    produce<<<CHUNK / 256, 256, 0, a>>>(base + i * CHUNK, CHUNK);
    consume<<<CHUNK / 256, 256, 0, b>>>(base + (i - 1) * CHUNK, out + i * CHUNK, CHUNK);  // expected-warning:5{{cross-stream-race}}{{read-after-write}}
  }
  cudaDeviceSynchronize();
  cudaFree(base);
  cudaFree(out);
}

// The ordered pipeline run twice with nothing between the runs: the second
// run's iteration 0 writes chunk 0 on a while the first run's may still read it on b.
void pipeline_run_again() {
  float *base, *out;
  cudaMalloc(&base, NCHUNKS * CHUNK * sizeof(float));
  cudaMalloc(&out, NCHUNKS * CHUNK * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  for (int rep = 0; rep < 2; rep++) {
    for (int i = 0; i < NCHUNKS; i++) {
      produce<<<CHUNK / 256, 256, 0, a>>>(base + i * CHUNK, CHUNK);  // expected-warning:7{{cross-stream-race}}{{write-after-read}}
      cudaEventRecord(done, a);
      cudaStreamWaitEvent(b, done, 0);
      consume<<<CHUNK / 256, 256, 0, b>>>(base + i * CHUNK, out + i * CHUNK, CHUNK);
    }
  }
  cudaDeviceSynchronize();
  cudaFree(base);
  cudaFree(out);
}

// The same pipeline in a helper called in a loop (reported in the helper, at the call's note).
void pipeline(float* base, float* out, cudaStream_t a, cudaStream_t b, cudaEvent_t done) {
  for (int i = 0; i < NCHUNKS; i++) {
    produce<<<CHUNK / 256, 256, 0, a>>>(base + i * CHUNK, CHUNK);  // expected-warning:5{{cross-stream-race}}{{write-after-read}}
    cudaEventRecord(done, a);
    cudaStreamWaitEvent(b, done, 0);
    consume<<<CHUNK / 256, 256, 0, b>>>(base + i * CHUNK, out + i * CHUNK, CHUNK);
  }
}

void helper_called_in_a_loop() {
  float *base, *out;
  cudaMalloc(&base, NCHUNKS * CHUNK * sizeof(float));
  cudaMalloc(&out, NCHUNKS * CHUNK * sizeof(float));
  cudaStream_t a, b;
  cudaStreamCreate(&a);
  cudaStreamCreate(&b);
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
  for (int step = 0; step < 3; step++) {
    pipeline(base, out, a, b, done);
  }
  cudaDeviceSynchronize();
  cudaFree(base);
  cudaFree(out);
}

int main() {
  same_iteration_unordered();
  stride_smaller_than_access();
  reads_the_next_chunk();
  reads_the_previous_chunk();
  pipeline_run_again();
  helper_called_in_a_loop();
  return 0;
}
