// The CUDA driver, CUPTI, the CUDA runtime and the tracer itself call the
// pthread synchronization functions the preloaded library interposes (the
// driver hundreds of times per launch), and each call paid the interposer's
// check that the caller is ignored code. Their calls are bound to libc's
// functions instead, where the object imports them: its GOT entries for
// those functions are rewritten, so the calls never reach the interposers.
// What a rewrite cannot reach (an object with no such import, a function
// pointer fetched with dlsym, a statically linked runtime inside the
// program's own objects) still passes the interposers' check, as before.
//
// Before it, the interposers' library took a noticeable share of a PyTorch
// loop's program thread, most of it for calls from the CUDA driver
// (tests/gpu/bench/results/README.md has the figures).
#pragma once

#include <link.h>

namespace streamcheck::tracer {

// The real function behind an interposed synchronization function, by
// name; null for any other name (thread_order.h's real_sync_function).
using RealSyncFunction = void* (*)(const char* name);

// Rewrites the GOT entries of `object` (a loaded object, as dl_iterate_phdr
// gives it) for the synchronization functions it imports, so that its calls
// go to `real`'s functions; entries in its read-only-after-relocation part
// are made writable for the rewrite and read-only again, unless that part is
// not read-only yet (an object another thread is still loading: its entries
// stay as the loader makes them). Returns the number
// of entries rewritten (0 on architectures other than x86-64 and AArch64,
// and for an object without such imports); *left_some (if given) tells
// whether entries were left so, for a later call to try again.
int RebindSyncCalls(const dl_phdr_info& object, RealSyncFunction real, bool* left_some = nullptr);

}  // namespace streamcheck::tracer
