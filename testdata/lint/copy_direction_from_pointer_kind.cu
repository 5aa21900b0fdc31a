// A growable device array's append picks the copy's direction by asking where
// the source lives (faiss's DeviceVector::append): host-to-device for host
// memory, device-to-device otherwise; a copy-out helper asks the same of its
// destination. The lint cannot follow the query, so it walks both branches.
// A pageable host buffer (a std::vector) on the side the kind says is the
// device's makes a call whose pointers do not match its direction, which CUDA
// leaves undefined ("Calling cudaMemcpyAsync() with dst and src pointers that
// do not match the direction of the copy results in an undefined behavior"):
// not a stream-ordered access of the vector. On the branch that can run, the
// staged copy has read the vector when it returns, so the vector may go out
// of scope right after (fixed); a copy into the vector is the documented
// pageable-async-copy hazard when the host reads it unsynchronized, and only
// that (racy). A pinned staging buffer is read by the copy in stream order,
// and a device buffer too: overwriting or freeing either before the stream is
// done is still reported (racy).
#include <cuda_runtime.h>
#include <cstdint>
#include <vector>

int where_is(const void* p) {
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return attr.type == cudaMemoryTypeDevice ? attr.device : -1;
}

struct Growable {
  uint8_t* data = nullptr;
  size_t used = 0;

  void copy_out(uint8_t* dst, cudaStream_t s) const {
    if (where_is(dst) == -1) {
      cudaMemcpyAsync(dst, data, used, cudaMemcpyDeviceToHost, s);
    } else {
      cudaMemcpyAsync(dst, data, used, cudaMemcpyDeviceToDevice, s);
    }
  }

  void append(const uint8_t* src, size_t n, cudaStream_t s) {
    if (where_is(src) == -1) {
      cudaMemcpyAsync(data + used, src, n, cudaMemcpyHostToDevice, s);
    } else {
      cudaMemcpyAsync(data + used, src, n, cudaMemcpyDeviceToDevice, s);
    }
    used += n;
  }
};

void fixed_append_from_vector(Growable& list, const int* ids, int count, cudaStream_t s) {
  std::vector<int> narrowed(count);
  for (int i = 0; i < count; ++i) narrowed[i] = ids[i];
  list.append(reinterpret_cast<const uint8_t*>(narrowed.data()), count * sizeof(int), s);
}

void fixed_append_then_reuse_vector(Growable& list, cudaStream_t s) {
  std::vector<uint8_t> codes(256, 1);
  list.append(codes.data(), codes.size(), s);
  codes.assign(256, 2);
  list.append(codes.data(), codes.size(), s);
}

void racy_append_from_pinned_staging(Growable& list, cudaStream_t s) {
  uint8_t* staging;
  cudaMallocHost(&staging, 256);
  for (int i = 0; i < 256; ++i) staging[i] = 1;
  list.append(staging, 256, s);
  staging[0] = 2;  // expected-warning:3{{host-device-race}}
  cudaStreamSynchronize(s);
  cudaFreeHost(staging);
}

void racy_append_from_device_scratch(Growable& list, cudaStream_t s) {
  cudaStream_t other;
  cudaStreamCreate(&other);
  uint8_t* scratch;
  cudaMallocAsync(&scratch, 256, other);
  cudaMemsetAsync(scratch, 0, 256, other);
  cudaStreamSynchronize(other);
  list.append(scratch, 256, s);
  cudaFreeAsync(scratch, other);  // expected-warning:3{{free-while-in-use}}
  cudaStreamSynchronize(s);
}

int fixed_copy_out_then_synchronize(const Growable& list, cudaStream_t s) {
  std::vector<uint8_t> host(list.used);
  list.copy_out(host.data(), s);
  cudaStreamSynchronize(s);
  return host[0];
}

int racy_copy_out_read_at_once(const Growable& list, cudaStream_t s) {
  std::vector<uint8_t> host(list.used);
  list.copy_out(host.data(), s);  // expected-warning:3{{pageable-async-copy}}
  return host[0];
}
