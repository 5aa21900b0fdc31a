/* The program's signal calls, for the tracer's guard pages (preload_hooks.h).
 * Until a tracer attaches, every call goes straight to libc. Once attached:
 *   - sigaction(SIGSEGV) and signal()/bsd_signal()/sysv_signal() for SIGSEGV
 *     go to the tracer, which keeps the program's disposition and delivers
 *     to it every fault that is not a guard page's, as the kernel would; the
 *     kernel keeps the tracer's handler. A handler the program (or Python's
 *     faulthandler) installs later is so still the program's, and ours stays
 *     first. (The alternative, re-installing ours whenever we notice it gone,
 *     leaves a window in which a guard fault reaches the program's handler.)
 *   - SIGSEGV is never blocked for real: not by sigprocmask/pthread_sigmask
 *     (each thread's program still sees the mask it asked for), nor in the
 *     mask another signal's handler runs with. A guard page's fault while
 *     SIGSEGV is blocked would kill the process instead of reaching us.
 * Not seen: the raw rt_sigaction/rt_sigprocmask system calls, sigset(). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload_hooks.h"

typedef int (*SigactionFn)(int, const struct sigaction*, struct sigaction*);
typedef int (*SigmaskFn)(int, const sigset_t*, sigset_t*);

static SigactionFn g_real_sigaction;
static SigmaskFn g_real_sigprocmask, g_real_pthread_sigmask;
static const StreamcheckPreloadHooks* _Atomic g_hooks;
static atomic_flag g_segv_lock = ATOMIC_FLAG_INIT;
/* Signals whose handler's mask the program gave SIGSEGV (taken out for real). */
static _Atomic unsigned long long g_mask_had_segv;
/* The calling thread's program believes SIGSEGV blocked; a SIGSEGV sent
 * meanwhile waits for the unblock. */
static __thread int t_segv_blocked __attribute__((tls_model("initial-exec")));
static __thread int t_segv_deferred __attribute__((tls_model("initial-exec")));

static void Resolve(void) {
  if (!g_real_sigaction) g_real_sigaction = (SigactionFn)dlsym(RTLD_NEXT, "sigaction");
  if (!g_real_sigprocmask) g_real_sigprocmask = (SigmaskFn)dlsym(RTLD_NEXT, "sigprocmask");
  if (!g_real_pthread_sigmask) g_real_pthread_sigmask = (SigmaskFn)dlsym(RTLD_NEXT, "pthread_sigmask");
}
__attribute__((constructor)) static void ResolveAtLoad(void) { Resolve(); }

static const StreamcheckPreloadHooks* Hooks(void) { return atomic_load_explicit(&g_hooks, memory_order_acquire); }

/* The SIGSEGV disposition changes one at a time, with this thread's signals
 * blocked (a handler calling sigaction must not find the lock held by the
 * code it interrupted). */
static void LockSegv(sigset_t* saved) {
  sigset_t all;
  sigfillset(&all);
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, saved, 8);
  while (atomic_flag_test_and_set_explicit(&g_segv_lock, memory_order_acquire)) sched_yield();
}
static void UnlockSegv(const sigset_t* saved) {
  atomic_flag_clear_explicit(&g_segv_lock, memory_order_release);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, saved, NULL, 8);
}

static unsigned long long Bit(int sig) { return 1ull << (sig & 63); }

__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  Resolve();
  const StreamcheckPreloadHooks* hooks = Hooks();
  if (!hooks) {
    if (sig != SIGSEGV) return g_real_sigaction(sig, act, old);
    sigset_t saved;
    LockSegv(&saved);
    hooks = Hooks();  /* attached meanwhile? */
    const int rc = hooks ? hooks->segv_sigaction(act, old) : g_real_sigaction(sig, act, old);
    UnlockSegv(&saved);
    return rc;
  }
  if (sig == SIGSEGV) return hooks->segv_sigaction(act, old);
  if (sig <= 0 || sig >= 64) return g_real_sigaction(sig, act, old);
  struct sigaction copy;
  const int had = (atomic_load(&g_mask_had_segv) & Bit(sig)) != 0;
  if (act) {
    copy = *act;
    if (sigismember(&copy.sa_mask, SIGSEGV)) atomic_fetch_or(&g_mask_had_segv, Bit(sig));
    else atomic_fetch_and(&g_mask_had_segv, ~Bit(sig));
    sigdelset(&copy.sa_mask, SIGSEGV);
    act = &copy;
  }
  const int rc = g_real_sigaction(sig, act, old);
  if (rc == 0 && old && had) sigaddset(&old->sa_mask, SIGSEGV);
  return rc;
}
__attribute__((visibility("default"))) int __sigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  return sigaction(sig, act, old);
}

