// SIGSEGV for the guard pages: the tracer's handler is the kernel's, first,
// for the whole run; the program's disposition (what it installed before the
// tracer came, and whatever it, its libraries or Python's faulthandler
// install later through the preloaded library: tracer/preload/preload_hooks.h)
// is kept here, and every fault that is not a guard page's is delivered to it
// as the kernel would have:
//   * a handler: called with the program's SA_SIGINFO choice (siginfo and the
//     very ucontext, which it may change), under the mask the kernel would
//     have set (the interrupted mask, its sa_mask, the signal itself unless
//     SA_NODEFER; SIGSEGV is never blocked for real: a second fault inside
//     a handler without SA_NODEFER kills the process, as the kernel's forced
//     delivery would), after SA_RESETHAND's reset; on the alternate stack
//     when the thread has one (ours is installed with SA_ONSTACK, so a stack
//     overflow's fault reaches the program's sigaltstack handler too);
//   * SIG_DFL: the tracer saves its findings (as its crash handler does for
//     the other fatal signals), the kernel's default is restored, and the
//     fault happens again (or a sent SIGSEGV is raised again): the process
//     ends as it would have, with the same status and core;
//   * SIG_IGN: a sent SIGSEGV is ignored; a fault kills, as the kernel does.
// A SIGSEGV sent while the thread's program believes it blocked waits for
// the unblock. Without the preloaded library nothing is installed and there
// are no guard pages: a handler installed later would take our place.
#pragma once

#include <signal.h>
#include <stddef.h>
#include <ucontext.h>

namespace streamcheck::tracer::host {

class SignalChain {
 public:
  // A guard page's fault? True when handled (the program's handler is not called).
  using GuardFault = bool (*)(siginfo_t* info, ucontext_t* context);
  // Runs before SIGSEGV's default action ends the process.
  using BeforeFatal = void (*)();
  // The program is about to mprotect or unmap [addr, addr+len).
  using MemoryChanging = void (*)(void* addr, size_t len);

  // Installs our handler and attaches to the preloaded library; false, and
  // nothing changed, without it (or with one from another build). Once per process.
  static bool Install(GuardFault guard_fault, BeforeFatal before_fatal, MemoryChanging memory_changing);
  static bool Installed();
  // Whether our handler is still the kernel's (a raw rt_sigaction system
  // call, which the preloaded library cannot see, may have replaced it).
  static bool StillFirst();
};

}  // namespace streamcheck::tracer::host
