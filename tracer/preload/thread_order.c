/* Clocks and release stamps (thread_order.h). A stamp lives in a fixed
 * table keyed by the object's address; it is found without a lock, written
 * under a lock of its own (releases of one object may come from several
 * threads at once: readers of a read-write lock, posters of a semaphore) and
 * read without one: its entries only grow, so a reader that sees part of a
 * concurrent release learns more than the release before, never less than
 * what happened before its acquire. */
#include "tracer/preload/thread_order_core.h"

#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#define SLOT_BITS 14
#define SLOTS (1u << SLOT_BITS)
#define PROBES 32
#define EMPTY_KEY ((uintptr_t)0)
#define GONE_KEY ((uintptr_t)1) /* a forgotten object: probing goes on past it */

struct stamp {
  _Atomic uint32_t lock;
  _Atomic uint32_t width;
  /* Names the content: the releasing thread's tag when the stamp holds
   * exactly its clock, a fresh one when it holds more. */
  _Atomic uint64_t tag;
  _Atomic uint32_t clock[STREAMCHECK_ORDERED_THREADS];
};

static _Atomic uintptr_t g_keys[SLOTS];
static struct stamp g_stamps[SLOTS];
/* Objects that find no slot share this one: an acquire of any of them
 * learns what any of them released (more order, never less). */
static struct stamp g_overflow;
static _Atomic uint64_t g_overflowed;
static _Atomic uint32_t g_table_lock;
static _Atomic uint64_t g_next_tag = 2;

static uint64_t NewTag(void) { return atomic_fetch_add_explicit(&g_next_tag, 1, memory_order_relaxed); }

static void Lock(_Atomic uint32_t* lock) {
  unsigned spins = 0;
  while (atomic_exchange_explicit(lock, 1, memory_order_acquire)) {
    while (atomic_load_explicit(lock, memory_order_relaxed)) {
      if (++spins > 1000) sched_yield(); /* the holder was descheduled */
#if defined(__x86_64__)
      __builtin_ia32_pause();
#endif
    }
  }
}

static void Unlock(_Atomic uint32_t* lock) { atomic_store_explicit(lock, 0, memory_order_release); }

static uint32_t Home(uintptr_t key) { return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> (64 - SLOT_BITS)); }

static struct stamp* Find(uintptr_t key) {
  const uint32_t home = Home(key);
  for (uint32_t i = 0; i < PROBES; ++i) {
    const uint32_t slot = (home + i) & (SLOTS - 1);
    const uintptr_t k = atomic_load_explicit(&g_keys[slot], memory_order_acquire);
    if (k == key) return &g_stamps[slot];
    if (k == EMPTY_KEY) break;
  }
  return NULL;
}

/* The thread's entry for `key` in its small cache of objects used lately. */
static unsigned SeenIndex(uintptr_t key) { return (unsigned)(key >> 4) & 7; }

/* The stamp the thread found for `key` last time, if the key still has it
 * (a forgotten object's slot may hold another's since). */
static struct stamp* Remembered(const struct streamcheck_thread_order* t, uintptr_t key) {
  const unsigned i = SeenIndex(key);
  if (t->seen[i].key != key) return NULL;
  const uint32_t slot = t->seen[i].slot;
  return atomic_load_explicit(&g_keys[slot], memory_order_acquire) == key ? &g_stamps[slot] : NULL;
}

static void Remember(struct streamcheck_thread_order* t, uintptr_t key, const struct stamp* s, uint64_t tag) {
  if (s == &g_overflow) return;
  const unsigned i = SeenIndex(key);
  if (t->seen[i].key != key) t->seen[i].tag = 0;
  t->seen[i].key = key;
  t->seen[i].slot = (uint32_t)(s - g_stamps);
  if (tag != 0) t->seen[i].tag = tag;
}

static void Clear(struct stamp* s) {
  const uint32_t width = atomic_load_explicit(&s->width, memory_order_relaxed);
  for (uint32_t i = 0; i < width; ++i) atomic_store_explicit(&s->clock[i], 0, memory_order_relaxed);
  atomic_store_explicit(&s->width, 0, memory_order_relaxed);
  atomic_store_explicit(&s->tag, 0, memory_order_relaxed);
}

static struct stamp* FindOrInsert(uintptr_t key) {
  struct stamp* s = Find(key);
  if (s) return s;
  Lock(&g_table_lock);
  s = Find(key);
  const uint32_t home = Home(key);
  for (uint32_t i = 0; s == NULL && i < PROBES; ++i) {
    const uint32_t slot = (home + i) & (SLOTS - 1);
    const uintptr_t k = atomic_load_explicit(&g_keys[slot], memory_order_relaxed);
    if (k != EMPTY_KEY && k != GONE_KEY) continue;
    Clear(&g_stamps[slot]); /* what a forgotten object left */
    atomic_store_explicit(&g_keys[slot], key, memory_order_release);
    s = &g_stamps[slot];
  }
  if (s == NULL) {
    atomic_fetch_add_explicit(&g_overflowed, 1, memory_order_relaxed);
    s = &g_overflow;
  }
  Unlock(&g_table_lock);
  return s;
}

