// No CUPTI callback is enabled without being used (issue 43, item 4): CUPTI
// costs a program per callback it fires, entry and exit, whether or not the
// tracer makes anything of it. Each call of every list the front-ends enable
// (api_routing.h) is made here, as a program would make it (not inside a
// runtime call), with made-up arguments, and must leave a record in the
// trace: one the engine takes, or a count of a call not modeled. A call
// added to a list without a decoder fails here, as does a decoder that stops
// taking a call its list still enables.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/trace/trace_io.h"
#include "tests/common/fake_driver.h"
#include "tracer/api_calls/api_routing.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

// Enabled only for what they give another call inside it: CUPTI reports
// them nested in the runtime call that needs them.
bool UsedOnlyInsideAnotherCall(ApiDomain domain, ApiCallbackId cbid) {
  // The kernel a cudaGraphAddKernelNode adds (its runtime parameters name
  // the host stub, the driver's the function).
  if (domain == ApiDomain::kDriver && (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode ||
                                       cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2))
    return true;
  // A graph host node's function swapped for the trampoline or given back
  // (graph_host_nodes.h): a parameter change orders nothing, so no record.
  return (domain == ApiDomain::kRuntime && (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphHostNodeSetParams_v10000 ||
                                            cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphExecHostNodeSetParams_v10020)) ||
         (domain == ApiDomain::kDriver && cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphHostNodeGetParams);
}

// Graph calls take arrays with their lengths, which made-up arguments cannot
// give: their decoding is tested with real ones (tests/tracer, graph
// records; tests/gpu's graph scenarios).
bool IsGraphCall(ApiDomain domain, ApiCallbackId cbid) {
  struct Named {
    ApiCallbackId cbid;
    std::string_view name;
  };
  static constexpr Named kModeled[] = {
#define X(name) {CUPTI_RUNTIME_TRACE_CBID_##name, #name},
#include "tracer/api_calls/modeled_runtime_calls.def"
#undef X
  };
  if (domain != ApiDomain::kRuntime) return false;
  for (const Named& call : kModeled)
    if (call.cbid == cbid) return call.name.find("Graph") != std::string_view::npos ||
                                  call.name.find("Capture") != std::string_view::npos;
  return false;
}

// Made-up arguments: every word of the parameters points into zeroed
// memory, so out-parameters read back 0, and sizes and flags are large but
// harmless. The pointer's low 32 bits are 4: an enum argument (a copy's
// cudaMemcpyKind) reads cudaMemcpyDefault, which every copy accepts.
struct MadeUpParams {
  MadeUpParams() {
    void* hint = reinterpret_cast<void*>(0x7e5500000000);
    scratch = mmap(hint, kScratch, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    EXPECT_EQ(scratch, hint);
    for (uint64_t& w : words) w = reinterpret_cast<uint64_t>(scratch) + cudaMemcpyDefault;
  }
  ~MadeUpParams() { munmap(scratch, kScratch); }
  static constexpr size_t kScratch = 1 << 16;
  void* scratch;
  uint64_t words[64];
};

// The records one call left in the trace, definitions and the tracer's own
// bookkeeping left out.
size_t RecordsOfOneCall(ApiDomain domain, ApiCallbackId cbid) {
  const std::string trace = ::testing::TempDir() + "enabled_callbacks." + std::to_string(getpid()) + ".trace";
  size_t made = 0;
  {
    TracerConfig config;
    config.trace_path = trace;
    config.capture_stacks = false;
    config.analysis_worker = false;
    Tracer tracer(config);
    MadeUpParams params;
    const std::string name = std::string(domain == ApiDomain::kRuntime ? "runtime " : "driver ") + std::to_string(cbid);
    fake_cuda::Call(&tracer, domain == ApiDomain::kRuntime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                    cbid, name.c_str(), params.words);
    tracer.Finish();
    std::string error;
    auto source = OpenTrace(trace, &error);
    EXPECT_TRUE(source) << error;
    TraceRecord r;
    while (source && source->Next(&r) == TraceSource::Status::kRecord)
      if (r.op != OpCode::kDefineString && r.op != OpCode::kDefineStack && r.op != OpCode::kProcessInfo &&
          r.op != OpCode::kHostThreadOrder)
        ++made;
  }
  std::remove(trace.c_str());
  return made;
}

TEST(EnabledCallbacks, EveryEnabledCallIsDecodedOrCounted) {
  InitApiRouting();
  size_t checked = 0;
  for (const EnabledCalls& list : AllEnabledCalls())
    for (const ApiCallbackId cbid : list.ids) {
      // Launches need a kernel the fake driver knows: callback_path_test.cpp makes them.
      if (list.domain == ApiDomain::kDriver && IsDriverLaunch(cbid)) continue;
      if (UsedOnlyInsideAnotherCall(list.domain, cbid) || IsGraphCall(list.domain, cbid)) continue;
      ++checked;
      EXPECT_GT(RecordsOfOneCall(list.domain, cbid), 0u)
          << (list.domain == ApiDomain::kRuntime ? "runtime" : "driver") << " callback id " << cbid
          << " is enabled but its call leaves no record: decode it, count it as not modeled, or stop enabling it";
    }
  EXPECT_GT(checked, 100u);
}

}  // namespace
}  // namespace streamcheck::tracer
