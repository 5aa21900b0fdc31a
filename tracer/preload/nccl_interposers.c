/* NCCL's API, interposed (preloaded by `streamcheck run`). NCCL's kernels
 * take no pointer to the program's buffers (they read them from work
 * descriptors), so a collective's reads and writes are invisible to CUPTI,
 * and the CUDA calls NCCL makes for itself (its streams, events, staging
 * copies) look like the program's. Each function here forwards to NCCL's
 * own and tells the tracer, around it, what was called with which buffers
 * (library_hooks.h); the tracer (tracer/libraries/nccl/) models the call
 * and keeps NCCL's own CUDA work apart.
 *
 * Interposition works wherever the program reaches NCCL through the dynamic
 * linker: a program or library linked with libnccl.so (PyTorch's
 * libtorch_cuda.so has it as a needed library), or a dlopen with
 * RTLD_GLOBAL. A program that links NCCL statically, or calls it through
 * pointers it took with dlsym on NCCL's own handle, is not seen
 * (docs/internals/nccl.md). Prototypes are declared here with the ABI's plain types:
 * NCCL's header is not needed to build this. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tracer/preload/library_hooks.h"

typedef int NcclResult; /* ncclResult_t, an enum */
typedef void* NcclComm;
typedef void* CudaStream;
typedef struct {
  char internal[128];
} NcclUniqueId; /* passed by value */
enum { kNcclSuccess = 0, kNcclInternalError = 3 };

static const StreamcheckLibraryHooks* g_library_hooks;

__attribute__((visibility("default"))) void streamcheck_set_library_hooks(const StreamcheckLibraryHooks* hooks) {
  if (hooks != NULL && hooks->version != STREAMCHECK_LIBRARY_HOOKS_VERSION) return;
  __atomic_store_n(&g_library_hooks, hooks, __ATOMIC_RELEASE);
}

static const StreamcheckLibraryHooks* Hooks(void) { return __atomic_load_n(&g_library_hooks, __ATOMIC_ACQUIRE); }
/* For the other libraries' interposers (mpi_interposers.c). */
__attribute__((visibility("hidden"))) const StreamcheckLibraryHooks* streamcheck_library_hooks(void) {
  return Hooks();
}

/* NCCL's own definition of `name`: the next one in the global scope, or,
 * where NCCL was loaded into a local scope (a dlopen without RTLD_GLOBAL,
 * as Python extensions are), NCCL's own by its handle (pncclX is the
 * implementation ncclX stands for). */
static void* FindNccl(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f != NULL) return f;
  void* lib = dlopen("libnccl.so.2", RTLD_LAZY | RTLD_NOLOAD);
  if (lib == NULL) lib = dlopen("libnccl.so", RTLD_LAZY | RTLD_NOLOAD);
  if (lib == NULL) return NULL;
  char implementation[96];
  snprintf(implementation, sizeof implementation, "p%s", name);
  f = dlsym(lib, implementation);
  if (f == NULL) f = dlsym(lib, name);
  dlclose(lib); /* the reference RTLD_NOLOAD took: NCCL stays loaded */
  return f;
}

static void* Nccl(void** slot, const char* name) {
  void* f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (f != NULL) return f;
  f = FindNccl(name);
  if (f != NULL) __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  return f;
}

static NcclResult MissingNccl(const char* name) {
  fprintf(stderr, "streamcheck: %s was called but NCCL's own %s is not in the process\n", name, name);
  return kNcclInternalError;
}

/* What the communicator says of itself, before the call that may end it. */
static void CommunicatorFacts(StreamcheckNcclCall* call, NcclComm comm) {
  typedef NcclResult (*IntOfComm)(NcclComm, int*);
  static void* count_slot;
  static void* rank_slot;
  static void* device_slot;
  const IntOfComm count = (IntOfComm)Nccl(&count_slot, "ncclCommCount");
  const IntOfComm rank = (IntOfComm)Nccl(&rank_slot, "ncclCommUserRank");
  const IntOfComm device = (IntOfComm)Nccl(&device_slot, "ncclCommCuDevice");
  int value = 0;
  call->nranks = count != NULL && count(comm, &value) == kNcclSuccess ? value : -1;
  call->rank = rank != NULL && rank(comm, &value) == kNcclSuccess ? value : -1;
  call->device = device != NULL && device(comm, &value) == kNcclSuccess ? value : -1;
}