/* signal() and its kin: glibc's own, except for SIGSEGV while attached,
 * where they are what glibc makes of them (BSD semantics for signal(), SysV
 * for sysv_signal()) through sigaction above. */
typedef __sighandler_t (*SignalFn)(int, __sighandler_t);
static __sighandler_t SignalWith(int sig, __sighandler_t handler, int flags, int mask_itself) {
  struct sigaction act, old;
  memset(&act, 0, sizeof act);
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (mask_itself) sigaddset(&act.sa_mask, sig);
  act.sa_flags = flags;
  if (sigaction(sig, &act, &old) < 0) return SIG_ERR;
  return old.sa_handler;
}
#define SIGNAL_FUNCTION(name, flags, mask_itself)                                    \
  __attribute__((visibility("default"))) __sighandler_t name(int sig, __sighandler_t handler) { \
    if (sig == SIGSEGV && Hooks()) return SignalWith(sig, handler, flags, mask_itself);  \
    static SignalFn real;                                                             \
    if (!real) real = (SignalFn)dlsym(RTLD_NEXT, #name);                              \
    return real(sig, handler);                                                        \
  }
SIGNAL_FUNCTION(signal, SA_RESTART, 1)
SIGNAL_FUNCTION(bsd_signal, SA_RESTART, 1)
SIGNAL_FUNCTION(sysv_signal, SA_RESETHAND | SA_NODEFER, 0)
SIGNAL_FUNCTION(__sysv_signal, SA_RESETHAND | SA_NODEFER, 0)

/* The program's mask, minus SIGSEGV for real while attached. */
static int ChangeMask(SigmaskFn real, int how, const sigset_t* set, sigset_t* old) {
  if (!Hooks()) return real(how, set, old);
  const int was_blocked = t_segv_blocked;
  sigset_t copy;
  if (set) {
    const int named = sigismember(set, SIGSEGV) == 1;
    copy = *set;
    sigdelset(&copy, SIGSEGV);
    if (how == SIG_SETMASK) t_segv_blocked = named;
    else if (named && how == SIG_BLOCK) t_segv_blocked = 1;
    else if (named && how == SIG_UNBLOCK) t_segv_blocked = 0;
    set = &copy;
  }
  const int rc = real(how, set, old);
  if (rc != 0) {
    t_segv_blocked = was_blocked;
    return rc;
  }
  if (old && was_blocked) sigaddset(old, SIGSEGV);
  if (was_blocked && !t_segv_blocked && t_segv_deferred) {
    t_segv_deferred = 0;
    raise(SIGSEGV);
  }
  return rc;
}
__attribute__((visibility("default"))) int sigprocmask(int how, const sigset_t* set, sigset_t* old) {
  Resolve();
  return ChangeMask(g_real_sigprocmask, how, set, old);
}
__attribute__((visibility("default"))) int pthread_sigmask(int how, const sigset_t* set, sigset_t* old) {
  Resolve();
  const int rc = ChangeMask(g_real_pthread_sigmask, how, set, old);
  return rc;
}

static int SegvBlockedByProgram(void) { return t_segv_blocked; }
static void DeferSegv(void) { t_segv_deferred = 1; }

static int Attach(const StreamcheckPreloadHooks* hooks, int (*install)(void*), void* context) {
  Resolve();
  sigset_t saved;
  LockSegv(&saved);
  const int rc = install(context);
  if (rc == 0) atomic_store_explicit(&g_hooks, hooks, memory_order_release);
  UnlockSegv(&saved);
  if (rc != 0) return rc;
  /* Handlers installed before: SIGSEGV out of the masks they run with. */
  for (int sig = 1; sig < 64; ++sig) {
    struct sigaction a;
    if (sig == SIGSEGV || sig == SIGKILL || sig == SIGSTOP || g_real_sigaction(sig, NULL, &a) != 0) continue;
    if (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN || !sigismember(&a.sa_mask, SIGSEGV)) continue;
    atomic_fetch_or(&g_mask_had_segv, Bit(sig));
    sigdelset(&a.sa_mask, SIGSEGV);
    g_real_sigaction(sig, &a, NULL);
  }
  return 0;
}

static int RealSigaction(int sig, const struct sigaction* act, struct sigaction* old) {
  Resolve();
  return g_real_sigaction(sig, act, old);
}

static const StreamcheckPreload kPreload = {STREAMCHECK_PRELOAD_VERSION, RealSigaction, Attach, SegvBlockedByProgram,
                                            DeferSegv};

__attribute__((visibility("default"))) const StreamcheckPreload* streamcheck_preload(void) { return &kPreload; }

/* For memory_interpose.c. */
const StreamcheckPreloadHooks* streamcheck_preload_hooks(void) { return Hooks(); }