void streamcheck_order_release(struct streamcheck_thread_order* t, uintptr_t key) {
  if (t->tag == 0) return; /* it knows nothing */
  t->released = 1;
  struct stamp* s = Remembered(t, key);
  if (s == NULL) {
    s = FindOrInsert(key);
    Remember(t, key, s, 0);
  }
  /* Holds exactly this clock already (released in this epoch, nothing learnt since). */
  if (atomic_load_explicit(&s->tag, memory_order_relaxed) == t->tag) return;
  Lock(&s->lock);
  uint32_t width = atomic_load_explicit(&s->width, memory_order_relaxed);
  if (t->width > width) width = t->width;
  int covered = 1; /* the stamp held nothing the thread does not know */
  for (uint32_t i = 0; i < width; ++i) {
    const uint32_t had = atomic_load_explicit(&s->clock[i], memory_order_relaxed);
    const uint32_t mine = i < t->width ? t->clock[i] : 0;
    if (had > mine) covered = 0;
    else if (mine > had) atomic_store_explicit(&s->clock[i], mine, memory_order_relaxed);
  }
  atomic_store_explicit(&s->width, width, memory_order_relaxed);
  atomic_store_explicit(&s->tag, covered ? t->tag : NewTag(), memory_order_release);
  Unlock(&s->lock);
}

void streamcheck_order_acquire(struct streamcheck_thread_order* t, uintptr_t key) {
  struct stamp* s = Remembered(t, key);
  if (s == NULL) {
    s = Find(key);
    if (s == NULL) {
      if (atomic_load_explicit(&g_overflowed, memory_order_relaxed) == 0) return; /* never released with knowledge */
      s = &g_overflow;
    }
    Remember(t, key, s, 0);
  }
  const uint64_t tag = atomic_load_explicit(&s->tag, memory_order_acquire);
  if (tag == 0 || tag == t->tag) return; /* empty, or exactly what it released itself */
  const unsigned seen = SeenIndex(key);
  if (t->seen[seen].key == key && t->seen[seen].tag == tag) return; /* joined it unchanged before */
  const uint32_t width = atomic_load_explicit(&s->width, memory_order_relaxed);
  int grew = 0;
  for (uint32_t i = 0; i < width && i < STREAMCHECK_ORDERED_THREADS; ++i) {
    const uint32_t theirs = atomic_load_explicit(&s->clock[i], memory_order_relaxed);
    if (theirs > t->clock[i]) {
      t->clock[i] = theirs;
      grew = 1;
    }
  }
  if (grew) {
    if (width > t->width) t->width = width;
    t->tag = NewTag();
    t->acquired = 1;
  }
  Remember(t, key, s, tag);
}

void streamcheck_order_forget(uintptr_t key) {
  if (Find(key) == NULL) return; /* most objects never carried knowledge */
  Lock(&g_table_lock);
  const uint32_t home = Home(key);
  for (uint32_t i = 0; i < PROBES; ++i) {
    const uint32_t slot = (home + i) & (SLOTS - 1);
    const uintptr_t k = atomic_load_explicit(&g_keys[slot], memory_order_relaxed);
    if (k == EMPTY_KEY) break;
    if (k != key) continue;
    atomic_store_explicit(&g_keys[slot], GONE_KEY, memory_order_release);
    break;
  }
  Unlock(&g_table_lock);
}

int streamcheck_order_name(struct streamcheck_thread_order* t, uint32_t id) {
  if (id == 0 || id >= STREAMCHECK_ORDERED_THREADS) return 0;
  t->id = id;
  t->epoch = t->clock[id] > 0 ? t->clock[id] : 1; /* a forked child's thread keeps its epoch */
  t->clock[id] = t->epoch;
  if (id + 1 > t->width) t->width = id + 1;
  t->tag = NewTag();
  t->released = 0;
  return 1;
}

int streamcheck_order_take(struct streamcheck_thread_order* t, int changes_clock, uint32_t* ended_epoch,
                           uint64_t* deps, int* ndeps) {
  int found = 0;
  if (!t->acquired && !(t->released && changes_clock)) return 0;
  if (t->released && t->id != 0) {
    /* Others may hold (id, epoch): the engine keeps the thread's clock as it
     * is now, before the acquire and the record change it. */
    *ended_epoch = t->epoch;
    found |= STREAMCHECK_ORDER_ENDED_EPOCH;
    t->clock[t->id] = ++t->epoch;
    t->tag = NewTag();
  }
  t->released = 0;
  if (t->acquired) {
    int n = 0;
    for (uint32_t i = 0; i < t->width; ++i) {
      if (i == t->id || t->clock[i] <= t->sent[i]) continue;
      deps[n++] = ((uint64_t)i << 32) | t->clock[i];
      t->sent[i] = t->clock[i];
    }
    *ndeps = n;
    if (n > 0) found |= STREAMCHECK_ORDER_ACQUIRED;
    t->acquired = 0;
  }
  return found;
}

void streamcheck_order_after_fork(void) {
  atomic_store_explicit(&g_table_lock, 0, memory_order_relaxed);
  atomic_store_explicit(&g_overflow.lock, 0, memory_order_relaxed);
  for (uint32_t slot = 0; slot < SLOTS; ++slot)
    if (atomic_load_explicit(&g_keys[slot], memory_order_relaxed) != EMPTY_KEY)
      atomic_store_explicit(&g_stamps[slot].lock, 0, memory_order_relaxed);
}

uint64_t streamcheck_order_overflowed(void) { return atomic_load_explicit(&g_overflowed, memory_order_relaxed); }

void streamcheck_order_reset(void) {
  for (uint32_t slot = 0; slot < SLOTS; ++slot) {
    if (atomic_load_explicit(&g_keys[slot], memory_order_relaxed) == EMPTY_KEY) continue;
    Clear(&g_stamps[slot]);
    atomic_store_explicit(&g_keys[slot], EMPTY_KEY, memory_order_relaxed);
  }
  Clear(&g_overflow);
  atomic_store_explicit(&g_overflowed, 0, memory_order_relaxed);
}
