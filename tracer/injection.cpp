// The entry point CUDA calls when CUDA_INJECTION64_PATH names this library,
// and the process lifecycle around it: exit, fork and (crash_signals.h) signals that end it.
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "tracer/crash_signals.h"
#include "tracer/cupti/cupti_callbacks.h"
#include "tracer/debug/debug_flags.h"
#include "tracer/frameworks/framework_plugin.h"
#include "tracer/host/host_guards.h"
#include "tracer/libraries/nccl/nccl_hooks.h"
#include "tracer/scopes/scope_hooks.h"
#include "tracer/tracer.h"
#if STREAMCHECK_HAVE_SANITIZER
#include "tracer/sanitizer/sanitizer_front_end.h"
#include "tracer/environment.h"
#endif

namespace streamcheck::tracer {
namespace {

Tracer* g_tracer = nullptr;
host::HostGuards* g_host_guards = nullptr;

void FinishAtExit() {
  if (!g_tracer) return;
  std::lock_guard<TracerLock> lock(g_tracer->tracer_lock());
  GuardInternalErrors("the final summary", [] { g_tracer->Finish(); });
}

// fork(): hold the tracer's lock, and keep the analysis worker between two
// records, across it so the child's copy is consistent; then give the child
// its own outputs. (The worker never forks; were it to, it must not wait for itself.)
// The guard pages' table is held too (after the tracer's lock, its order):
// the child gives every guarded page back (host_guards.h).
void BeforeFork() {
  if (!g_tracer || AnalysisWorker::OnWorkerThread()) return;
  g_tracer->tracer_lock().lock();
  g_tracer->PauseAnalysis();
  if (g_host_guards) g_host_guards->BeforeFork();
}
void AfterForkInParent() {
  if (!g_tracer || AnalysisWorker::OnWorkerThread()) return;
  if (g_host_guards) g_host_guards->AfterForkInParent();
  g_tracer->ResumeAnalysis();
  g_tracer->tracer_lock().unlock();
}
void AfterForkInChild() {
  if (!g_tracer || AnalysisWorker::OnWorkerThread()) return;
  if (g_host_guards) g_host_guards->AfterForkInChild();
  GuardInternalErrors("the forked child's start", [] { g_tracer->RestartAfterFork(); });
  g_tracer->tracer_lock().unlock();
}

// _exit() and _Exit(), through the hook of exit_hook.c (preloaded by
// `streamcheck run`): what exit() would do when the tracer's lock is free,
// else (another thread is inside a callback) what the crash handler does.
void BeforeImmediateExit() {
  if (!g_tracer || !g_tracer->OwnsThisProcess()) return;
  if (!g_tracer->tracer_lock().try_lock()) return g_tracer->SaveForCrash();
  GuardInternalErrors("the final summary", [] { g_tracer->Finish(); });
  g_tracer->tracer_lock().unlock();
}

void RegisterExitHook() {
  using SetExitHook = void (*)(void (*)());
  if (auto set = reinterpret_cast<SetExitHook>(dlsym(RTLD_DEFAULT, "streamcheck_set_exit_hook"))) set(BeforeImmediateExit);
}

// STREAMCHECK_PRECISE (`streamcheck run --precise[=GLOB]`) picks the
// Sanitizer API's front-end, which observes kernels' accesses on the
// device; without it, or where it cannot start, CUPTI's (fast mode). Only
// one of the two can subscribe in a process.
bool SubscribeFrontEnd(Tracer& tracer) {
  const char* precise = std::getenv(environment::kPrecise);
  if (precise == nullptr) return SubscribeCallbacks();
#if STREAMCHECK_HAVE_SANITIZER
  std::string error;
  if (SubscribePrecise(tracer, precise, &error)) return true;
  std::fprintf(stderr, "streamcheck: --precise is not available: %s; running in fast mode\n", error.c_str());
#else
  (void)tracer;
  std::fprintf(stderr,
               "streamcheck: --precise is not available: this tracer was built without the Compute Sanitizer "
               "API's headers; running in fast mode\n");
#endif
  return SubscribeCallbacks();
}

}  // namespace

Tracer* GlobalTracer() { return g_tracer; }

}  // namespace streamcheck::tracer

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  using namespace streamcheck::tracer;
  static std::once_flag once;
  std::call_once(once, [] {
    g_tracer = new Tracer(TracerConfig::FromEnvironment());  // lives until exit
    if (!SubscribeFrontEnd(*g_tracer)) return;
    if (!DebugFlag(DebugSwitch::kCallbacksOnly)) LoadFrameworkPlugins();  // that measures CUPTI alone
    g_tracer->host_thread_order().IgnoreCudaAndOwnCode();  // the plugins' locks too
    std::atexit(FinishAtExit);
    RegisterExitHook();
    RegisterScopeHooks(g_tracer);
    RegisterLibraryHooks(g_tracer);
    pthread_atfork(BeforeFork, AfterForkInParent, AfterForkInChild);
    const TracerConfig& config = g_tracer->config();
    g_host_guards = host::HostGuards::Start(*g_tracer, config.host_guards && config.queue_records &&
                                                           config.analyse_records &&
                                                           !DebugFlag(DebugSwitch::kCallbacksOnly));
    g_tracer->set_host_guards(g_host_guards);
    InstallCrashSignalHandlers(g_tracer);
  });
  return 1;
}
