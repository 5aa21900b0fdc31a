/* The interposers' shared state and the entry points the tracer finds with
 * dlsym (thread_order.h). */
#define _GNU_SOURCE
#include "tracer/preload/interpose.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

_Atomic int streamcheck_observing;
__thread struct streamcheck_thread_order streamcheck_this_thread __attribute__((tls_model("initial-exec")));

/* The ignored code ranges: sorted, disjoint, found by binary search on every
 * observed lock (a statically linked CUDA runtime adds a few ranges per
 * object that links it, so there may be dozens). A table is never changed
 * once published: Activate builds a new one and publishes it with one store,
 * and the old one stays (it is small, and Activate runs a few times a
 * process), so a reader needs no lock and never sees a half-written table. */
struct ignored_table {
  size_t count;
  struct streamcheck_code_range ranges[];
};
enum { kMaxIgnored = 4096 }; /* far above what a process loads */
static _Atomic(const struct ignored_table*) g_ignored;

static int InIgnoredCode(const struct ignored_table* table, uintptr_t pc) {
  size_t lo = 0, hi = table->count; /* the first range beginning after pc is at hi */
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (table->ranges[mid].begin <= pc) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 && pc < table->ranges[lo - 1].end;
}

/* A thread's verdicts on the callers it checked lately: a call site's return
 * address is the same at every call, and the CUDA driver alone makes
 * hundreds of lock calls per launch from a few dozen sites, so the binary
 * search runs once per site instead (measured: a lock pair from ignored code
 * cost 3.9 ns plain, 11.8 ns searched; tests/bench/sync_interposer_benchmark).
 * Direct-mapped; an entry is the return address shifted left once, its low
 * bit set where the caller is ignored (return addresses fit in 63 bits). The
 * verdicts hold for the table they were found in: a new table (Activate)
 * empties the cache on the thread's next check. A signal handler that
 * interrupts the emptying finds the old table still named and empties it
 * itself. */
enum { kVerdictBits = 6, kVerdicts = 1 << kVerdictBits };
struct caller_verdicts {
  const struct ignored_table* table;
  uintptr_t entries[kVerdicts];
};
static __thread struct caller_verdicts t_verdicts __attribute__((tls_model("initial-exec")));

static int CallerIgnored(uintptr_t pc) {
  const struct ignored_table* table = atomic_load_explicit(&g_ignored, memory_order_acquire);
  if (table == NULL) return 0;
  if (__builtin_expect(t_verdicts.table != table, 0)) {
    memset(t_verdicts.entries, 0, sizeof t_verdicts.entries);
    t_verdicts.table = table;
  }
  uintptr_t* entry = &t_verdicts.entries[(pc * 0x9E3779B97F4A7C15ull) >> (64 - kVerdictBits)];
  if ((*entry >> 1) == pc && *entry != 0) return (int)(*entry & 1);
  const int ignored = InIgnoredCode(table, pc);
  *entry = pc << 1 | (uintptr_t)ignored;
  return ignored;
}

/* Not the program's synchronization: a signal handler's inside the library,
 * a call made inside a traced CUDA runtime call (the runtime's own locks,
 * wherever its code lives; the program's code does not run there on this
 * thread: host functions and callbacks run on threads of their own), or a
 * call from ignored code. The in-call rule is a fallback, not the whole
 * answer: the tracer takes the entry and exit of only the runtime calls it
 * models (a kernel launch is taken from the driver's call inside
 * cudaLaunchKernel), and the runtime locks before the entry callback and
 * after the exit; the ranges of a statically linked runtime's functions,
 * read from the object's symbols (tracer/host_threads/static_cuda_runtime.h), cover all
 * of its code where the object keeps them. */
static inline int Observed(const void* caller) {
  if (streamcheck_this_thread.busy | streamcheck_this_thread.in_cuda_call) return 0;
  return !CallerIgnored((uintptr_t)caller);
}

int streamcheck_observed_slow(const void* caller) { return Observed(caller); }

void streamcheck_release_from(const void* caller, uintptr_t key) {
  if (!Observed(caller)) return;
  streamcheck_this_thread.busy = 1;
  streamcheck_order_release(&streamcheck_this_thread, key);
  streamcheck_this_thread.busy = 0;
}

void streamcheck_acquire_from(const void* caller, uintptr_t key) {
  if (!Observed(caller)) return;
  streamcheck_this_thread.busy = 1;
  streamcheck_order_acquire(&streamcheck_this_thread, key);
  streamcheck_this_thread.busy = 0;
}

/* A thread that forks while another holds a stamp's lock would leave the
 * child spinning on it forever. */
__attribute__((constructor(101))) static void FreeLocksInForkedChildren(void) {
  pthread_atfork(NULL, NULL, streamcheck_order_after_fork);
}

/* glibc's own names of the functions an allocator's lock takes: what a
 * lookup that recursed (dlsym -> malloc -> a program's allocator -> a mutex)
 * falls back on. Weak: absent, the lookup is all there is. */