static void Operation(StreamcheckNcclCall* call, StreamcheckNcclFunction function, const void* sendbuff,
                      const void* recvbuff, size_t count, int datatype, int root, NcclComm comm, CudaStream stream) {
  call->function = function;
  call->sendbuff = (uint64_t)(uintptr_t)sendbuff;
  call->recvbuff = (uint64_t)(uintptr_t)recvbuff;
  call->count = count;
  call->datatype = datatype;
  call->root = root;
  call->comm = (uint64_t)(uintptr_t)comm;
  call->stream = (uint64_t)(uintptr_t)stream;
  CommunicatorFacts(call, comm);
}

/* One interposer: `describe` fills `call` (a StreamcheckNcclCall) from the
 * arguments when a tracer listens. */
#define STREAMCHECK_NCCL(fn, params, args, describe)                           \
  __attribute__((visibility("default"))) NcclResult fn params {                \
    typedef NcclResult(*Real) params;                                          \
    static void* slot;                                                         \
    const Real real = (Real)Nccl(&slot, #fn);                                  \
    if (real == NULL) return MissingNccl(#fn);                                 \
    const StreamcheckLibraryHooks* hooks = Hooks();                            \
    if (hooks == NULL) return real args;                                       \
    StreamcheckNcclCall call = {0};                                            \
    call.name = #fn;                                                           \
    call.root = call.nranks = call.rank = call.device = -1;                    \
    describe;                                                                  \
    hooks->nccl_enter(&call);                                                  \
    const NcclResult result = real args;                                       \
    call.result = result;                                                      \
    hooks->nccl_leave(&call);                                                  \
    return result;                                                             \
  }
#define OTHER (void)0
#define GROUP(which) call.function = (which)

/* Calls whose CUDA work is all NCCL's own. */
STREAMCHECK_NCCL(ncclMemAlloc, (void** ptr, size_t size), (ptr, size), OTHER)
STREAMCHECK_NCCL(ncclMemFree, (void* ptr), (ptr), OTHER)
STREAMCHECK_NCCL(ncclGetUniqueId, (NcclUniqueId * id), (id), OTHER)
STREAMCHECK_NCCL(ncclCommInitRankConfig, (NcclComm * comm, int nranks, NcclUniqueId id, int rank, void* config),
                 (comm, nranks, id, rank, config), OTHER)
STREAMCHECK_NCCL(ncclCommInitRank, (NcclComm * comm, int nranks, NcclUniqueId id, int rank), (comm, nranks, id, rank),
                 OTHER)
STREAMCHECK_NCCL(ncclCommInitAll, (NcclComm * comms, int ndev, const int* devlist), (comms, ndev, devlist), OTHER)
STREAMCHECK_NCCL(ncclCommInitRankScalable,
                 (NcclComm * comm, int nranks, int rank, int nids, NcclUniqueId* ids, void* config),
                 (comm, nranks, rank, nids, ids, config), OTHER)
STREAMCHECK_NCCL(ncclCommFinalize, (NcclComm comm), (comm), OTHER)
STREAMCHECK_NCCL(ncclCommDestroy, (NcclComm comm), (comm), OTHER)
STREAMCHECK_NCCL(ncclCommAbort, (NcclComm comm), (comm), OTHER)
STREAMCHECK_NCCL(ncclCommRevoke, (NcclComm comm, int flags), (comm, flags), OTHER)
STREAMCHECK_NCCL(ncclCommSplit, (NcclComm comm, int color, int key, NcclComm* newcomm, void* config),
                 (comm, color, key, newcomm, config), OTHER)
STREAMCHECK_NCCL(ncclCommShrink,
                 (NcclComm comm, int* exclude, int excluded, NcclComm* newcomm, void* config, int flags),
                 (comm, exclude, excluded, newcomm, config, flags), OTHER)
STREAMCHECK_NCCL(ncclCommGetAsyncError, (NcclComm comm, NcclResult * error), (comm, error), OTHER)
STREAMCHECK_NCCL(ncclCommRegister, (NcclComm comm, void* buff, size_t size, void** handle),
                 (comm, buff, size, handle), OTHER)
STREAMCHECK_NCCL(ncclCommDeregister, (NcclComm comm, void* handle), (comm, handle), OTHER)
STREAMCHECK_NCCL(ncclCommWindowRegister, (NcclComm comm, void* buff, size_t size, void* win, int flags),
                 (comm, buff, size, win, flags), OTHER)
STREAMCHECK_NCCL(ncclCommWindowDeregister, (NcclComm comm, void* win), (comm, win), OTHER)
STREAMCHECK_NCCL(ncclRedOpCreatePreMulSum, (int* op, void* scalar, int datatype, int residence, NcclComm comm),
                 (op, scalar, datatype, residence, comm), OTHER)
STREAMCHECK_NCCL(ncclRedOpDestroy, (int op, NcclComm comm), (op, comm), OTHER)
STREAMCHECK_NCCL(ncclDevCommCreate, (NcclComm comm, const void* requirements, void* devcomm),
                 (comm, requirements, devcomm), OTHER)
STREAMCHECK_NCCL(ncclDevCommDestroy, (NcclComm comm, const void* devcomm), (comm, devcomm), OTHER)

/* The stream operations. */
STREAMCHECK_NCCL(ncclAllReduce,
                 (const void* send, void* recv, size_t count, int type, int op, NcclComm comm, CudaStream stream),
                 (send, recv, count, type, op, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_ALL_REDUCE, send, recv, count, type, -1, comm, stream))
STREAMCHECK_NCCL(ncclBroadcast,
                 (const void* send, void* recv, size_t count, int type, int root, NcclComm comm, CudaStream stream),
                 (send, recv, count, type, root, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_BROADCAST, send, recv, count, type, root, comm, stream))
STREAMCHECK_NCCL(ncclBcast, (void* buff, size_t count, int type, int root, NcclComm comm, CudaStream stream),
                 (buff, count, type, root, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_BCAST, buff, buff, count, type, root, comm, stream))
STREAMCHECK_NCCL(ncclReduce,
                 (const void* send, void* recv, size_t count, int type, int op, int root, NcclComm comm,
                  CudaStream stream),
                 (send, recv, count, type, op, root, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_REDUCE, send, recv, count, type, root, comm, stream))
STREAMCHECK_NCCL(ncclAllGather,
                 (const void* send, void* recv, size_t sendcount, int type, NcclComm comm, CudaStream stream),
                 (send, recv, sendcount, type, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_ALL_GATHER, send, recv, sendcount, type, -1, comm, stream))
STREAMCHECK_NCCL(ncclReduceScatter,
                 (const void* send, void* recv, size_t recvcount, int type, int op, NcclComm comm, CudaStream stream),
                 (send, recv, recvcount, type, op, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_REDUCE_SCATTER, send, recv, recvcount, type, -1, comm, stream))
STREAMCHECK_NCCL(ncclAlltoAll,
                 (const void* send, void* recv, size_t count, int type, NcclComm comm, CudaStream stream),
                 (send, recv, count, type, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_ALL_TO_ALL, send, recv, count, type, -1, comm, stream))
STREAMCHECK_NCCL(ncclGather,
                 (const void* send, void* recv, size_t count, int type, int root, NcclComm comm, CudaStream stream),
                 (send, recv, count, type, root, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_GATHER, send, recv, count, type, root, comm, stream))
STREAMCHECK_NCCL(ncclScatter,
                 (const void* send, void* recv, size_t count, int type, int root, NcclComm comm, CudaStream stream),
                 (send, recv, count, type, root, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_SCATTER, send, recv, count, type, root, comm, stream))
STREAMCHECK_NCCL(ncclSend, (const void* send, size_t count, int type, int peer, NcclComm comm, CudaStream stream),
                 (send, count, type, peer, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_SEND, send, NULL, count, type, peer, comm, stream))
STREAMCHECK_NCCL(ncclRecv, (void* recv, size_t count, int type, int peer, NcclComm comm, CudaStream stream),
                 (recv, count, type, peer, comm, stream),
                 Operation(&call, STREAMCHECK_NCCL_RECV, NULL, recv, count, type, peer, comm, stream))

/* Groups: what is called inside is launched at the outermost end. */
STREAMCHECK_NCCL(ncclGroupStart, (void), (), GROUP(STREAMCHECK_NCCL_GROUP_START))
STREAMCHECK_NCCL(ncclGroupEnd, (void), (), GROUP(STREAMCHECK_NCCL_GROUP_END))
STREAMCHECK_NCCL(ncclGroupSimulateEnd, (void* info), (info), GROUP(STREAMCHECK_NCCL_GROUP_SIMULATE_END))
