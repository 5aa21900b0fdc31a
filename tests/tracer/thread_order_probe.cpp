// Run with the preloaded library (thread_order_preload_test.cpp): hands the
// main thread's knowledge to another thread through one kind of
// synchronization and prints what the other thread then knows of the main
// thread: its epoch 2 when the handover was observed, 1 (what it learnt at its
// creation) when not. Without the library it prints "no library".
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <vector>

#include "tracer/preload/thread_order.h"

namespace {

const streamcheck_thread_order_api* g_api = nullptr;

// The calling thread released something in its epoch and then made a call
// that changes its clock (a synchronize): its next epoch begins.
void NewEpoch() {
  streamcheck_thread_order* self = g_api->self();
  self->released = 1;
  uint32_t ended = 0;
  uint64_t deps[STREAMCHECK_ORDERED_THREADS];
  int n = 0;
  g_api->take(self, /*changes_clock=*/1, &ended, deps, &n);
}

// `release` runs on the main thread after it reached epoch 2, `acquire` on
// the other thread after that (an unobserved flag orders them in time).
uint32_t Handover(const std::function<void()>& release, const std::function<void()>& acquire) {
  std::atomic<bool> go{false};
  uint32_t known = 0;
  std::thread other([&] {
    g_api->name(g_api->self(), 2);
    while (!go.load()) std::this_thread::yield();
    acquire();
    known = g_api->self()->clock[1];
  });
  NewEpoch();
  release();
  go = true;
  other.join();
  return known;
}

int Check(const std::string& what) {
  uint32_t known = 0;
  if (what == "mutex") {
    std::mutex m;
    m.lock();
    known = Handover([&] { m.unlock(); }, [&] { std::lock_guard<std::mutex> l(m); });
  } else if (what == "trylock") {
    std::mutex m;
    m.lock();
    known = Handover([&] { m.unlock(); }, [&] { while (!m.try_lock()) {} m.unlock(); });
  } else if (what == "timedlock") {
    std::timed_mutex m;
    m.lock();
    known = Handover([&] { m.unlock(); }, [&] { m.try_lock_for(std::chrono::seconds(5)); m.unlock(); });
  } else if (what == "recursive") {
    std::recursive_mutex m;
    m.lock();
    m.lock();
    known = Handover([&] { m.unlock(); m.unlock(); }, [&] { std::lock_guard<std::recursive_mutex> l(m); });
  } else if (what == "spinlock") {
    pthread_spinlock_t s;
    pthread_spin_init(&s, PTHREAD_PROCESS_PRIVATE);
    pthread_spin_lock(&s);
    known = Handover([&] { pthread_spin_unlock(&s); }, [&] { pthread_spin_lock(&s); pthread_spin_unlock(&s); });
  } else if (what == "rwlock-write-read") {
    std::shared_mutex m;
    m.lock();
    known = Handover([&] { m.unlock(); }, [&] { std::shared_lock<std::shared_mutex> l(m); });
  } else if (what == "rwlock-read-read") {  // readers are not ordered with each other
    std::shared_mutex m;
    m.lock_shared();
    known = Handover([&] { m.unlock_shared(); }, [&] { std::shared_lock<std::shared_mutex> l(m); });
  } else if (what == "rwlock-read-write") {
    std::shared_mutex m;
    m.lock_shared();
    known = Handover([&] { m.unlock_shared(); }, [&] { std::unique_lock<std::shared_mutex> l(m); });
  } else if (what == "condition") {
    std::mutex m;
    std::condition_variable cv;
    bool ready = false;
    known = Handover(
        [&] {
          std::lock_guard<std::mutex> l(m);
          ready = true;
          cv.notify_one();
        },
        [&] {
          std::unique_lock<std::mutex> l(m);
          cv.wait(l, [&] { return ready; });
        });
  } else if (what == "semaphore") {
    sem_t s;
    sem_init(&s, 0, 0);
    known = Handover([&] { sem_post(&s); }, [&] { sem_wait(&s); });
    sem_destroy(&s);
  } else if (what == "semaphore-timed") {
    sem_t s;
    sem_init(&s, 0, 0);
    known = Handover([&] { sem_post(&s); }, [&] {
      timespec t{};
      clock_gettime(CLOCK_REALTIME, &t);
      t.tv_sec += 5;
      sem_timedwait(&s, &t);
    });
    sem_destroy(&s);
  } else if (what == "barrier") {
    pthread_barrier_t b;
    pthread_barrier_init(&b, nullptr, 2);
    std::thread other([&] {
      g_api->name(g_api->self(), 2);
      pthread_barrier_wait(&b);
      known = g_api->self()->clock[1];
    });
    NewEpoch();
    pthread_barrier_wait(&b);
    other.join();
  } else if (what == "once") {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    known = Handover([&] { pthread_once(&once, [] {}); }, [&] { pthread_once(&once, [] {}); });
  } else if (what == "create") {  // the new thread starts with what its creator knew
    NewEpoch();
    std::thread other([&] { known = g_api->self()->clock[1]; });
    other.join();
  } else if (what == "join") {  // the joiner learns what the thread knew at its end
    std::thread other([&] {
      g_api->name(g_api->self(), 2);
      NewEpoch();
    });
    other.join();
    known = g_api->self()->clock[2];
  } else if (what == "fork") {
    // Children forked while another thread releases (semaphores: their stamps'
    // locks are taken without the object held, and forgetting one takes the
    // table's lock) do not hang on a lock that thread held.
    NewEpoch();
    std::atomic<bool> stop{false};
    std::vector<sem_t> sems(64);
    for (sem_t& s : sems) sem_init(&s, 0, 0);
    std::thread busy([&] {
      for (uint64_t k = 0; !stop.load(); ++k) {
        sem_post(&sems[k % 64]);
        if (k % 64 == 63) sem_init(&sems[k % 64], 0, 0);  // forgotten, inserted again at the next post
      }
    });
    int hung = 0;
    for (int i = 0; i < 200; ++i) {
      const pid_t child = fork();
      if (child == 0) {
        alarm(5);  // a lock left held would spin here until killed
        for (sem_t& s : sems) sem_post(&s);
        sem_init(&sems[0], 0, 0);
        sem_post(&sems[0]);
        _exit(0);
      }
      int status = 0;
      waitpid(child, &status, 0);
      hung += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    stop = true;
    busy.join();
    known = hung == 0 ? 2 : 0;
  } else if (what == "atomic") {  // not observed: the flag alone
    known = Handover([] {}, [] {});
  } else {
    std::fprintf(stderr, "unknown check %s\n", what.c_str());
    return 2;
  }
  std::printf("%s %u\n", what.c_str(), known);
  return 0;
}

int IgnoreMainProgram(dl_phdr_info* info, size_t, void*) {
  if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& p = info->dlpi_phdr[i];
    if (p.p_type != PT_LOAD || (p.p_flags & PF_X) == 0) continue;
    const streamcheck_code_range range{info->dlpi_addr + p.p_vaddr, info->dlpi_addr + p.p_vaddr + p.p_memsz};
    g_api->activate(&range, 1);
  }
  return 1;
}

// Two handovers through one mutex, from a second thread to the main thread,
// at the same call sites: observed, then with the program's code ignored
// (as the tracer adds its plugins' and late libraries' code). Both threads
// have remembered those sites' verdicts by then; the second handover must
// pass unobserved all the same. Prints the second thread's epoch the main
// thread knows after each: 2 and 2 (3 after the second, were it observed).
int IgnoredLater() {
  const streamcheck_code_range elsewhere{0x1000, 0x2000};  // a table to remember verdicts in
  g_api->activate(&elsewhere, 1);
  std::mutex m;
  std::atomic<int> round{0}, released{0};
  std::thread other([&] {
    g_api->name(g_api->self(), 2);
    for (int r = 1; r <= 2; ++r) {
      while (round.load() != r) std::this_thread::yield();
      NewEpoch();
      { std::lock_guard<std::mutex> l(m); }
      released = r;
    }
  });
  for (int r = 1; r <= 2; ++r) {
    if (r == 2) dl_iterate_phdr(IgnoreMainProgram, nullptr);
    round = r;
    while (released.load() != r) std::this_thread::yield();
    { std::lock_guard<std::mutex> l(m); }
    std::printf("ignored-later %u\n", g_api->self()->clock[2]);
  }
  other.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  using Lookup = const streamcheck_thread_order_api* (*)();
  auto lookup = reinterpret_cast<Lookup>(dlsym(RTLD_DEFAULT, "streamcheck_thread_order_api"));
  if (lookup == nullptr) {
    std::printf("no library\n");
    return 0;
  }
  g_api = lookup();
  const bool ignore_main = argc > 2 && std::strcmp(argv[2], "ignore-main") == 0;
  if (ignore_main) dl_iterate_phdr(IgnoreMainProgram, nullptr);  // its calls are not the program's
  else g_api->activate(nullptr, 0);
  g_api->name(g_api->self(), 1);
  const std::string check = argc > 1 ? argv[1] : "";
  return check == "ignored-later" ? IgnoredLater() : Check(check);
}