extern int __pthread_mutex_lock(pthread_mutex_t*) __attribute__((weak));
extern int __pthread_mutex_trylock(pthread_mutex_t*) __attribute__((weak));
extern int __pthread_mutex_unlock(pthread_mutex_t*) __attribute__((weak));
extern int __pthread_mutex_init(pthread_mutex_t*, const pthread_mutexattr_t*) __attribute__((weak));
extern int __pthread_mutex_destroy(pthread_mutex_t*) __attribute__((weak));
extern int __pthread_once(pthread_once_t*, void (*)(void)) __attribute__((weak));

static void* Fallback(const char* name) {
  const struct {
    const char* name;
    uintptr_t function;
  } kKnown[] = {
      {"pthread_mutex_lock", (uintptr_t)__pthread_mutex_lock},
      {"pthread_mutex_trylock", (uintptr_t)__pthread_mutex_trylock},
      {"pthread_mutex_unlock", (uintptr_t)__pthread_mutex_unlock},
      {"pthread_mutex_init", (uintptr_t)__pthread_mutex_init},
      {"pthread_mutex_destroy", (uintptr_t)__pthread_mutex_destroy},
      {"pthread_once", (uintptr_t)__pthread_once},
  };
  for (size_t i = 0; i < sizeof kKnown / sizeof kKnown[0]; ++i)
    if (strcmp(kKnown[i].name, name) == 0) return (void*)kKnown[i].function;
  return NULL;
}

void* streamcheck_real(const char* name, const char* version) {
  static __thread int looking_up;
  if (looking_up) return Fallback(name);
  looking_up = 1;
  void* f = version ? dlvsym(RTLD_NEXT, name, version) : NULL;
  if (f == NULL) f = dlsym(RTLD_NEXT, name);
  looking_up = 0;
  return f ? f : Fallback(name);
}

/* Insertion sort: libc's qsort may allocate, and the tables hold dozens. */
static void SortByBegin(struct streamcheck_code_range* ranges, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    const struct streamcheck_code_range r = ranges[i];
    size_t j = i;
    for (; j > 0 && ranges[j - 1].begin > r.begin; --j) ranges[j] = ranges[j - 1];
    ranges[j] = r;
  }
}

/* Called again as code is loaded (the tracer's plugins): ranges are added.
 * mmap, not malloc: the program's allocator may take locks we interpose. */
static void Activate(const struct streamcheck_code_range* ignored, int count) {
  const struct ignored_table* old = atomic_load_explicit(&g_ignored, memory_order_relaxed);
  const size_t had = old ? old->count : 0;
  size_t n = had + (count > 0 ? (size_t)count : 0);
  if (n > kMaxIgnored) n = kMaxIgnored;
  if (n > had) {
    const size_t bytes = sizeof(struct ignored_table) + n * sizeof(struct streamcheck_code_range);
    void* memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory != MAP_FAILED) {
      struct ignored_table* table = memory;
      if (had > 0) memcpy(table->ranges, old->ranges, had * sizeof(struct streamcheck_code_range));
      size_t k = had;
      for (int i = 0; i < count && k < n; ++i)
        if (ignored[i].begin < ignored[i].end) table->ranges[k++] = ignored[i];
      SortByBegin(table->ranges, k);
      /* Overlapping and touching ranges become one: the search needs them disjoint. */
      size_t merged = 0;
      for (size_t i = 0; i < k; ++i) {
        if (merged > 0 && table->ranges[i].begin <= table->ranges[merged - 1].end) {
          if (table->ranges[i].end > table->ranges[merged - 1].end) table->ranges[merged - 1].end = table->ranges[i].end;
          continue;
        }
        table->ranges[merged++] = table->ranges[i];
      }
      table->count = merged;
      atomic_store_explicit(&g_ignored, table, memory_order_release);
    }
  }
  atomic_store_explicit(&streamcheck_observing, 1, memory_order_release);
}

static void Deactivate(void) { atomic_store_explicit(&streamcheck_observing, 0, memory_order_release); }

static struct streamcheck_thread_order* Self(void) { return &streamcheck_this_thread; }

/* The tracer changes the thread's state on its thread: a signal handler's
 * synchronization in between passes untracked, as inside an interposer. */
static int Name(struct streamcheck_thread_order* t, uint32_t id) {
  t->busy = 1;
  const int named = streamcheck_order_name(t, id);
  t->busy = 0;
  return named;
}

static int Take(struct streamcheck_thread_order* t, int changes_clock, uint32_t* ended_epoch, uint64_t* deps,
                int* ndeps) {
  t->busy = 1;
  const int found = streamcheck_order_take(t, changes_clock, ended_epoch, deps, ndeps);
  t->busy = 0;
  return found;
}

static const struct streamcheck_thread_order_api kApi = {
    STREAMCHECK_THREAD_ORDER_VERSION, Activate, Deactivate, Self, Name, Take, streamcheck_order_overflowed,
    streamcheck_real_sync_function,
};

STREAMCHECK_EXPORT const struct streamcheck_thread_order_api* streamcheck_thread_order_api(void) { return &kApi; }
