// RAII wrappers around a stream and an event, used through accessors and an
// implicit conversion to cudaStream_t: the wrapped handles are followed
// through get() and operator cudaStream_t(), so two wrapped streams are two
// streams (each made by its constructor) and a wrapped event orders them.
#include <cuda_runtime.h>

__global__ void produce(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = i; }
__global__ void consume(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 2 * in[i]; }

class Stream {
 public:
  Stream() { cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking); }
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }

 private:
  cudaStream_t s_;
};

class Event {
 public:
  Event() { cudaEventCreateWithFlags(&e_, cudaEventDisableTiming); }
  void record(cudaStream_t s) { cudaEventRecord(e_, s); }
  void block(cudaStream_t s) { cudaStreamWaitEvent(s, e_, 0); }

 private:
  cudaEvent_t e_;
};

void racy(float* a, float* b, int n) {
  Stream producer, consumer;
  produce<<<4, 256, 0, producer.get()>>>(a, n);
  consume<<<4, 256, 0, consumer>>>(a, b, n);  // expected-warning:3{{cross-stream-race}}
  cudaDeviceSynchronize();
}

void fixed(float* a, float* b, int n) {
  Stream producer, consumer;
  Event produced;
  produce<<<4, 256, 0, producer.get()>>>(a, n);
  produced.record(producer);
  produced.block(consumer);
  consume<<<4, 256, 0, consumer>>>(a, b, n);
  cudaDeviceSynchronize();
}
