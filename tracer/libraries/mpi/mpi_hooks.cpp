#include "tracer/libraries/mpi/mpi_hooks.h"

#include <string>
#include <vector>

#include "tracer/libraries/mpi/mpi_operations.h"
#include "tracer/thread_state.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

Tracer* g_tracer = nullptr;
StringId g_mpi_library = 0;  // "mpi", interned once
// Requests outlive their threads; never destroyed (MPI calls may come from
// other libraries' destructors at exit).
MpiRequests& Requests() {
  static MpiRequests* requests = new MpiRequests;
  return *requests;
}
// MPI's own calls of its API (rare: most implementations call internals)
// are inside the program's, which alone is modeled.
thread_local int t_depth = 0;

void Emit(const char* api, std::vector<MpiRecord>& records, const std::string& problem) {
  if (!g_tracer->OwnsThisProcess() || (records.empty() && problem.empty())) return;
  std::lock_guard<TracerLock> lock(g_tracer->tracer_lock());
  if (!problem.empty()) g_tracer->CountUnmodeled(problem);
  for (MpiRecord& m : records) {
    TraceRecord r;
    r.op = m.op;
    r.api = g_tracer->InternStatic(api);
    r.id = m.id;
    r.accesses = std::move(m.accesses);
    g_tracer->Emit(r);
  }
}

}  // namespace

void MpiEnter(StreamcheckMpiCall* call) {
  if (t_depth++ > 0) {
    call->operation = 0;
    return;
  }
  GuardInternalErrors("an MPI call", [&] {
    std::vector<MpiRecord> started;
    std::string problem;
    Requests().Enter(call, &started, &problem);
    Emit(call->name, started, problem);
  });
  ThisThread().library_call = g_mpi_library;
}

void MpiLeave(StreamcheckMpiCall* call) {
  if (--t_depth > 0) return;
  ThisThread().library_call = 0;
  GuardInternalErrors("an MPI call", [&] {
    std::vector<MpiRecord> ended;
    Requests().Leave(*call, &ended);
    Emit(call->name, ended, {});
  });
}

void SetMpiTracer(Tracer* tracer) {
  g_tracer = tracer;
  g_mpi_library = tracer->Intern("mpi");
}

}  // namespace streamcheck::tracer
