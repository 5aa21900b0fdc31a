// A software prefetch the compiler cannot delete. GCC 12 -O2 treats
// __builtin_prefetch as removable: it dropped the shadow-slot prefetch (an
// address masked with a vector's size() - 1) and a prefetch after a probe
// loop (assumed finite, so the loop and the prefetch it controls went away
// together; -fno-finite-loops keeps it). Both were found as bare `ret`s in
// objdump. On x86 the instruction is emitted as volatile asm instead.
#pragma once

namespace streamcheck {

// Starts loading the cache line holding `p` into all cache levels; never faults.
inline void PrefetchLine(const void* p) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  asm volatile("prefetcht0 (%0)" : : "r"(p));
#else
  __builtin_prefetch(p);
#endif
}

}  // namespace streamcheck
