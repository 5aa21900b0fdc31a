/* The program's synchronization objects, as ThreadSanitizer models them:
 * unlocking, posting, signalling and arriving release the object; locking,
 * waiting and leaving acquire it. Mutexes (recursive, error-checking and
 * robust ones too), spin locks, read-write locks (a read unlock releases only
 * to later writers), condition variables (a wait unlocks and locks its mutex;
 * a signal or broadcast releases the variable to the waiter it wakes),
 * semaphores, barriers and pthread_once. std::mutex, std::shared_mutex,
 * std::condition_variable, std::call_once, CPython's GIL (a mutex and a
 * condition variable in 3.12) and its locks (semaphores) are built on these.
 *
 * Each release happens before the real call lets another thread in, each
 * acquire after the real call returned, so the stamp is written before it is
 * read. A failed trylock or a timed-out wait acquires nothing. Init and
 * destroy forget the object's stamp, so a new object at the address of a dead
 * one starts with none. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>
#include <time.h>

#include "tracer/preload/interpose.h"

/* The interposers are the library's exported symbols; the rest stays hidden. */
#pragma GCC visibility push(default)

/* A read-write lock releases to writers (key) and, from its readers, to
 * writers only (key + 1): readers are not ordered with each other. */
#define READERS_KEY(rwlock) ((uintptr_t)(rwlock) + 1)

/* Every interposed synchronization function, with the glibc symbol version
 * its real one is looked up by (NULL: the default). */
#define SYNC_FUNCTIONS(X) \
  X(pthread_mutex_lock, NULL) \
  X(pthread_mutex_trylock, NULL) \
  X(pthread_mutex_timedlock, NULL) \
  X(pthread_mutex_clocklock, NULL) \
  X(pthread_mutex_unlock, NULL) \
  X(pthread_mutex_init, NULL) \
  X(pthread_mutex_destroy, NULL) \
  X(pthread_spin_lock, NULL) \
  X(pthread_spin_trylock, NULL) \
  X(pthread_spin_unlock, NULL) \
  X(pthread_rwlock_rdlock, NULL) \
  X(pthread_rwlock_tryrdlock, NULL) \
  X(pthread_rwlock_timedrdlock, NULL) \
  X(pthread_rwlock_clockrdlock, NULL) \
  X(pthread_rwlock_wrlock, NULL) \
  X(pthread_rwlock_trywrlock, NULL) \
  X(pthread_rwlock_timedwrlock, NULL) \
  X(pthread_rwlock_clockwrlock, NULL) \
  X(pthread_rwlock_unlock, NULL) \
  X(pthread_rwlock_init, NULL) \
  X(pthread_rwlock_destroy, NULL) \
  X(pthread_cond_wait, "GLIBC_2.3.2") \
  X(pthread_cond_timedwait, "GLIBC_2.3.2") \
  X(pthread_cond_clockwait, NULL) \
  X(pthread_cond_signal, "GLIBC_2.3.2") \
  X(pthread_cond_broadcast, "GLIBC_2.3.2") \
  X(pthread_cond_init, "GLIBC_2.3.2") \
  X(pthread_cond_destroy, "GLIBC_2.3.2") \
  X(sem_post, NULL) \
  X(sem_wait, NULL) \
  X(sem_trywait, NULL) \
  X(sem_timedwait, NULL) \
  X(sem_clockwait, NULL) \
  X(sem_init, NULL) \
  X(sem_destroy, NULL) \
  X(pthread_barrier_wait, NULL) \
  X(pthread_barrier_destroy, NULL) \
  X(pthread_once, NULL)

SYNC_FUNCTIONS(STREAMCHECK_REAL)

