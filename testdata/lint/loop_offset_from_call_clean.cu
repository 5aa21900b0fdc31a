// Loops whose per-iteration pointer comes from a call of the counter (a
// tensor's offset looked up by index, as sharded optimizers do), from a table
// of offsets, or from the counter times a size known only at run time. Two
// iterations' pointers lie at a distance the lint cannot tell, so work of an
// earlier iteration is not taken to touch this iteration's bytes; within one
// iteration the pointer is compared as written, and here each iteration's
// pair is ordered. No warning is expected.
#include <cuda_runtime.h>
#include <cstddef>

__global__ void apply(float* p, size_t n) { size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (k < n) p[k] -= 1.f; }
__global__ void gather(const float* src, float* dst, size_t n) { size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; if (k < n) dst[k] = src[k]; }

struct Shard { ptrdiff_t offset; size_t size; };
struct Model { size_t sizes[16]; float* params; float* full; int layers; };

Shard tensor_at(const Model* m, int id) {
  ptrdiff_t off = 0;
  for (int i = 0; i < id; i++) off += (ptrdiff_t)m->sizes[i];
  return {off, m->sizes[id]};
}

cudaStream_t main_stream, comm_stream;
cudaEvent_t applied;

// Iteration i+1's `apply` on main_stream writes another tensor than iteration
// i's `gather` on comm_stream still reads: not reported. In one iteration the
// event orders the gather after the apply.
void update(Model* m) {
  for (int i = 0; i < 16; i++) {
    Shard t = tensor_at(m, i);
    float* p = m->params + t.offset;
    apply<<<1, 256, 0, main_stream>>>(p, t.size);
    cudaEventRecord(applied, main_stream);
    cudaStreamWaitEvent(comm_stream, applied, 0);
    gather<<<1, 256, 0, comm_stream>>>(p, m->full + t.offset, t.size);
  }
  cudaDeviceSynchronize();
}

// The same through a helper that launches on the pointer it is given, and
// the gathers of one tensor's layers in a loop inside the body.
void launch_apply(float* params, size_t n, cudaStream_t s) { apply<<<1, 256, 0, s>>>(params, n); }

void update_through_helper(Model* m) {
  for (int i = 0; i < 16; i++) {
    Shard t = tensor_at(m, i);
    ptrdiff_t offset = t.offset + 0;
    float* p = m->params + offset;
    launch_apply(p, t.size, main_stream);
    cudaEventRecord(applied, main_stream);
    cudaStreamWaitEvent(comm_stream, applied, 0);
    for (int l = 0; l < m->layers; l++) {
      gather<<<1, 256, 0, comm_stream>>>(p + l * t.size, m->full + t.offset + l * t.size, t.size);
    }
  }
  cudaDeviceSynchronize();
}

// Offsets from a table, and the counter times a size given at run time.
void by_table(float* base, float* out, const ptrdiff_t* offsets, size_t n) {
  for (int i = 0; i < 8; i++) {
    apply<<<1, 256, 0, main_stream>>>(base + offsets[i], n);
    cudaEventRecord(applied, main_stream);
    cudaStreamWaitEvent(comm_stream, applied, 0);
    gather<<<1, 256, 0, comm_stream>>>(base + offsets[i], out, n);
  }
  cudaDeviceSynchronize();
}

void by_runtime_size(float* base, float* out, size_t n) {
  for (int i = 0; i < 8; i++) {
    apply<<<1, 256, 0, main_stream>>>(base + i * n, n);
    cudaEventRecord(applied, main_stream);
    cudaStreamWaitEvent(comm_stream, applied, 0);
    gather<<<1, 256, 0, comm_stream>>>(base + i * n, out + i * n, n);
  }
  cudaDeviceSynchronize();
}

int main() {
  Model m;
  m.layers = 4;
  for (int i = 0; i < 16; i++) m.sizes[i] = 1024;
  cudaMalloc(&m.params, 16 * 1024 * sizeof(float));
  cudaMalloc(&m.full, 16 * 1024 * sizeof(float));
  cudaStreamCreate(&main_stream);
  cudaStreamCreate(&comm_stream);
  cudaEventCreateWithFlags(&applied, cudaEventDisableTiming);
  for (int step = 0; step < 3; step++) {
    update(&m);
    update_through_helper(&m);
  }
  ptrdiff_t offsets[8] = {0, 1024, 2048, 3072, 4096, 5120, 6144, 7168};
  by_table(m.params, m.full, offsets, 1024);
  by_runtime_size(m.params, m.full, 1024);
  cudaFree(m.params);
  cudaFree(m.full);
  return 0;
}
