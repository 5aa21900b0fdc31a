// The racy twins of timing_nonnull_allocator_clean: the pointer the helper
// tests may be NULL (plain malloc, an allocator that reports a failure and
// returns anyway, a pointer set to NULL on one path), so forward() may return
// with its kernels still queued, and the clock read after it times them.
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

static void* logged_malloc(size_t n) {
  void* p = malloc(n);
  if (p == NULL) fprintf(stderr, "out of memory\n");  // and returns NULL
  return p;
}

struct Model { float* act; float* loss; int* d_tok; int* d_tgt; float* h_loss; int n; };

static void forward(Model* m, const int* inputs, const int* targets) {
  cudaMemcpy(m->d_tok, inputs, m->n * sizeof(int), cudaMemcpyHostToDevice);
  embed<<<(m->n + 255) / 256, 256>>>(m->act, m->d_tok, m->n);
  if (targets != NULL) {
    cudaMemcpy(m->d_tgt, targets, m->n * sizeof(int), cudaMemcpyHostToDevice);
    loss_kernel<<<(m->n + 255) / 256, 256>>>(m->loss, m->act, m->d_tgt, m->n);
    cudaMemcpy(m->h_loss, m->loss, m->n * sizeof(float), cudaMemcpyDeviceToHost);  // waits
  }
}

// Each times one forward() pass between two clock reads.
void unchecked_malloc(Model* m, const int* inputs) {
  int* targets = (int*)malloc(m->n * sizeof(int));
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  forward(m, inputs, targets);
  clock_gettime(CLOCK_MONOTONIC, &end);  // expected-warning:3{{unsynchronized-timing}}{{kernel `embed`}}
  printf("%ld\n", end.tv_nsec - start.tv_nsec);
  free(targets);
}

void allocator_that_returns_null(Model* m, const int* inputs) {
  int* targets = (int*)logged_malloc(m->n * sizeof(int));
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  forward(m, inputs, targets);
  clock_gettime(CLOCK_MONOTONIC, &end);  // expected-warning:3{{unsynchronized-timing}}{{kernel `embed`}}
  printf("%ld\n", end.tv_nsec - start.tv_nsec);
  free(targets);
}

void null_on_one_path(Model* m, const int* inputs, bool eval_only) {
  int* targets = (int*)malloc(m->n * sizeof(int));
  if (targets == NULL) exit(1);
  int* kept = targets;
  if (eval_only) targets = NULL;
  struct timespec start, end;
  clock_gettime(CLOCK_MONOTONIC, &start);
  forward(m, inputs, targets);
  clock_gettime(CLOCK_MONOTONIC, &end);  // expected-warning:3{{unsynchronized-timing}}{{kernel `embed`}}
  printf("%ld\n", end.tv_nsec - start.tv_nsec);
  free(kept);
}

int main(int argc, char**) {
  Model m;
  m.n = 1024;
  cudaMalloc(&m.act, m.n * sizeof(float));
  cudaMalloc(&m.loss, m.n * sizeof(float));
  cudaMalloc(&m.d_tok, m.n * sizeof(int));
  cudaMalloc(&m.d_tgt, m.n * sizeof(int));
  cudaMallocHost(&m.h_loss, m.n * sizeof(float));
  int inputs[1024] = {};
  unchecked_malloc(&m, inputs);
  allocator_that_returns_null(&m, inputs);
  null_on_one_path(&m, inputs, argc > 1);
  return 0;
}
