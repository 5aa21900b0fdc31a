// A vector a helper filled with cudaMemcpyAsync and returned is the caller's
// (`auto ids = t.to_vector(s)`): handing its data to a function the lint does
// not see into (a CPU index's virtual lookup, faiss's
// IVFFlat::searchPreassigned) and letting it go out of scope before
// synchronizing frees memory the staged copy may still write (racy), as for a
// vector the caller filled itself. Synchronizing first, or returning the
// vector on to the caller's caller, is fine (fixed).
#include <cuda_runtime.h>
#include <vector>

struct CpuIndex {
  virtual void lookup(const long* ids, int n, float* out) const = 0;
};

struct Ids {
  long* data = nullptr;
  int n = 0;

  std::vector<long> to_vector(cudaStream_t s) const {
    std::vector<long> out(n);
    cudaMemcpyAsync(out.data(), data, n * sizeof(long), cudaMemcpyDeviceToHost, s);
    return out;
  }
};

void racy_lookup(const CpuIndex& index, const Ids& assigned, float* out, cudaStream_t s) {
  auto ids = assigned.to_vector(s);  // expected-warning:14{{pageable-async-copy}}{{into pageable host memory `out`}}
  index.lookup(ids.data(), assigned.n, out);
}

void fixed_lookup(const CpuIndex& index, const Ids& assigned, float* out, cudaStream_t s) {
  auto ids = assigned.to_vector(s);
  cudaStreamSynchronize(s);
  index.lookup(ids.data(), assigned.n, out);
}

std::vector<long> fixed_pass_on(const Ids& assigned, cudaStream_t s) {
  auto ids = assigned.to_vector(s);
  return ids;
}
