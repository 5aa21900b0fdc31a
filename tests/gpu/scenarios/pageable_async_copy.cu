// cudaMemcpyAsync with pageable host memory while the stream is busy.
// fixed: copies *from* pageable memory, each source overwritten right after the
// call, then checks that the device got the values from before the call: the
// observation rules/docs/pageable-async-copy.md follows (exit 4 if a driver
// ever reads the source later, so the suite shows it). The destination is read
// after a synchronize.
// racy: a copy *into* pageable memory read without synchronizing: correct only
// if the copy happened to run synchronously (pageable-async-copy).
#include <vector>

#include "common.cuh"

__global__ void first_word(const float* in, float* out) { *out = *in; }

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float *busy, *d, *word;
  const size_t largest = size_t(64) << 20;
  CHECK(cudaMalloc(&busy, sizeof(float)));
  CHECK(cudaMalloc(&d, largest));
  CHECK(cudaMalloc(&word, sizeof(float)));
  if (racy) {
    std::vector<float> host(kN, 0.0f);
    CHECK(cudaMemsetAsync(d, 0, kN * sizeof(float), s));
    spin_then_fill<<<1, 1, 0, s>>>(busy, 20'000'000, 1);
    CHECK(cudaMemcpyAsync(host.data(), d, kN * sizeof(float), cudaMemcpyDeviceToHost, s));
    first_word<<<1, 1, 0, s>>>(d, word);  // more work instead of a synchronize
    std::printf("first value %f\n", host[0]);
    CHECK(cudaStreamSynchronize(s));
    return 0;
  }
  for (size_t bytes : {size_t(28), size_t(4096), size_t(1) << 20, largest}) {
    std::vector<float> host(bytes / sizeof(float) + 1, 1.0f);
    spin_then_fill<<<1, 1, 0, s>>>(busy, 200'000'000, 1);  // about 0.1 s: the copy waits behind it
    CHECK(cudaMemcpyAsync(d, host.data(), bytes, cudaMemcpyHostToDevice, s));
    host[0] = 2.0f;  // after the call: must not reach the device
    first_word<<<1, 1, 0, s>>>(d, word);
    float seen = 0;
    CHECK(cudaMemcpyAsync(&seen, word, sizeof seen, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    if (seen != 1.0f) {
      std::fprintf(stderr, "pageable copy of %zu bytes read its source after returning (device saw %f)\n", bytes,
                   seen);
      return 4;
    }
  }
  return 0;
}
