/* The order of the program's host threads, as the preloaded library observes
 * it (runtime/thread_epochs.h says what the engine makes of it).
 *
 * Like ThreadSanitizer, the library keeps a vector clock per host thread and a
 * release stamp per synchronization object: releasing an object (unlocking a
 * mutex, posting a semaphore, creating a thread, ...) joins the thread's clock
 * into the object's stamp; acquiring it (locking, waiting, joining, ...) joins
 * the stamp into the thread's clock. A clock's entries are not times but the
 * epochs of the threads that make CUDA calls (the tracer's thread ids): a
 * thread's epoch advances only when its knowledge changes after it released
 * something, so a program that locks and unlocks between kernel launches
 * only compares a tag most of the time. Nothing reaches the engine until the
 * thread's next traced call can carry it: the tracer asks
 * streamcheck_thread_order_take() before each record (tracer/tracer.cpp).
 *
 * C, no libstdc++: the library is preloaded into every process `streamcheck
 * run` starts, CUDA or not. Shared by the preload (thread_order.c, the
 * interposers) and the tracer, which is built from the same tree. */
#ifndef STREAMCHECK_TRACER_PRELOAD_THREAD_ORDER_H_
#define STREAMCHECK_TRACER_PRELOAD_THREAD_ORDER_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Thread ids 1..127 have an entry in a clock; the tracer gives up per-thread
 * clocks (back to trace order) when a 128th thread makes CUDA calls. */
#define STREAMCHECK_ORDERED_THREADS 128
#define STREAMCHECK_THREAD_ORDER_VERSION 3

/* One host thread's knowledge: for each thread id, the latest epoch of that
 * thread it is after. Owned and written by its thread only. */
struct streamcheck_thread_order {
  uint32_t id;       /* the tracer's thread id; 0 until its first traced call */
  uint32_t epoch;    /* its current epoch, clock[id] */
  uint64_t tag;      /* names the content of clock; 0 = nothing known */
  uint32_t width;    /* clock[i] == 0 for every i >= width */
  uint8_t released;  /* it released something during the current epoch */
  uint8_t acquired;  /* clock grew since the tracer last took it */
  uint8_t busy;      /* inside the library: a signal handler's call passes untracked */
  /* Inside a traced CUDA runtime call (set by the tracer at its entry and
   * exit callbacks): what it synchronizes is the runtime's (interpose.c). */
  uint8_t in_cuda_call;
  uint8_t read_held_count;
  uintptr_t read_held[8]; /* read-write locks it holds for reading (their unlock releases to readers' stamp) */
  struct {
    uintptr_t key;
    uint64_t tag;  /* the stamp's when last joined: an unchanged one is skipped */
    uint32_t slot; /* where the key's stamp was: found again without hashing */
    uint32_t pad;
  } seen[8];                                   /* objects used lately, by key */
  uint32_t clock[STREAMCHECK_ORDERED_THREADS]; /* epochs it is after, by thread id */
  uint32_t sent[STREAMCHECK_ORDERED_THREADS];  /* what the tracer passed to the engine */
};

/* Address ranges of code whose synchronization is not the program's: the
 * CUDA driver's and CUPTI's internal locks, the tracer's own, a statically
 * linked CUDA runtime's. */
struct streamcheck_code_range {
  uintptr_t begin, end;
};

/* What streamcheck_thread_order_take() found. */
enum {
  STREAMCHECK_ORDER_ENDED_EPOCH = 1, /* *ended_epoch ended: tell the engine before the record */
  STREAMCHECK_ORDER_ACQUIRED = 2,    /* deps[0..*ndeps) (thread << 32 | epoch) are new to the engine */
};

/* The library's entry points for the tracer: one dlsym() of
 * streamcheck_thread_order_api finds them all. */
struct streamcheck_thread_order_api {
  int version; /* STREAMCHECK_THREAD_ORDER_VERSION */
  /* Starts observing, leaving out the calls from the code ranges given
   * (called again, it adds ranges; called by one thread at a time). Until
   * then every interposer only forwards: before the tracer has made a record
   * there is nothing to order. */
  void (*activate)(const struct streamcheck_code_range* ignored, int count);
  void (*deactivate)(void);
  /* The calling thread's state (its own: read and written on that thread only). */
  struct streamcheck_thread_order* (*self)(void);
  /* The thread's first traced call: from here its clock has an entry of its
   * own. 0 when id has no place in a clock (>= STREAMCHECK_ORDERED_THREADS). */
  int (*name)(struct streamcheck_thread_order* t, uint32_t id);
  /* Before a record of the thread; changes_clock: the record may change the
   * thread's clock in the engine (runtime ChangesThreadClock). Returns
   * STREAMCHECK_ORDER_* bits; deps has room for STREAMCHECK_ORDERED_THREADS. */
  int (*take)(struct streamcheck_thread_order* t, int changes_clock, uint32_t* ended_epoch, uint64_t* deps,
              int* ndeps);
  /* Objects whose stamps did not fit the table (they share one: more order). */
  uint64_t (*overflowed)(void);
  /* The function the interposer of the synchronization function `name`
   * forwards to (libc's); NULL for a name that is none of them. The tracer
   * binds ignored objects' calls to it (tracer/host_threads/sync_call_rebinding.h). */
  void* (*real_sync_function)(const char* name);
};

#ifdef __cplusplus
}
#endif

#endif
