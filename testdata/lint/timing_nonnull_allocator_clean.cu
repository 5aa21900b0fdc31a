// A timer after a helper that synchronizes only when a pointer is not NULL,
// called with memory from an allocator that exits on NULL (the shape of
// llm.c's train_gpt2_fp32.cu: the validation forward passes before the step
// timer), own code. forward() ends with a blocking device-to-host cudaMemcpy
// whenever `targets` is not NULL; by CUDA's API synchronization behavior it
// returns only after the copy completed, and on the legacy default stream it
// runs after every kernel issued before it. checked_malloc() never returns
// NULL (it exits instead), so at the `start` clock no GPU work can be
// running. The lint knows the pointer not null past checked_malloc's test
// (known_values.h) and warns of nothing.
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <ctime>

__global__ void embed(float* act, const int* tok, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) act[k] = (float)tok[k];
}
__global__ void loss_kernel(float* loss, const float* act, const int* tgt, int n) {
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k < n) loss[k] = act[k] - (float)tgt[k];
}

static void* checked_malloc(size_t n) {
  void* p = malloc(n);
  if (p == NULL) { fprintf(stderr, "out of memory\n"); exit(1); }
  return p;
}

struct Model { float* act; float* loss; int* d_tok; int* d_tgt; float* h_loss; int n; };
struct Loader { int* inputs; int* targets; };

static void forward(Model* m, const int* inputs, const int* targets) {
  cudaMemcpy(m->d_tok, inputs, m->n * sizeof(int), cudaMemcpyHostToDevice);
  embed<<<(m->n + 255) / 256, 256>>>(m->act, m->d_tok, m->n);
  if (targets != NULL) {
    cudaMemcpy(m->d_tgt, targets, m->n * sizeof(int), cudaMemcpyHostToDevice);
    loss_kernel<<<(m->n + 255) / 256, 256>>>(m->loss, m->act, m->d_tgt, m->n);
    cudaMemcpy(m->h_loss, m->loss, m->n * sizeof(float), cudaMemcpyDeviceToHost);  // waits
  }
}

int main() {
  Model m;
  m.n = 1024;
  cudaMalloc(&m.act, m.n * sizeof(float));
  cudaMalloc(&m.loss, m.n * sizeof(float));
  cudaMalloc(&m.d_tok, m.n * sizeof(int));
  cudaMalloc(&m.d_tgt, m.n * sizeof(int));
  cudaMallocHost(&m.h_loss, m.n * sizeof(float));
  Loader val;
  val.inputs = (int*)checked_malloc(m.n * sizeof(int));
  val.targets = (int*)checked_malloc(m.n * sizeof(int));
  for (int i = 0; i < m.n; i++) { val.inputs[i] = i; val.targets[i] = i; }

  struct timespec start, end;
  for (int step = 0; step < 10; step++) {
    if (step % 5 == 0) {
      forward(&m, val.inputs, val.targets);  // ends with a blocking D2H copy
      printf("val loss %f\n", m.h_loss[0]);
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    forward(&m, val.inputs, val.targets);
    cudaDeviceSynchronize();
    clock_gettime(CLOCK_MONOTONIC, &end);
    printf("step %d: %f ms\n", step,
           (end.tv_sec - start.tv_sec) * 1e3 + (end.tv_nsec - start.tv_nsec) / 1e6);
  }
  cudaFreeHost(m.h_loss);
  cudaFree(m.act); cudaFree(m.loss); cudaFree(m.d_tok); cudaFree(m.d_tgt);
  free(val.inputs); free(val.targets);
  return 0;
}