/* Looked up while the process starts, before anything contends. */
__attribute__((constructor(101))) static void LookUpSyncFunctions(void) {
  get_pthread_mutex_lock(), get_pthread_mutex_trylock(), get_pthread_mutex_unlock();
  get_pthread_mutex_init(), get_pthread_mutex_destroy(), get_pthread_once();
  get_pthread_cond_wait(), get_pthread_cond_timedwait(), get_pthread_cond_signal(), get_pthread_cond_broadcast();
  get_pthread_rwlock_rdlock(), get_pthread_rwlock_wrlock(), get_pthread_rwlock_unlock();
  get_sem_post(), get_sem_wait(), get_sem_trywait(), get_sem_timedwait();
}

static int Locked(int rc) { return rc == 0 || rc == EOWNERDEAD; }

static void Forget(uintptr_t key) {
  streamcheck_enter();
  streamcheck_order_forget(key);
  streamcheck_leave();
}

/* Mutexes. */

int pthread_mutex_lock(pthread_mutex_t* m) {
  const int rc = get_pthread_mutex_lock()(m);
  STREAMCHECK_ACQUIRE_IF(Locked(rc), m);
  return rc;
}
int pthread_mutex_trylock(pthread_mutex_t* m) {
  const int rc = get_pthread_mutex_trylock()(m);
  STREAMCHECK_ACQUIRE_IF(Locked(rc), m);
  return rc;
}
int pthread_mutex_timedlock(pthread_mutex_t* m, const struct timespec* t) {
  const int rc = get_pthread_mutex_timedlock()(m, t);
  STREAMCHECK_ACQUIRE_IF(Locked(rc), m);
  return rc;
}
int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock, const struct timespec* t) {
  const int rc = get_pthread_mutex_clocklock()(m, clock, t);
  STREAMCHECK_ACQUIRE_IF(Locked(rc), m);
  return rc;
}
int pthread_mutex_unlock(pthread_mutex_t* m) {
  STREAMCHECK_RELEASE(m);
  return get_pthread_mutex_unlock()(m);
}
int pthread_mutex_init(pthread_mutex_t* m, const pthread_mutexattr_t* attr) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) Forget((uintptr_t)m);
  return get_pthread_mutex_init()(m, attr);
}
int pthread_mutex_destroy(pthread_mutex_t* m) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) Forget((uintptr_t)m);
  return get_pthread_mutex_destroy()(m);
}

/* Spin locks. */

int pthread_spin_lock(pthread_spinlock_t* l) {
  const int rc = get_pthread_spin_lock()(l);
  STREAMCHECK_ACQUIRE_IF(rc == 0, l);
  return rc;
}
int pthread_spin_trylock(pthread_spinlock_t* l) {
  const int rc = get_pthread_spin_trylock()(l);
  STREAMCHECK_ACQUIRE_IF(rc == 0, l);
  return rc;
}
int pthread_spin_unlock(pthread_spinlock_t* l) {
  STREAMCHECK_RELEASE(l);
  return get_pthread_spin_unlock()(l);
}

/* Read-write locks. */

static void ReadLocked(int rc, pthread_rwlock_t* l, const void* caller) {
  if (rc != 0 || !streamcheck_observed(caller)) return;
  struct streamcheck_thread_order* t = streamcheck_enter();
  streamcheck_order_acquire(t, (uintptr_t)l);
  /* Unlocked for reading, it releases to writers only; past 8 at once its
   * unlock releases to readers too (more order, never less). */
  if (t->read_held_count < sizeof t->read_held / sizeof t->read_held[0]) t->read_held[t->read_held_count++] = (uintptr_t)l;
  streamcheck_leave();
}

static void WriteLocked(int rc, pthread_rwlock_t* l, const void* caller) {
  if (rc != 0 || !streamcheck_observed(caller)) return;
  struct streamcheck_thread_order* t = streamcheck_enter();
  streamcheck_order_acquire(t, (uintptr_t)l);
  streamcheck_order_acquire(t, READERS_KEY(l));
  streamcheck_leave();
}

