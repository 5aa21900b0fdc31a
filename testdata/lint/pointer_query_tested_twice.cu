// Two helpers that each ask where one pointer lives (faiss's Tensor::copyFrom
// and copyToVector, both through getDeviceForAddress) decide alike: a copy
// whose kind is host-to-host when the pointer is host memory is done when it
// returns (CUDA: "fully synchronous with respect to the host"), so the host
// path of the second helper, taken only for host memory, reads nothing
// pending; for device memory the second helper copies on the same stream
// (fixed). Asked of another pointer, or of the same name after it was
// pointed elsewhere, the answers are not known to agree (racy). A function
// that also reads a global is no such query (racy).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

// -1 for host memory, else the device it lives on.
int device_of(const void* p) {
  if (!p) return -1;
  cudaPointerAttributes att;
  cudaError_t err = cudaPointerGetAttributes(&att, p);
  if (err == cudaErrorInvalidValue) {
    err = cudaGetLastError();
    if (err != cudaErrorInvalidValue) {
      fprintf(stderr, "unknown error %d\n", (int)err);
      abort();
    }
    return -1;
  }
  return att.type == cudaMemoryTypeDevice ? att.device : -1;
}

int g_fallback_device = 0;

// Answers from a global that may change between two calls.
int device_or_fallback(const void* p) {
  cudaPointerAttributes att;
  if (cudaPointerGetAttributes(&att, p) != cudaSuccess) return g_fallback_device;
  return att.type == cudaMemoryTypeDevice ? att.device : -1;
}

struct Buffer {
  float* data_;
  size_t n_;

  void copy_from(const std::vector<float>& v, cudaStream_t s) {
    int dev = device_of(data_);
    cudaMemcpyAsync(data_, v.data(), n_ * sizeof(float), dev == -1 ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice,
                    s);
  }

  std::vector<float> copy_to_vector(cudaStream_t s) {
    std::vector<float> out(n_);
    int dev = device_of(data_);
    if (dev == -1) {
      std::memcpy(out.data(), data_, n_ * sizeof(float));
    } else {
      cudaMemcpyAsync(out.data(), data_, n_ * sizeof(float), cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
    }
    return out;
  }

  void point_elsewhere(float* to);  // defined in another file
};

std::vector<float> fixed_same_buffer(Buffer& b, const std::vector<float>& v, cudaStream_t s) {
  b.copy_from(v, s);
  return b.copy_to_vector(s);
}

// Reads `p` on the host when `probe` is host memory.
void read_back(float* out, const float* p, const float* probe, size_t n, cudaStream_t s);

// `b.data_` device memory, then pointed at host memory `h` by a method the
// lint does not see into: the host reads the old memory under the copy.
void racy_buffer_repointed(Buffer& b, const std::vector<float>& v, float* h, float* out, cudaStream_t s) {
  float* d = b.data_;
  b.copy_from(v, s);
  b.point_elsewhere(h);
  read_back(out, d, b.data_, b.n_, s);  // expected-warning:3{{host-device-race}}
}

void fixed_buffer_asked_again(Buffer& b, const std::vector<float>& v, float* out, cudaStream_t s) {
  float* d = b.data_;
  b.copy_from(v, s);
  read_back(out, d, b.data_, b.n_, s);
}

// The copy's kind chosen by asking about `probe`.
void upload(float* dst, const float* src, const float* probe, size_t n, cudaStream_t s) {
  int dev = device_of(probe);
  cudaMemcpyAsync(dst, src, n * sizeof(float), dev == -1 ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice, s);
}

void read_back(float* out, const float* p, const float* probe, size_t n, cudaStream_t s) {
  int dev = device_of(probe);
  if (dev == -1) {
    std::memcpy(out, p, n * sizeof(float));
  } else {
    cudaMemcpyAsync(out, p, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
  }
}

void fixed_same_pointer(float* d, const float* src, float* out, size_t n, cudaStream_t s) {
  upload(d, src, d, n, s);
  read_back(out, d, d, n, s);
}

// `probe` host memory and `d` device memory: the host reads `d` under the copy.
void racy_other_pointer(float* d, const float* src, const float* probe, float* out, size_t n, cudaStream_t s) {
  upload(d, src, d, n, s);
  read_back(out, d, probe, n, s);  // expected-warning:3{{host-device-race}}
}

void retarget(const float*& p, const float* to) { p = to; }

void racy_pointer_changed(float* d, const float* src, const float* h, float* out, size_t n, cudaStream_t s) {
  const float* p = d;
  upload(d, src, p, n, s);
  p = h;
  read_back(out, d, p, n, s);  // expected-warning:3{{host-device-race}}
}

void racy_pointer_changed_in_helper(float* d, const float* src, const float* h, float* out, size_t n,
                                    cudaStream_t s) {
  const float* p = d;
  upload(d, src, p, n, s);
  retarget(p, h);
  read_back(out, d, p, n, s);  // expected-warning:3{{host-device-race}}
}

// Asks through its parameter `p` after pointing it at `next`: the answer is
// `next`'s, not that of the argument `p` was given.
void upload_stepped(float* dst, const float* src, const float* p, const float* next, size_t n, cudaStream_t s) {
  p = next;
  upload(dst, src, p, n, s);
}

// `x` host memory, `y` device memory: the copy into `d` went by `y`'s answer
// and is pending when the host path, by `x`'s, reads `d`.
void racy_parameter_stepped(float* d, const float* src, const float* x, const float* y, float* out, size_t n,
                            cudaStream_t s) {
  upload_stepped(d, src, x, y, n, s);
  read_back(out, d, x, n, s);  // expected-warning:3{{host-device-race}}
}

void upload_or_fallback(float* dst, const float* src, size_t n, cudaStream_t s) {
  int dev = device_or_fallback(dst);
  cudaMemcpyAsync(dst, src, n * sizeof(float), dev == -1 ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice, s);
}

void read_back_or_fallback(float* out, const float* p, size_t n, cudaStream_t s) {
  int dev = device_or_fallback(p);
  if (dev == -1) {
    std::memcpy(out, p, n * sizeof(float));
  } else {
    cudaMemcpyAsync(out, p, n * sizeof(float), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
  }
}

void racy_not_a_query(float* d, const float* src, float* out, size_t n, cudaStream_t s) {
  upload_or_fallback(d, src, n, s);
  read_back_or_fallback(out, d, n, s);  // expected-warning:3{{host-device-race}}
}

// An async host-to-host copy is the host's read and write in the call, done
// when it returns ("fully synchronous with respect to the host"), not
// ordered after the stream's work; a device-to-host one is stream work.
__global__ void fill(float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i;
}

float fixed_host_to_host(float* dst, const float* h, cudaStream_t s) {
  cudaMemcpyAsync(dst, h, 4096, cudaMemcpyHostToHost, s);
  return dst[0];
}

float racy_host_to_host_after_kernel(float* dst, float* pinned, cudaStream_t s) {
  fill<<<4, 256, 0, s>>>(pinned, 1024);
  cudaMemcpyAsync(dst, pinned, 4096, cudaMemcpyHostToHost, s);  // expected-warning:3{{host-device-race}}{{reads `pinned` while kernel `fill`}}
  cudaStreamSynchronize(s);
  return dst[0];
}

float racy_device_to_host(float* dst, const float* d, cudaStream_t s) {
  cudaMemcpyAsync(dst, d, 4096, cudaMemcpyDeviceToHost, s);
  return dst[0];  // expected-warning:10{{host-device-race}}
}
