// What the tracer keeps for each host thread of the program, in one object
// reached through one thread-local pointer (as TSan's ThreadState is).
//
// A CUDA call's callbacks reach the thread's state several times. CUDA loads
// this library with dlopen (CUDA_INJECTION64_PATH), and there a thread_local
// of the library's own is a call to __tls_get_addr, through the dynamic
// linker's tables, each time: some ten of them a kernel launch, with their
// cache lines. The pointer here is initial-exec: one load from the thread
// pointer. glibc places such a library's thread-locals in the static TLS it
// reserves for it; they are this pointer and a few bytes besides, so they fit
// with room to spare (the test tracer.static_tls_size keeps them so).
#pragma once

#include <array>
#include <cstdint>

#include "runtime/ids.h"
#include "runtime/trace_record.h"
#include "tracer/frameworks/framework_ops.h"
#include "tracer/host/page_span.h"
#include "tracer/preload/thread_order.h"
#include "tracer/stacks/repeated_stacks.h"

namespace streamcheck::tracer {

// A kernel node being added by cudaGraphAddKernelNode on this thread: the
// runtime call gives the argument array (one pointer per parameter, as the
// program passed them), the nested driver call the function
// (kernel_launches.cpp).
struct PendingKernelNode {
  bool active = false;
  void** args = nullptr;
  void* function = nullptr;  // the CUfunction
  const char* symbol = nullptr;
};

struct ThreadState {
  ThreadId id = 0;               // the thread in records; 0 until its first record (tracer.cpp)
  uint64_t unanalysed_sync = 0;  // its last call whose analysis may open guarded pages, not yet analysed (tracer.cpp)
  int runtime_depth = 0;         // traced runtime calls in progress (kernel_launches.cpp)
  // Whose CUDA work this thread's records are (TraceRecord::library): the
  // library whose API call is in progress here, set around the call by its
  // interposer's hooks (tracer/libraries/nccl/nccl_hooks.cpp), else the
  // library that started the thread, found at its first record
  // (tracer/libraries/library_modules.h). 0: the program's own.
  StringId library_call = 0;
  StringId library_thread = 0;
  // Its state in the preloaded library, from its first record; null without
  // the library (host_thread_order.h).
  streamcheck_thread_order* order = nullptr;
  // The precise front-end's ticket for the launch in progress on this thread
  // (tracer/sanitizer/), which the launch's record takes (kernel_launches.cpp).
  uint32_t device_access_ticket = 0;
  PendingKernelNode pending_kernel;
  // The host function this thread's cudaLaunchHostFunc / cudaStreamAddCallback
  // in progress follows, between the call's entry and exit (host_func_trampoline.h).
  void* host_func_run = nullptr;
  // Followed host functions running on this thread (a driver thread), between
  // their kHostFuncBegin and kHostFuncEnd: guard faults there are the
  // program's (host_guards.cpp).
  int followed_host_functions = 0;
  // The pages their faults opened, guarded again at their end (host_guards.h,
  // AfterFollowedHostFunction); written by the fault handler, so a fixed
  // array: pages beyond it stay open (a later access missed, never a false one).
  std::array<host::PageSpan, 8> host_function_opened{};
  uint8_t host_function_opened_count = 0;
  // The graph host-node call in progress on this thread (graph_host_nodes.cpp).
  struct GraphHostNodeCall {
    bool active = false;  // between a host-node call's runtime entry and exit
    bool fresh = false;   // `node` was made for it
    void* node = nullptr;  // the context it took
    uint64_t launch = 0;   // this thread's cudaGraphLaunch in flight (0: none)
    // The CUDA_HOST_NODE_PARAMS the driver call reads instead of the program's.
    alignas(void*) unsigned char params[2 * sizeof(void*)] = {};
  } host_node_call;
  // Reused for every record of their kind: their vectors keep their capacity.
  TraceRecord launch;
  TraceRecord open_ops;
  FrameworkOpStack framework_ops;
  RepeatedStacks repeated_stacks;
  // Guard pages opened for the CUDA call in progress, which reads or writes
  // them on the host itself (tracer/host/host_guards.h).
  std::vector<host::PageSpan> suspended_guards;
};

namespace internal {
// constinit: no dynamic initialization, so other files read it directly
// rather than through a TLS wrapper function.
extern constinit thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec")));
ThreadState& CreateThreadState();
}  // namespace internal

// The calling thread's state. At thread exit it is destroyed; a CUDA call
// made later still (by another thread-local's destructor, or by the CUDA
// runtime's teardown after the main thread's) gets a fresh one with the
// same thread id.
inline ThreadState& ThisThread() {
  if (ThreadState* state = internal::t_thread_state) [[likely]]
    return *state;
  return internal::CreateThreadState();
}

}  // namespace streamcheck::tracer