int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  const int rc = get_pthread_rwlock_rdlock()(l);
  ReadLocked(rc, l, STREAMCHECK_CALLER);
  return rc;
}
int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) {
  const int rc = get_pthread_rwlock_tryrdlock()(l);
  ReadLocked(rc, l, STREAMCHECK_CALLER);
  return rc;
}
int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const struct timespec* t) {
  const int rc = get_pthread_rwlock_timedrdlock()(l, t);
  ReadLocked(rc, l, STREAMCHECK_CALLER);
  return rc;
}
int pthread_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t clock, const struct timespec* t) {
  const int rc = get_pthread_rwlock_clockrdlock()(l, clock, t);
  ReadLocked(rc, l, STREAMCHECK_CALLER);
  return rc;
}
int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  const int rc = get_pthread_rwlock_wrlock()(l);
  WriteLocked(rc, l, STREAMCHECK_CALLER);
  return rc;
}
int pthread_rwlock_trywrlock(pthread_rwlock_t* l) {
  const int rc = get_pthread_rwlock_trywrlock()(l);
  WriteLocked(rc, l, STREAMCHECK_CALLER);
  return rc;
}
int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const struct timespec* t) {
  const int rc = get_pthread_rwlock_timedwrlock()(l, t);
  WriteLocked(rc, l, STREAMCHECK_CALLER);
  return rc;
}
int pthread_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t clock, const struct timespec* t) {
  const int rc = get_pthread_rwlock_clockwrlock()(l, clock, t);
  WriteLocked(rc, l, STREAMCHECK_CALLER);
  return rc;
}
int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) {
    struct streamcheck_thread_order* t = streamcheck_enter();
    uintptr_t key = (uintptr_t)l;
    for (unsigned i = 0; i < t->read_held_count; ++i) {
      if (t->read_held[i] != (uintptr_t)l) continue;
      t->read_held[i] = t->read_held[--t->read_held_count];
      key = READERS_KEY(l);
      break;
    }
    streamcheck_order_release(t, key);
    streamcheck_leave();
  }
  return get_pthread_rwlock_unlock()(l);
}
int pthread_rwlock_init(pthread_rwlock_t* l, const pthread_rwlockattr_t* attr) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) {
    Forget((uintptr_t)l);
    Forget(READERS_KEY(l));
  }
  return get_pthread_rwlock_init()(l, attr);
}
int pthread_rwlock_destroy(pthread_rwlock_t* l) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) {
    Forget((uintptr_t)l);
    Forget(READERS_KEY(l));
  }
  return get_pthread_rwlock_destroy()(l);
}

/* Condition variables: the wait unlocks and relocks its mutex inside glibc,
 * out of the interposers' sight, so it releases and acquires it here. */

static int AfterWait(int rc, pthread_cond_t* c, pthread_mutex_t* m, int observed) {
  if (!observed) return rc;
  struct streamcheck_thread_order* t = streamcheck_enter();
  if (Locked(rc) || rc == ETIMEDOUT) streamcheck_order_acquire(t, (uintptr_t)m);  /* it holds the mutex again */
  if (rc == 0) streamcheck_order_acquire(t, (uintptr_t)c);
  streamcheck_leave();
  return rc;
}

int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  const int observed = streamcheck_observed(STREAMCHECK_CALLER);
  STREAMCHECK_RELEASE_IF(observed, m);
  return AfterWait(get_pthread_cond_wait()(c, m), c, m, observed);
}
int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* t) {
  const int observed = streamcheck_observed(STREAMCHECK_CALLER);
  STREAMCHECK_RELEASE_IF(observed, m);
  return AfterWait(get_pthread_cond_timedwait()(c, m, t), c, m, observed);
}
int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock, const struct timespec* t) {
  const int observed = streamcheck_observed(STREAMCHECK_CALLER);
  STREAMCHECK_RELEASE_IF(observed, m);
  return AfterWait(get_pthread_cond_clockwait()(c, m, clock, t), c, m, observed);
}
int pthread_cond_signal(pthread_cond_t* c) {
  STREAMCHECK_RELEASE(c);
  return get_pthread_cond_signal()(c);
}
int pthread_cond_broadcast(pthread_cond_t* c) {
  STREAMCHECK_RELEASE(c);
  return get_pthread_cond_broadcast()(c);
}
int pthread_cond_init(pthread_cond_t* c, const pthread_condattr_t* attr) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) Forget((uintptr_t)c);
  return get_pthread_cond_init()(c, attr);
}
int pthread_cond_destroy(pthread_cond_t* c) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) Forget((uintptr_t)c);
  return get_pthread_cond_destroy()(c);
}

