/* What the preloaded library (signal_interpose.c, memory_interpose.c) offers
 * the tracer for its guard pages (tracer/host/): the program's SIGSEGV
 * disposition kept apart from the kernel's (where the tracer's handler stays
 * first), SIGSEGV never blocked for real, and word of the program's own
 * mprotect/munmap before they happen. Plain C: the preloaded library is C and
 * tiny, loaded into every process the program starts, and does nothing until
 * a tracer attaches. */
#ifndef STREAMCHECK_TRACER_PRELOAD_HOOKS_H_
#define STREAMCHECK_TRACER_PRELOAD_HOOKS_H_

#include <signal.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STREAMCHECK_PRELOAD_VERSION 1

typedef struct StreamcheckPreloadHooks {
  /* The program's sigaction(SIGSEGV, act, old) (and signal() and its kin):
   * the tracer keeps the program's disposition. Returns 0 or -1 with errno. */
  int (*segv_sigaction)(const struct sigaction* act, struct sigaction* old);
  /* The program is about to change the protection of, or unmap, [addr, addr+len). */
  void (*memory_changing)(void* addr, size_t len);
} StreamcheckPreloadHooks;

typedef struct StreamcheckPreload {
  int version;
  /* libc's sigaction, for the tracer's own handler. */
  int (*real_sigaction)(int sig, const struct sigaction* act, struct sigaction* old);
  /* Runs install(context) while no program call can change SIGSEGV's
   * disposition, and, when it returns 0, routes the program's calls to
   * `hooks` from then on (the hooks must outlive the process). */
  int (*attach)(const StreamcheckPreloadHooks* hooks, int (*install)(void* context), void* context);
  /* Whether the calling thread's program believes SIGSEGV blocked (the real
   * mask never blocks it while attached: a guard page's fault must reach the
   * tracer's handler, and a blocked fault signal kills the process). */
  int (*segv_blocked_by_program)(void);
  /* A SIGSEGV sent to the calling thread (kill, raise) while its program
   * believes it blocked: raised again when the program unblocks it. */
  void (*defer_segv)(void);
} StreamcheckPreload;

/* Exported by the preloaded library; found with dlsym(RTLD_DEFAULT, ...). */
const StreamcheckPreload* streamcheck_preload(void);

#ifdef __cplusplus
}
#endif

#endif /* STREAMCHECK_TRACER_PRELOAD_HOOKS_H_ */
