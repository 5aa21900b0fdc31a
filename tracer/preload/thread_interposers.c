/* Threads: a new thread starts after everything its creator did before
 * pthread_create; a joiner is after everything the joined thread did
 * (returning from its start routine or calling pthread_exit). A detached
 * thread is joined by nobody: nothing is after its end. Cancellation is not
 * observed (a cancelled thread releases nothing at its end).
 *
 * Every thread the program creates starts through ThreadStart, observed or
 * not yet: a thread created before the tracer is loaded may end after it. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "tracer/preload/interpose.h"

/* The interposers are the library's exported symbols; the rest stays hidden. */
#pragma GCC visibility push(default)

/* Where a thread's end is released: beside its pthread_t, which names the
 * thread's descriptor (no synchronization object lives there). */
#define END_KEY(thread) ((uintptr_t)(thread) + 2)

STREAMCHECK_REAL(pthread_create, NULL)
STREAMCHECK_REAL(pthread_join, NULL)
STREAMCHECK_REAL(pthread_tryjoin_np, NULL)
STREAMCHECK_REAL(pthread_timedjoin_np, NULL)
STREAMCHECK_REAL(pthread_clockjoin_np, NULL)
STREAMCHECK_REAL(pthread_exit, NULL)

__attribute__((constructor(101))) static void LookUpThreadFunctions(void) {
  get_pthread_create(), get_pthread_join(), get_pthread_exit();
}

struct Start {
  void* (*routine)(void*);
  void* arg;
};

static void ReleaseEnd(void) {
  STREAMCHECK_RELEASE_IF(streamcheck_observed(NULL), END_KEY(pthread_self()));
}

static void* ThreadStart(void* raw) {
  struct Start start = *(struct Start*)raw;
  if (streamcheck_observed(NULL)) {
    struct streamcheck_thread_order* t = streamcheck_enter();
    streamcheck_order_acquire(t, (uintptr_t)raw);
    streamcheck_order_forget((uintptr_t)raw);
    /* What an earlier thread with this descriptor left, unjoined (detached). */
    streamcheck_order_forget(END_KEY(pthread_self()));
    streamcheck_leave();
  }
  free(raw);
  void* result = start.routine(start.arg);
  ReleaseEnd();
  return result;
}

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*), void* arg) {
  const void* caller = STREAMCHECK_CALLER;
  /* The driver's and the tracer's own threads start as they are. */
  if (atomic_load_explicit(&streamcheck_observing, memory_order_acquire) && !streamcheck_observed_slow(caller))
    return get_pthread_create()(thread, attr, routine, arg);
  struct Start* start = malloc(sizeof *start);
  if (start == NULL) return get_pthread_create()(thread, attr, routine, arg);
  start->routine = routine;
  start->arg = arg;
  STREAMCHECK_RELEASE_IF(streamcheck_observed(caller), start);
  const int rc = get_pthread_create()(thread, attr, ThreadStart, start);
  if (rc != 0) {
    if (streamcheck_observed(caller)) {
      streamcheck_enter();
      streamcheck_order_forget((uintptr_t)start);
      streamcheck_leave();
    }
    free(start);
  }
  return rc;
}

static int Joined(int rc, pthread_t thread, const void* caller) {
  if (rc != 0 || !streamcheck_observed(caller)) return rc;
  struct streamcheck_thread_order* t = streamcheck_enter();
  streamcheck_order_acquire(t, END_KEY(thread));
  streamcheck_order_forget(END_KEY(thread));
  streamcheck_leave();
  return rc;
}

int pthread_join(pthread_t thread, void** result) {
  return Joined(get_pthread_join()(thread, result), thread, STREAMCHECK_CALLER);
}
int pthread_tryjoin_np(pthread_t thread, void** result) {
  return Joined(get_pthread_tryjoin_np()(thread, result), thread, STREAMCHECK_CALLER);
}
int pthread_timedjoin_np(pthread_t thread, void** result, const struct timespec* t) {
  return Joined(get_pthread_timedjoin_np()(thread, result, t), thread, STREAMCHECK_CALLER);
}
int pthread_clockjoin_np(pthread_t thread, void** result, clockid_t clock, const struct timespec* t) {
  return Joined(get_pthread_clockjoin_np()(thread, result, clock, t), thread, STREAMCHECK_CALLER);
}

void pthread_exit(void* result) {
  ReleaseEnd();
  get_pthread_exit()(result);
  __builtin_unreachable();
}

#pragma GCC visibility pop
