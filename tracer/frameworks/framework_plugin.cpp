// Framework plugins: when a framework the tracer knows is in the process
// (PyTorch: libtorch_cuda.so), its plugin (tracer/frameworks/pytorch/) is
// loaded and given the hooks of framework_hooks.h: the one beside the tracer
// where one was built with it, else one built for this very PyTorch in the
// per-user cache (torch_plugin_provider.h: built there on first use). Without
// a plugin everything still works at the CUDA level; the plugin adds op names,
// Python stacks, exact tensor bytes and the caching allocator's block reuse.
#include "tracer/frameworks/framework_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

#include "tracer/frameworks/framework_ops.h"
#include "tracer/frameworks/torch_plugin_provider.h"
#include "tracer/host/host_guards.h"
#include "tracer/tracer.h"
#include "tracer/environment.h"

namespace streamcheck::tracer {
namespace {

// The hooks run inside the framework's own code: an internal error of ours
// must not surface there as an exception (GuardInternalErrors).
uint32_t InternString(const char* text) {
  Tracer* t = GlobalTracer();
  if (t == nullptr || text == nullptr) return 0;
  uint32_t id = 0;
  GuardInternalErrors("a framework hook", [&] {
    std::lock_guard<TracerLock> lock(t->tracer_lock());
    id = t->Intern(text);
  });
  return id;
}

uint32_t InternStack(const StreamcheckFrame* frames, size_t count) {
  Tracer* t = GlobalTracer();
  if (t == nullptr || count == 0) return 0;
  uint32_t id = 0;
  GuardInternalErrors("a framework hook", [&] {
    std::lock_guard<TracerLock> lock(t->tracer_lock());
    id = t->AddFrameworkStack(frames, count);
  });
  return id;
}

// Op scopes are the calling thread's own state: no lock.
void OpBegin(uint32_t name, uint32_t stack, const StreamcheckTensorRegion* regions, size_t count) {
  GuardInternalErrors("a framework hook", [&] { ThisThreadFrameworkOps().Begin(name, stack, regions, count); });
}
void OpEnd() { ThisThreadFrameworkOps().End(); }

// Called under the framework allocator's lock; the tracer never calls into
// the framework while it holds its own, so the two locks nest one way only.
void BlockEvent(StreamcheckBlockEvent event, uint64_t address, uint64_t size, uint64_t stream, int device,
                uint32_t stack) {
  Tracer* t = GlobalTracer();
  if (t == nullptr) return;
  const uint64_t start = t->profile().Now();
  GuardInternalErrors("a framework hook", [&] {
    std::lock_guard<TracerLock> lock(t->tracer_lock());
    t->PoolBlock(event, address, size, stream, device, stack);
  });
  t->profile().Add(ProfilePhase::kFrameworkBlock, start);
}

int MayGuardHost(uint64_t begin, uint64_t end) {
  Tracer* t = GlobalTracer();
  const host::HostGuards* guards = t != nullptr ? t->host_guards() : nullptr;
  return guards != nullptr && guards->MayGuard(begin, end) ? 1 : 0;
}

const StreamcheckFrameworkHooks kHooks = {STREAMCHECK_FRAMEWORK_HOOKS_VERSION, InternString, InternStack,
                                          OpBegin, OpEnd, BlockEvent, MayGuardHost};

// The directory this library was loaded from (plugins sit beside it).
std::string OwnDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&OwnDirectory), &info) == 0 || info.dli_fname == nullptr) return ".";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// A plugin's optional export, called on each thread's first recorded call.
using ThreadStarted = void (*)();
std::atomic<ThreadStarted> g_thread_started{nullptr};
// A plugin's optional export: the calling thread's stack, for a host access.
using CurrentStack = uint32_t (*)();
std::atomic<CurrentStack> g_current_stack{nullptr};

struct KnownFramework {
  const char* marker_library;  // loaded in the process when the framework is
  const char* plugin;          // file name beside the tracer
  const char* name;
  // Where no plugin beside the tracer loads: the path of one made for the
  // framework in this process, or "" once it said why there is none.
  std::string (*provide)(const std::string& tracer_dir);
};
constexpr KnownFramework kFrameworks[] = {
    {"libtorch_cuda.so", "libstreamcheck_torch.so", "PyTorch", ProvideTorchPlugin},
};

// The framework's plugin, opened; nullptr after saying why not.
void* OpenPlugin(const KnownFramework& f) {
  std::string path = OwnDirectory() + "/" + f.plugin;
  if (access(path.c_str(), F_OK) == 0) {
    if (void* plugin = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return plugin;
    std::fprintf(stderr, "streamcheck: the %s plugin beside the tracer did not load (%s)%s\n", f.name, dlerror(),
                 f.provide != nullptr ? "; using one built for this process's framework instead" : "");
  }
  if (f.provide == nullptr || (path = f.provide(OwnDirectory())).empty()) return nullptr;
  void* plugin = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (plugin == nullptr)
    std::fprintf(stderr,
                 "streamcheck: %s is in the process but its plugin did not load (%s); races are still found "
                 "at the CUDA level, without op names, Python stacks or caching-allocator reuse (remove %s to "
                 "build it again)\n",
                 f.name, dlerror(), path.c_str());
  return plugin;
}

}  // namespace

void LoadFrameworkPlugins() {
  const char* disabled = std::getenv(environment::kFrameworks);
  if (disabled != nullptr && std::string(disabled) == "0") return;
  for (const KnownFramework& f : kFrameworks) {
    if (dlopen(f.marker_library, RTLD_NOLOAD | RTLD_LAZY) == nullptr) continue;
    void* plugin = OpenPlugin(f);
    if (plugin == nullptr) continue;
    auto attach = reinterpret_cast<StreamcheckFrameworkAttach>(dlsym(plugin, "streamcheck_framework_attach"));
    const char* why = "no streamcheck_framework_attach in the plugin";
    if (attach == nullptr || attach(&kHooks, &why) != 0) {
      std::fprintf(stderr, "streamcheck: the %s plugin did not attach: %s\n", f.name, why);
      continue;
    }
    g_thread_started = reinterpret_cast<ThreadStarted>(dlsym(plugin, "streamcheck_framework_thread_started"));
    g_current_stack = reinterpret_cast<CurrentStack>(dlsym(plugin, "streamcheck_framework_current_stack"));
  }
}

void NoteThreadToFrameworks() {
  if (const ThreadStarted started = g_thread_started.load(std::memory_order_relaxed)) started();
}

uint32_t FrameworkStackOfThisThread() {
  const CurrentStack current = g_current_stack.load(std::memory_order_relaxed);
  return current != nullptr ? current() : 0;
}

}  // namespace streamcheck::tracer
