/* The interposers' shared state and the entry points the tracer finds with
 * dlsym (thread_order.h). */
#define _GNU_SOURCE
#include "tracer/preload/interpose.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

_Atomic int streamcheck_observing;
__thread struct streamcheck_thread_order streamcheck_this_thread __attribute__((tls_model("initial-exec")));

enum { kMaxIgnored = 32 };
static struct streamcheck_code_range g_ignored[kMaxIgnored];
static _Atomic int g_ignored_count; /* only grows: entries are written before the count */

static inline int Observed(const void* caller) {
  if (streamcheck_this_thread.busy) return 0;
  const uintptr_t pc = (uintptr_t)caller;
  const int count = atomic_load_explicit(&g_ignored_count, memory_order_acquire);
  for (int i = 0; i < count; ++i)
    if (pc >= g_ignored[i].begin && pc < g_ignored[i].end) return 0;
  return 1;
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

/* Called again as code is loaded (the tracer's plugins): ranges are added. */
static void Activate(const struct streamcheck_code_range* ignored, int count) {
  int n = atomic_load_explicit(&g_ignored_count, memory_order_relaxed);
  for (int i = 0; i < count; ++i) {
    int known = 0;
    for (int j = 0; j < n; ++j) known |= g_ignored[j].begin == ignored[i].begin && g_ignored[j].end == ignored[i].end;
    if (known || n == kMaxIgnored) continue;
    g_ignored[n++] = ignored[i];
    atomic_store_explicit(&g_ignored_count, n, memory_order_release);
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
};

STREAMCHECK_EXPORT const struct streamcheck_thread_order_api* streamcheck_thread_order_api(void) { return &kApi; }
