#include "tracer/scopes/scope_hooks.h"

#include <dlfcn.h>

#include <atomic>

#include "tracer/preload/scope_hooks.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

std::atomic<Tracer*> g_scope_tracer{nullptr};

// Called from the program's threads through the preloaded library: never
// an exception across its C frames.
void Begin(const char* name) {
  if (Tracer* t = g_scope_tracer.load(std::memory_order_acquire))
    GuardInternalErrors("a scope's begin", [&] { t->ScopeBegin(name); });
}

void End() {
  if (Tracer* t = g_scope_tracer.load(std::memory_order_acquire))
    GuardInternalErrors("a scope's end", [&] { t->ScopeEnd(); });
}

long Errors(char* text, size_t size) {
  long found = 0;
  if (text != nullptr && size > 0) text[0] = '\0';
  if (Tracer* t = g_scope_tracer.load(std::memory_order_acquire))
    GuardInternalErrors("a scope's query", [&] { found = t->ScopeErrors(text, size); });
  return found;
}

constexpr StreamcheckScopeHooks kHooks{Begin, End, Errors};

// Looked up once, at registration: a thread's first record asks under the
// tracer's lock, where dlsym (the loader's lock) could wait for a dlopen
// whose constructor waits for the tracer's lock.
using OpenScopes = size_t (*)(const char**, size_t);
std::atomic<OpenScopes> g_open_scopes{nullptr};

}  // namespace

void RegisterScopeHooks(Tracer* tracer) {
  using SetScopeHooks = void (*)(const StreamcheckScopeHooks*);
  auto set = reinterpret_cast<SetScopeHooks>(dlsym(RTLD_DEFAULT, "streamcheck_set_scope_hooks"));
  if (set == nullptr) return;
  g_open_scopes.store(reinterpret_cast<OpenScopes>(dlsym(RTLD_DEFAULT, "streamcheck_open_scopes")),
                      std::memory_order_release);
  g_scope_tracer.store(tracer, std::memory_order_release);
  set(&kHooks);
}

std::vector<std::string_view> OpenScopesOfThisThread() {
  std::vector<std::string_view> names;
  const OpenScopes open = g_open_scopes.load(std::memory_order_acquire);
  if (open == nullptr) return names;
  std::vector<const char*> found(16);
  size_t n = open(found.data(), found.size());
  if (n > found.size()) {
    found.resize(n);
    n = open(found.data(), found.size());
  }
  for (size_t i = 0; i < n && i < found.size(); ++i) names.emplace_back(found[i]);
  return names;
}

}  // namespace streamcheck::tracer
