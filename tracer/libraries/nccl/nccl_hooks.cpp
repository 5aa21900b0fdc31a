#include "tracer/libraries/nccl/nccl_hooks.h"

#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

#include "tracer/libraries/mpi/mpi_hooks.h"
#include "tracer/libraries/nccl/nccl_operations.h"
#include "tracer/thread_state.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

// NCCL calls are microseconds each: a thread_local of this library's own
// (a __tls_get_addr per use) costs them nothing worth a ThreadState member.
thread_local NcclThreadCalls t_nccl_calls;

Tracer* g_tracer = nullptr;
StringId g_nccl_library = 0;  // "nccl", interned once

void OnNcclEnter(const StreamcheckNcclCall*) {
  t_nccl_calls.Enter();
  ThisThread().library_call = g_nccl_library;
}

void EmitOperations(Tracer& tracer, std::vector<NcclOperation>& issued, const std::vector<std::string>& problems) {
  std::lock_guard<TracerLock> lock(tracer.tracer_lock());
  for (const std::string& problem : problems) tracer.CountUnmodeled(problem);
  for (NcclOperation& op : issued) {
    // A kernel launch is what NCCL makes of it; the record says which
    // bytes that kernel reads and writes, which its arguments do not.
    TraceRecord r;
    r.op = OpCode::kKernelLaunch;
    r.api = tracer.InternStatic(op.grouped ? "ncclGroupEnd" : op.name);
    r.name = tracer.InternStatic(op.name);
    r.stream = op.stream;
    r.accesses = std::move(op.accesses);
    tracer.Emit(r);
  }
}

void OnNcclLeave(const StreamcheckNcclCall* call) {
  GuardInternalErrors("an NCCL call", [&] {
    std::vector<NcclOperation> issued;
    std::vector<std::string> problems;
    t_nccl_calls.Leave(*call, &issued, &problems);
    if (!t_nccl_calls.inside()) ThisThread().library_call = 0;
    if (!g_tracer->OwnsThisProcess() || (issued.empty() && problems.empty())) return;
    EmitOperations(*g_tracer, issued, problems);
  });
}

// MPI's are in tracer/libraries/mpi/.
const StreamcheckLibraryHooks kHooks = {STREAMCHECK_LIBRARY_HOOKS_VERSION, OnNcclEnter, OnNcclLeave, MpiEnter,
                                        MpiLeave};

}  // namespace

const StreamcheckLibraryHooks* LibraryHooksFor(Tracer* tracer) {
  g_tracer = tracer;
  std::lock_guard<TracerLock> lock(tracer->tracer_lock());
  g_nccl_library = tracer->Intern("nccl");
  SetMpiTracer(tracer);
  return &kHooks;
}

void RegisterLibraryHooks(Tracer* tracer) {
  auto set = reinterpret_cast<StreamcheckSetLibraryHooks>(dlsym(RTLD_DEFAULT, "streamcheck_set_library_hooks"));
  if (set != nullptr) set(LibraryHooksFor(tracer));
}

}  // namespace streamcheck::tracer
