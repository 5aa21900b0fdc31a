// known-false: 33:26 host-device-race
// A false warning the lint still gives (shape of NVIDIA Warp's
// volume_builder.cu:907-911, own code). A copy helper copies on the "current
// stream" when given none; its caller synchronizes the stream another getter
// returned, which is that same current stream, and then reads.
// What streamcheck lint reports: host-device-race at the read (the copy on
// `current_stream()` may still write). Why it is wrong: both getters return
// g_current; the lint keys a stream a getter of several statements returns
// by the call's text, so `stream_get_current()` and `current_stream()` are
// two streams to it. Telling so needs the getters' returned values followed.
#include <cuda_runtime.h>

static cudaStream_t g_current;

static cudaStream_t current_stream() {
  if (g_current == nullptr) cudaStreamCreateWithFlags(&g_current, cudaStreamNonBlocking);
  return g_current;
}

void* stream_get_current() { return current_stream(); }

bool memcpy_d2h(void* dst, const void* src, size_t n, void* stream = nullptr) {
  cudaStream_t s = stream != nullptr ? static_cast<cudaStream_t>(stream) : current_stream();
  return cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, s) == cudaSuccess;
}

unsigned read_counts(const unsigned* d_counts) {
  unsigned* h_counts;
  cudaMallocHost(&h_counts, 4 * sizeof(unsigned));
  cudaStream_t stream = static_cast<cudaStream_t>(stream_get_current());
  memcpy_d2h(h_counts, d_counts, 4 * sizeof(unsigned));
  cudaStreamSynchronize(stream);
  const unsigned first = h_counts[0];
  cudaFreeHost(h_counts);
  return first;
}
