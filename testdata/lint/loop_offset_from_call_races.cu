// The racy twins of loop_offset_from_call_clean: per-iteration pointers the
// lint cannot compare across iterations still race within one iteration, and
// a pointer that does not move with the counter (a call that does not read
// it) still meets the previous iteration's work.
#include <cuda_runtime.h>
#include <cstddef>

__global__ void apply(float* p, size_t n) { size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (k < n) p[k] -= 1.f; }
__global__ void gather(const float* src, float* dst, size_t n) { size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (k < n) dst[k] = src[k]; }

struct Shard { ptrdiff_t offset; size_t size; };
struct Model { size_t sizes[16]; float* params; float* full; int layers; int current; };

Shard tensor_at(const Model* m, int id) {
  ptrdiff_t off = 0;
  for (int i = 0; i < id; i++) off += (ptrdiff_t)m->sizes[i];
  return {off, m->sizes[id]};
}
Shard current_tensor(const Model* m) { return tensor_at(m, m->current); }

cudaStream_t main_stream, comm_stream;

// No event: the gather reads the tensor the apply of the same iteration may still write.
void update(Model* m, bool sharded) {
  for (int i = 0; i < 16; i++) {
    Shard t = tensor_at(m, i);
    float* p = m->params + t.offset;
    apply<<<1, 256, 0, main_stream>>>(p, t.size);
    if (sharded) {
      gather<<<1, 256, 0, comm_stream>>>(p, m->full + t.offset, t.size);  // expected-warning:7{{cross-stream-race}}{{read-after-write race: kernel `gather` on stream `comm_stream` reads `p`}}
    }
  }
  cudaDeviceSynchronize();
}

// Through a helper, with the layers gathered in a loop inside the body:
// the finding is update_through_helper's, told once in its lines.
void launch_apply(float* params, size_t n, cudaStream_t s) { apply<<<1, 256, 0, s>>>(params, n); }

void update_through_helper(Model* m) {
  for (int i = 0; i < 16; i++) {
    Shard t = tensor_at(m, i);
    float* p = m->params + t.offset;
    launch_apply(p, t.size, main_stream);
    for (int l = 0; l < m->layers; l++) {
      gather<<<1, 256, 0, comm_stream>>>(p + l * t.size, m->full + l * t.size, t.size);  // expected-warning:7{{cross-stream-race}}{{read-after-write race: kernel `gather` on stream `comm_stream` reads `p + l * t.size`}}
    }
  }
  cudaDeviceSynchronize();
}

// The tensor does not change with the counter: iteration i+1's apply writes
// what iteration i's gather may still read.
void same_tensor_each_iteration(Model* m) {
  for (int i = 0; i < 16; i++) {
    Shard t = current_tensor(m);
    float* p = m->params + t.offset;
    apply<<<1, 256, 0, main_stream>>>(p, t.size);  // expected-warning:5{{cross-stream-race}}{{write-after-read}}
    cudaStreamSynchronize(main_stream);
    gather<<<1, 256, 0, comm_stream>>>(p, m->full, t.size);
  }
  cudaDeviceSynchronize();
}

// Offsets from a table: the same iteration's pair is not ordered.
void by_table(float* base, float* out, const ptrdiff_t* offsets, size_t n) {
  for (int i = 0; i < 8; i++) {
    apply<<<1, 256, 0, main_stream>>>(base + offsets[i], n);
    gather<<<1, 256, 0, comm_stream>>>(base + offsets[i], out, n);  // expected-warning:5{{cross-stream-race}}{{read-after-write}}
  }
  cudaDeviceSynchronize();
}

int main(int argc, char**) {
  Model m;
  m.layers = 4;
  m.current = 0;
  for (int i = 0; i < 16; i++) m.sizes[i] = 1024;
  cudaMalloc(&m.params, 16 * 1024 * sizeof(float));
  cudaMalloc(&m.full, 16 * 1024 * sizeof(float));
  cudaStreamCreate(&main_stream);
  cudaStreamCreate(&comm_stream);
  update(&m, argc > 1);
  update_through_helper(&m);
  same_tensor_each_iteration(&m);
  ptrdiff_t offsets[8] = {0, 1024, 2048, 3072, 4096, 5120, 6144, 7168};
  by_table(m.params, m.full, offsets, 1024);
  cudaFree(m.params);
  cudaFree(m.full);
  return 0;
}
