/* The bookkeeping of thread_order.h without the interposers: clocks, stamps
 * and the tracer's take. Every function works on the thread state it is
 * given, so the tests drive it with made-up threads (tests/tracer). */
#ifndef STREAMCHECK_TRACER_PRELOAD_THREAD_ORDER_CORE_H_
#define STREAMCHECK_TRACER_PRELOAD_THREAD_ORDER_CORE_H_

#include "tracer/preload/thread_order.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `t` releases the object named `key`: its knowledge joins the object's stamp. */
void streamcheck_order_release(struct streamcheck_thread_order* t, uintptr_t key);
/* `t` acquires the object named `key`: the stamp's knowledge joins its clock. */
void streamcheck_order_acquire(struct streamcheck_thread_order* t, uintptr_t key);
/* The object is destroyed or made anew: its stamp goes. */
void streamcheck_order_forget(uintptr_t key);
int streamcheck_order_name(struct streamcheck_thread_order* t, uint32_t id);
int streamcheck_order_take(struct streamcheck_thread_order* t, int changes_clock, uint32_t* ended_epoch,
                           uint64_t* deps, int* ndeps);
uint64_t streamcheck_order_overflowed(void);
/* In a forked child: locks held by threads that do not exist there are free
 * (what they protected only grows, so a half-made join is still valid). */
void streamcheck_order_after_fork(void);
/* Tests only: every stamp forgotten. */
void streamcheck_order_reset(void);

#ifdef __cplusplus
}
#endif

#endif