/* Semaphores. */

int sem_post(sem_t* s) {
  STREAMCHECK_RELEASE(s);
  return get_sem_post()(s);
}
int sem_wait(sem_t* s) {
  const int rc = get_sem_wait()(s);
  STREAMCHECK_ACQUIRE_IF(rc == 0, s);
  return rc;
}
int sem_trywait(sem_t* s) {
  const int rc = get_sem_trywait()(s);
  STREAMCHECK_ACQUIRE_IF(rc == 0, s);
  return rc;
}
int sem_timedwait(sem_t* s, const struct timespec* t) {
  const int rc = get_sem_timedwait()(s, t);
  STREAMCHECK_ACQUIRE_IF(rc == 0, s);
  return rc;
}
int sem_clockwait(sem_t* s, clockid_t clock, const struct timespec* t) {
  const int rc = get_sem_clockwait()(s, clock, t);
  STREAMCHECK_ACQUIRE_IF(rc == 0, s);
  return rc;
}
int sem_init(sem_t* s, int pshared, unsigned value) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) Forget((uintptr_t)s);
  return get_sem_init()(s, pshared, value);
}
int sem_destroy(sem_t* s) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) Forget((uintptr_t)s);
  return get_sem_destroy()(s);
}

/* Barriers: every arrival releases, every departure acquires (a thread that
 * leaves and arrives again before a slow one leaves may order more). */

int pthread_barrier_wait(pthread_barrier_t* b) {
  const int observed = streamcheck_observed(STREAMCHECK_CALLER);
  STREAMCHECK_RELEASE_IF(observed, b);
  const int rc = get_pthread_barrier_wait()(b);
  STREAMCHECK_ACQUIRE_OBSERVED_IF(observed && (rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD), b);
  return rc;
}
int pthread_barrier_destroy(pthread_barrier_t* b) {
  if (streamcheck_observed(STREAMCHECK_CALLER)) Forget((uintptr_t)b);
  return get_pthread_barrier_destroy()(b);
}

/* pthread_once: the thread that runs the routine releases after it; every
 * caller acquires on return. The routine takes no argument, so the control
 * it belongs to travels in a thread-local (saved around nested calls). */

static __thread pthread_once_t* t_once_control __attribute__((tls_model("initial-exec")));
static __thread void (*t_once_routine)(void) __attribute__((tls_model("initial-exec")));

static void RunOnceRoutine(void) {
  pthread_once_t* control = t_once_control;
  t_once_routine();
  STREAMCHECK_RELEASE_IF(streamcheck_observed(NULL), control);
}

int pthread_once(pthread_once_t* control, void (*routine)(void)) {
  if (!streamcheck_observed(STREAMCHECK_CALLER)) return get_pthread_once()(control, routine);
  pthread_once_t* outer_control = t_once_control;
  void (*outer_routine)(void) = t_once_routine;
  t_once_control = control;
  t_once_routine = routine;
  const int rc = get_pthread_once()(control, RunOnceRoutine);
  t_once_control = outer_control;
  t_once_routine = outer_routine;
  STREAMCHECK_ACQUIRE_OBSERVED_IF(rc == 0, control);
  return rc;
}

#pragma GCC visibility pop

/* For the tracer (thread_order.h's real_sync_function): what an interposer
 * above forwards to, by the function's name; NULL for any other name. */
void* streamcheck_real_sync_function(const char* name) {
#define RETURN_IF_NAMED(function, version) \
  if (strcmp(name, #function) == 0) return (void*)get_##function();
  SYNC_FUNCTIONS(RETURN_IF_NAMED)
#undef RETURN_IF_NAMED
  return NULL;
}

