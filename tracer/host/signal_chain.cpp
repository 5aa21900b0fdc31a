#include "tracer/host/signal_chain.h"

#include <dlfcn.h>
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "tracer/preload/preload_hooks.h"

namespace streamcheck::tracer::host {
namespace {

constexpr long kKernelSigsetBytes = 8;

const StreamcheckPreload* g_preload = nullptr;
SignalChain::GuardFault g_guard_fault = nullptr;
SignalChain::BeforeFatal g_before_fatal = nullptr;
std::atomic<bool> g_installed{false};

// The program's disposition: written by the program's sigaction (under the
// preloaded library's lock) and by SA_RESETHAND's reset (in our handler),
// read by our handler on any thread. A sequence lock: odd while written.
struct ProgramAction {
  std::atomic<uint32_t> sequence{0};
  struct sigaction action {};

  struct sigaction Read() const {
    for (;;) {
      const uint32_t before = sequence.load(std::memory_order_acquire);
      if (before & 1) continue;
      struct sigaction copy;
      std::memcpy(&copy, &action, sizeof copy);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (sequence.load(std::memory_order_relaxed) == before) return copy;
    }
  }
  void Write(const struct sigaction& next) {
    for (;;) {
      uint32_t even = sequence.load(std::memory_order_relaxed) & ~1u;
      if (sequence.compare_exchange_weak(even, even + 1, std::memory_order_acquire)) break;
    }
    std::memcpy(&action, &next, sizeof action);
    sequence.fetch_add(1, std::memory_order_release);
  }
};
ProgramAction g_program;

// Per thread, for a second SIGSEGV while the program's handler runs.
thread_local int t_program_handler_depth __attribute__((tls_model("initial-exec"))) = 0;
thread_local bool t_program_handler_defers __attribute__((tls_model("initial-exec"))) = false;
thread_local bool t_nested_sent __attribute__((tls_model("initial-exec"))) = false;

void OnSegv(int sig, siginfo_t* info, void* context);

// Ours, for the kernel: every asynchronous signal blocked while it runs
// (the program's handler gets its own mask), SIGSEGV itself not (a guard
// fault inside the program's handler must reach us), SA_RESTART as the
// program asked for its own.
struct sigaction OurAction(int program_flags) {
  struct sigaction ours {};
  ours.sa_sigaction = OnSegv;
  ours.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER | (program_flags & SA_RESTART);
  sigfillset(&ours.sa_mask);
  for (int sync : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP}) sigdelset(&ours.sa_mask, sync);
  return ours;
}

bool SentByAProcess(const siginfo_t* info) { return info->si_code <= 0; }

// SIG_DFL's action, or the kernel's answer to a fault it may not deliver.
void DefaultAction(int sig, const siginfo_t* info, bool save_findings) {
  if (save_findings && g_before_fatal != nullptr) g_before_fatal();
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  g_preload->real_sigaction(sig, &dfl, nullptr);
  // A fault happens again on return; a sent signal is sent again.
  if (SentByAProcess(info)) syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
}

void CallProgramHandler(int sig, siginfo_t* info, ucontext_t* context, const struct sigaction& program) {
  if (program.sa_flags & SA_RESETHAND) {
    struct sigaction reset = program;
    reset.sa_handler = SIG_DFL;
    g_program.Write(reset);
  }
  sigset_t mask = context->uc_sigmask, saved;
  sigorset(&mask, &mask, &program.sa_mask);
  sigdelset(&mask, SIGSEGV);  // never for real (tracer/preload/signal_interpose.c)
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &mask, &saved, kKernelSigsetBytes);
  const int depth = t_program_handler_depth++;
  const bool defers = t_program_handler_defers;
  t_program_handler_defers = !(program.sa_flags & SA_NODEFER);
  if (program.sa_flags & SA_SIGINFO) program.sa_sigaction(sig, info, context);
  else program.sa_handler(sig);
  t_program_handler_depth = depth;
  t_program_handler_defers = defers;
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &saved, nullptr, kKernelSigsetBytes);
  if (t_nested_sent && depth == 0) {  // sent while the handler had it blocked: now it arrives
    t_nested_sent = false;
    syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), sig);
  }
}

void DeliverToProgram(int sig, siginfo_t* info, ucontext_t* context) {
  // Blocked for the program, by its mask or by the handler it is in: a
  // fault cannot wait and kills (the kernel forces it), a sent one waits.
  const bool blocked = g_preload->segv_blocked_by_program() || (t_program_handler_depth > 0 && t_program_handler_defers);
  if (blocked) {
    if (!SentByAProcess(info)) return DefaultAction(sig, info, /*save_findings=*/true);
    if (t_program_handler_depth > 0) t_nested_sent = true;
    else g_preload->defer_segv();
    return;
  }
  const struct sigaction program = g_program.Read();
  if (program.sa_handler == SIG_IGN) {
    if (!SentByAProcess(info)) DefaultAction(sig, info, /*save_findings=*/true);
    return;
  }
  if (program.sa_handler == SIG_DFL) return DefaultAction(sig, info, /*save_findings=*/true);
  CallProgramHandler(sig, info, context, program);
}

void OnSegv(int sig, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  auto* uc = static_cast<ucontext_t*>(context);
  if (!SentByAProcess(info) && g_guard_fault != nullptr && g_guard_fault(info, uc)) {
    errno = saved_errno;
    return;
  }
  DeliverToProgram(sig, info, uc);
  errno = saved_errno;
}

// The preloaded library's hook: the program's sigaction(SIGSEGV, ...).
int ProgramSigaction(const struct sigaction* act, struct sigaction* old) {
  struct sigaction next;
  if (act != nullptr) std::memcpy(&next, act, sizeof next);  // before the write: `act` may be anywhere
  if (old != nullptr) *old = g_program.Read();
  if (act == nullptr) return 0;
  g_program.Write(next);
  const struct sigaction ours = OurAction(next.sa_flags);
  g_preload->real_sigaction(SIGSEGV, &ours, nullptr);
  return 0;
}

int InstallNow(void*) {
  struct sigaction current {};
  if (g_preload->real_sigaction(SIGSEGV, nullptr, &current) != 0) return -1;
  g_program.Write(current);
  const struct sigaction ours = OurAction(current.sa_flags);
  return g_preload->real_sigaction(SIGSEGV, &ours, nullptr);
}

}  // namespace

bool SignalChain::Install(GuardFault guard_fault, BeforeFatal before_fatal, MemoryChanging memory_changing) {
  if (g_installed.load()) return true;
  using Get = const StreamcheckPreload* (*)();
  auto get = reinterpret_cast<Get>(dlsym(RTLD_DEFAULT, "streamcheck_preload"));
  const StreamcheckPreload* preload = get ? get() : nullptr;
  if (preload == nullptr || preload->version != STREAMCHECK_PRELOAD_VERSION) return false;
  g_preload = preload;
  g_guard_fault = guard_fault;
  g_before_fatal = before_fatal;
  static StreamcheckPreloadHooks hooks{ProgramSigaction, nullptr};
  hooks.memory_changing = memory_changing;
  if (preload->attach(&hooks, InstallNow, nullptr) != 0) return false;
  g_installed = true;
  return true;
}

bool SignalChain::Installed() { return g_installed.load(); }

bool SignalChain::StillFirst() {
  struct sigaction current {};
  return g_installed.load() && g_preload->real_sigaction(SIGSEGV, nullptr, &current) == 0 &&
         current.sa_sigaction == OnSegv;
}

}  // namespace streamcheck::tracer::host
