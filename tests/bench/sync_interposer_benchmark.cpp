// What the preloaded library's pthread interposers (tracer/preload/) cost a
// program: run it as it is and with LD_PRELOAD=libstreamcheck_preload.so.
// Without a tracer the library only forwards (a process with no CUDA, or one
// before cuInit): BM_LockUnlock. BM_LockUnlockObserved* start it observing
// as the tracer would and give the thread a clock of its own (a thread that
// has made CUDA calls): the common case compares a tag; after the thread's
// knowledge changed, its first release of each object joins its clock into
// the object's stamp. BM_Handover is two threads passing a mutex and a
// condition variable back and forth: every acquire learns something.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <pthread.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "tracer/preload/thread_order.h"

namespace {

const streamcheck_thread_order_api* Library() {
  using Lookup = const streamcheck_thread_order_api* (*)();
  static auto lookup = reinterpret_cast<Lookup>(dlsym(RTLD_DEFAULT, "streamcheck_thread_order_api"));
  return lookup ? lookup() : nullptr;
}

// Observing, with the calling thread named as the tracer names a thread at its first record.
bool Observe(benchmark::State& state) {
  const streamcheck_thread_order_api* api = Library();
  if (api == nullptr) {
    state.SkipWithError("run with LD_PRELOAD=libstreamcheck_preload.so");
    return false;
  }
  api->activate(nullptr, 0);
  if (api->self()->id == 0) api->name(api->self(), 1);
  return true;
}

// Observing with `ranges` ignored code ranges in the address space's upper
// half (no code of ours), and, if `ignore_this_code`, this benchmark's own
// code ignored too. The library keeps ranges once added, so each case runs
// in a process of its own (--benchmark_filter).
bool ObserveInProcess(benchmark::State& state, int ranges, bool ignore_this_code) {
  if (!Observe(state)) return false;
  std::vector<streamcheck_code_range> ignored;
  for (int i = 0; i < ranges; ++i) {
    const uintptr_t begin = (uintptr_t{0x7f00} << 32) + uintptr_t(i) * 0x1000000;
    ignored.push_back({begin, begin + 0x800000});
  }
  Dl_info info{};
  if (ignore_this_code && dladdr(reinterpret_cast<void*>(&ObserveInProcess), &info) != 0) {
    const auto base = reinterpret_cast<uintptr_t>(info.dli_fbase);
    ignored.push_back({base, base + (uintptr_t{64} << 20)});
  }
  Library()->activate(ignored.data(), static_cast<int>(ignored.size()));
  return true;
}

// The thread synchronized after releasing: a new epoch (what the tracer takes before a sync's record).
void NewEpoch() {
  const streamcheck_thread_order_api* api = Library();
  streamcheck_thread_order* self = api->self();
  self->released = 1;
  uint32_t ended = 0;
  uint64_t deps[STREAMCHECK_ORDERED_THREADS];
  int n = 0;
  api->take(self, 1, &ended, deps, &n);
}

void LockUnlockLoop(benchmark::State& state) {
  std::mutex m;
  for (auto _ : state) {
    m.lock();
    m.unlock();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_LockUnlock(benchmark::State& state) { LockUnlockLoop(state); }
BENCHMARK(BM_LockUnlock);

void BM_LockUnlockObserved(benchmark::State& state) {
  if (Observe(state)) LockUnlockLoop(state);
}
BENCHMARK(BM_LockUnlockObserved);

// 64 mutexes in turn, the thread's epoch changing every `arg` pairs (0: never).
void BM_LockUnlockObservedManyMutexes(benchmark::State& state) {
  if (!Observe(state)) return;
  std::vector<std::mutex> mutexes(64);
  const int64_t every = state.range(0);
  int64_t k = 0;
  for (auto _ : state) {
    std::mutex& m = mutexes[k % 64];
    m.lock();
    m.unlock();
    if (every != 0 && ++k % every == 0) NewEpoch();
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LockUnlockObservedManyMutexes)->ArgName("new_epoch_every")->Arg(0)->Arg(1000)->Arg(64)->Arg(1);

void BM_LockUnlockObservedInProcess(benchmark::State& state) {
  if (ObserveInProcess(state, 40, false)) LockUnlockLoop(state);
}
BENCHMARK(BM_LockUnlockObservedInProcess);

void BM_LockUnlockFromIgnoredCode(benchmark::State& state) {
  if (ObserveInProcess(state, 40, true)) LockUnlockLoop(state);
}
BENCHMARK(BM_LockUnlockFromIgnoredCode);

// pthread_once on a control whose routine has run (std::call_once's way in
// libstdc++, and the CUDA runtime's): every call acquires the control.
void OnceLoop(benchmark::State& state) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  for (auto _ : state) benchmark::DoNotOptimize(pthread_once(&once, [] {}));
  state.SetItemsProcessed(state.iterations());
}

void BM_OnceDone(benchmark::State& state) { OnceLoop(state); }
BENCHMARK(BM_OnceDone);

void BM_OnceDoneObservedInProcess(benchmark::State& state) {
  if (ObserveInProcess(state, 40, false)) OnceLoop(state);
}
BENCHMARK(BM_OnceDoneObservedInProcess);

void BM_OnceDoneFromIgnoredCode(benchmark::State& state) {
  if (ObserveInProcess(state, 40, true)) OnceLoop(state);
}
BENCHMARK(BM_OnceDoneFromIgnoredCode);

void Handover(benchmark::State& state) {
  std::mutex m;
  std::condition_variable cv;
  int turn = 0;
  bool done = false;
  std::thread other([&] {
    for (;;) {
      std::unique_lock<std::mutex> lock(m);
      cv.wait(lock, [&] { return turn == 1 || done; });
      if (done) return;
      turn = 0;
      cv.notify_one();
    }
  });
  for (auto _ : state) {
    std::unique_lock<std::mutex> lock(m);
    turn = 1;
    cv.notify_one();
    cv.wait(lock, [&] { return turn == 0; });
  }
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_one();
  other.join();
  state.SetItemsProcessed(2 * state.iterations());
}

void BM_Handover(benchmark::State& state) { Handover(state); }
BENCHMARK(BM_Handover)->UseRealTime();

void BM_HandoverObserved(benchmark::State& state) {
  if (!Observe(state)) return;
  Handover(state);
}
BENCHMARK(BM_HandoverObserved)->UseRealTime();

}  // namespace
BENCHMARK_MAIN();
