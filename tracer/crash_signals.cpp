#include "tracer/crash_signals.h"

#include <atomic>
#include <csignal>

#include "tracer/host/signal_chain.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

// Their default action ends the process (with a core for some).
constexpr int kEndingSignals[] = {SIGSEGV, SIGBUS, SIGFPE,  SIGILL,  SIGABRT, SIGTERM, SIGHUP, SIGINT,
                                  SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ, SIGALRM, SIGUSR1, SIGUSR2};
std::atomic<Tracer*> g_tracer{nullptr};
struct sigaction g_previous[NSIG];

void OnEndingSignal(int sig) {
  if (Tracer* t = g_tracer.load()) t->SaveForCrash();
  sigaction(sig, &g_previous[sig], nullptr);
  raise(sig);
}

}  // namespace

void InstallCrashSignalHandlers(Tracer* tracer) {
  g_tracer.store(tracer);
  for (int sig : kEndingSignals) {
    if (sig == SIGSEGV && host::SignalChain::Installed()) continue;
    struct sigaction current {};
    sigaction(sig, nullptr, &current);
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) continue;
    struct sigaction ours {};
    ours.sa_handler = OnEndingSignal;
    sigemptyset(&ours.sa_mask);
    ours.sa_flags = SA_RESETHAND;
    sigaction(sig, &ours, &g_previous[sig]);
  }
}

}  // namespace streamcheck::tracer
