// Worker threads each send a pinned buffer to the device, add one to it, and
// copy it back on a stream of their own, then leave the rest to a host
// function queued after the copy back (cudaStreamAddCallback on even
// workers, cudaLaunchHostFunc on odd ones), the shape of NVIDIA's
// simpleCallback sample. Fixed: the host function starts a thread that reads
// the buffer: CUDA runs the function once the copy back has completed, and
// the new thread is after the function. Racy: the worker starts that thread
// itself, right after queuing, while the stream is still busy. Each variant
// prints one fixed line (the runner compares it with an untraced run).
#include <pthread.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "common.cuh"

namespace {

constexpr int kWorkers = 4;
constexpr int kInts = 1024;

__global__ void add_one_slowly(int* data, long long ns, int n) {
  const long long start = clock64();
  while (clock64() - start < ns) {
  }
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) data[i] += 1;
}

struct Workload {
  int index = 0;
  int* host = nullptr;  // pinned
  int* device = nullptr;
  cudaStream_t stream = nullptr;
  pthread_t reader{};
  int first = 0;  // what the reader saw
};

std::mutex g_mutex;
std::condition_variable g_started;
int g_readers_started = 0;

void* ReadResult(void* arg) {
  auto* w = static_cast<Workload*>(arg);
  w->first = w->host[0];
  return nullptr;
}

void StartReader(Workload* w) {
  if (pthread_create(&w->reader, nullptr, ReadResult, w) != 0) std::exit(5);
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_readers_started;
  g_started.notify_all();
}

void CUDART_CB AfterRoundTrip(cudaStream_t, cudaError_t status, void* arg) {
  if (status != cudaSuccess) std::exit(6);
  StartReader(static_cast<Workload*>(arg));
}

void CUDART_CB AfterRoundTripHostFunc(void* arg) { StartReader(static_cast<Workload*>(arg)); }

void RunWorker(Workload* w, bool racy) {
  CHECK(cudaMemcpyAsync(w->device, w->host, kInts * sizeof(int), cudaMemcpyHostToDevice, w->stream));
  add_one_slowly<<<4, 256, 0, w->stream>>>(w->device, 20000000, kInts);
  CHECK(cudaMemcpyAsync(w->host, w->device, kInts * sizeof(int), cudaMemcpyDeviceToHost, w->stream));
  if (racy) {
    StartReader(w);  // not after the copy back
    return;
  }
  if (w->index % 2 == 0)
    CHECK(cudaStreamAddCallback(w->stream, AfterRoundTrip, w, 0));
  else
    CHECK(cudaLaunchHostFunc(w->stream, AfterRoundTripHostFunc, w));
}

}  // namespace

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  std::vector<Workload> work(kWorkers);
  for (int i = 0; i < kWorkers; ++i) {
    Workload& w = work[i];
    w.index = i;
    CHECK(cudaMallocHost(&w.host, kInts * sizeof(int)));
    CHECK(cudaMalloc(&w.device, kInts * sizeof(int)));
    CHECK(cudaStreamCreateWithFlags(&w.stream, cudaStreamNonBlocking));
    for (int j = 0; j < kInts; ++j) w.host[j] = 10 * i;
  }
  std::vector<std::thread> workers;
  for (Workload& w : work) workers.emplace_back(RunWorker, &w, racy);
  for (std::thread& t : workers) t.join();
  {
    std::unique_lock<std::mutex> lock(g_mutex);
    g_started.wait(lock, [] { return g_readers_started == kWorkers; });
  }
  int sum = 0;
  for (Workload& w : work) {
    pthread_join(w.reader, nullptr);
    sum += w.first;
  }
  CHECK(cudaDeviceSynchronize());
  for (Workload& w : work) {
    CHECK(cudaStreamDestroy(w.stream));
    CHECK(cudaFree(w.device));
    CHECK(cudaFreeHost(w.host));
  }
  // What the racy readers saw depends on timing: only the fixed line says it.
  if (racy)
    std::printf("%d workloads post-processed\n", kWorkers);
  else
    std::printf("%d workloads post-processed, first values sum to %d\n", kWorkers, sum);
  return 0;
}
