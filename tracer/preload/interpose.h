/* What the pthread interposers share: whether the library observes at all,
 * the calling thread's state, the callers whose synchronization is not the
 * program's, and the real functions behind the interposed ones.
 *
 * The fast path of an interposer, while no tracer is loaded (a process with
 * no CUDA, or one before cuInit): one load of a global and one branch, then
 * the real function. */
#ifndef STREAMCHECK_TRACER_PRELOAD_INTERPOSE_H_
#define STREAMCHECK_TRACER_PRELOAD_INTERPOSE_H_

#include <stdatomic.h>
#include <stdint.h>

#include "tracer/preload/thread_order_core.h"

#define STREAMCHECK_HIDDEN __attribute__((visibility("hidden")))
#define STREAMCHECK_EXPORT __attribute__((visibility("default")))

/* Set by the tracer (thread_order.h's activate). */
extern _Atomic int streamcheck_observing STREAMCHECK_HIDDEN;
extern __thread struct streamcheck_thread_order streamcheck_this_thread STREAMCHECK_HIDDEN
    __attribute__((tls_model("initial-exec")));

/* True when the call at `caller` (its return address) is the program's
 * synchronization, to be observed: the library observes, the thread is not
 * inside it already (a signal handler interrupting it), and the caller is not
 * the CUDA driver, CUPTI or the tracer, whose internal locks order nothing the
 * program relies on. */
int streamcheck_observed_slow(const void* caller) STREAMCHECK_HIDDEN;
static inline int streamcheck_observed(const void* caller) {
  if (__builtin_expect(!atomic_load_explicit(&streamcheck_observing, memory_order_acquire), 1)) return 0;
  return streamcheck_observed_slow(caller);
}

/* Brackets of the bookkeeping: a signal handler that synchronizes while its
 * thread is inside it passes through untracked instead of deadlocking on a
 * stamp's lock. */
static inline struct streamcheck_thread_order* streamcheck_enter(void) {
  streamcheck_this_thread.busy = 1;
  return &streamcheck_this_thread;
}
static inline void streamcheck_leave(void) { streamcheck_this_thread.busy = 0; }

#define STREAMCHECK_CALLER __builtin_return_address(0)

/* Release / acquire of `key` by the calling thread, if observed. One call
 * out of line does the checks and the bookkeeping. */
void streamcheck_release_from(const void* caller, uintptr_t key) STREAMCHECK_HIDDEN;
void streamcheck_acquire_from(const void* caller, uintptr_t key) STREAMCHECK_HIDDEN;
#define STREAMCHECK_OBSERVING() \
  __builtin_expect(atomic_load_explicit(&streamcheck_observing, memory_order_acquire), 0)
#define STREAMCHECK_RELEASE(key)                                                          \
  do {                                                                                    \
    if (STREAMCHECK_OBSERVING()) streamcheck_release_from(STREAMCHECK_CALLER, (uintptr_t)(key)); \
  } while (0)
#define STREAMCHECK_ACQUIRE_IF(condition, key)                                            \
  do {                                                                                    \
    if (STREAMCHECK_OBSERVING() && (condition)) streamcheck_acquire_from(STREAMCHECK_CALLER, (uintptr_t)(key)); \
  } while (0)
/* For a caller that checked streamcheck_observed() already. */
#define STREAMCHECK_RELEASE_IF(observed, key)                                   \
  do {                                                                          \
    if (observed) {                                                             \
      streamcheck_order_release(streamcheck_enter(), (uintptr_t)(key));         \
      streamcheck_leave();                                                      \
    }                                                                           \
  } while (0)
#define STREAMCHECK_ACQUIRE_OBSERVED_IF(observed, key)                          \
  do {                                                                          \
    if (observed) {                                                             \
      streamcheck_order_acquire(streamcheck_enter(), (uintptr_t)(key));         \
      streamcheck_leave();                                                      \
    }                                                                           \
  } while (0)

/* The real function behind an interposed synchronization function, by name;
 * NULL for any other name (sync_interposers.c). */
void* streamcheck_real_sync_function(const char* name) STREAMCHECK_HIDDEN;

/* The real function behind an interposed one: looked up at load, or at its
 * first call if that comes earlier (another library's constructor).
 * `version` names glibc's symbol version where several exist (the condition
 * variables: dlsym alone finds the 2.2.5 compatibility ones). */
void* streamcheck_real(const char* name, const char* version) STREAMCHECK_HIDDEN;
#define STREAMCHECK_REAL(name, version)                                                        \
  static __typeof__(&name) real_##name;                                                        \
  static inline __typeof__(&name) get_##name(void) {                                           \
    __typeof__(&name) f = __atomic_load_n(&real_##name, __ATOMIC_RELAXED);                     \
    if (__builtin_expect(f == 0, 0)) {                                                         \
      f = (__typeof__(&name))streamcheck_real(#name, version);                                 \
      __atomic_store_n(&real_##name, f, __ATOMIC_RELAXED);                                     \
    }                                                                                          \
    return f;                                                                                  \
  }

#endif
