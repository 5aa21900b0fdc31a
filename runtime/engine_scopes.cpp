// Per-test scopes (scope_table.h, docs/SCOPES.md): markers of the host
// thread, not CUDA calls; they order nothing and touch no clock. What they
// change is the site of the thread's later operations (SiteOf).
#include "runtime/engine_impl.h"

namespace streamcheck {

void Engine::Impl::ScopeBegin(const TraceRecord& r) {
  switch (scopes_.Begin(r.thread, r.name)) {
    case ScopeTable::Change::kTooDeep:
      Anomaly("scope nested deeper than 64 (its operations count as the enclosing scope's)");
      break;
    case ScopeTable::Change::kTooMany:
      Anomaly("more than a million distinct scopes (a new one counts as the enclosing scope)");
      break;
    default: break;
  }
}

void Engine::Impl::ScopeEnd(const TraceRecord& r) {
  if (scopes_.End(r.thread) == ScopeTable::Change::kNoneOpen) Anomaly("scope ended with none open on its thread");
}

void Engine::Impl::ForEachFindingInScope(uint32_t scope, const Engine::ScopeFindingVisitor& visit) const {
  findings_.ForEach([&](const FindingKey& key, uint64_t local_id, uint64_t count) {
    if (scopes_.Within(sites_.Get(key.later_site).scope, scope)) visit(local_id, count);
  });
}

}  // namespace streamcheck
