/* The interface between the preloaded library's interposers of a GPU
 * library's API (nccl_interposers.c) and the tracer. The preloaded library
 * is loaded at the program's start, before CUDA loads the tracer (at
 * cuInit); the tracer registers its hooks here when it starts
 * (streamcheck_set_library_hooks, looked up with dlsym). Until then, and in
 * processes without the tracer, each interposer only forwards the call.
 * Plain C: the preloaded library is C and tiny (it is in every process the
 * program starts, CUDA or not). */
#ifndef STREAMCHECK_TRACER_PRELOAD_LIBRARY_HOOKS_H_
#define STREAMCHECK_TRACER_PRELOAD_LIBRARY_HOOKS_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STREAMCHECK_LIBRARY_HOOKS_VERSION 1

/* The NCCL calls whose effect on the program's memory is modeled; every
 * other interposed NCCL call (initialization, destruction, registration)
 * is STREAMCHECK_NCCL_OTHER: its CUDA work is NCCL's own. */
typedef enum StreamcheckNcclFunction {
  STREAMCHECK_NCCL_OTHER = 0,
  STREAMCHECK_NCCL_ALL_REDUCE = 1,
  STREAMCHECK_NCCL_BROADCAST = 2,
  STREAMCHECK_NCCL_BCAST = 3,
  STREAMCHECK_NCCL_REDUCE = 4,
  STREAMCHECK_NCCL_ALL_GATHER = 5,
  STREAMCHECK_NCCL_REDUCE_SCATTER = 6,
  STREAMCHECK_NCCL_ALL_TO_ALL = 7,
  STREAMCHECK_NCCL_GATHER = 8,
  STREAMCHECK_NCCL_SCATTER = 9,
  STREAMCHECK_NCCL_SEND = 10,
  STREAMCHECK_NCCL_RECV = 11,
  STREAMCHECK_NCCL_GROUP_START = 12,
  STREAMCHECK_NCCL_GROUP_END = 13,
  /* Ends a group without launching it (ncclGroupSimulateEnd). */
  STREAMCHECK_NCCL_GROUP_SIMULATE_END = 14,
} StreamcheckNcclFunction;

/* One NCCL call: its arguments as the program passed them (buffers as
 * addresses), what the communicator says of itself, and the call's result. */
typedef struct StreamcheckNcclCall {
  int32_t function; /* StreamcheckNcclFunction */
  const char* name; /* "ncclAllReduce": static storage */
  uint64_t sendbuff;
  uint64_t recvbuff;
  uint64_t count; /* elements: count, sendcount (AllGather) or recvcount (ReduceScatter) */
  int32_t datatype; /* ncclDataType_t */
  int32_t root;     /* root, or peer of Send/Recv; -1 when the call has none */
  uint64_t comm;
  uint64_t stream; /* cudaStream_t */
  /* Of the communicator, from NCCL itself before the call (ncclCommCount,
   * ncclCommUserRank, ncclCommCuDevice); -1 where it could not say (a
   * nonblocking communicator still initializing). Filled for the modeled
   * stream operations only. */
  int32_t nranks;
  int32_t rank;
  int32_t device;
  int32_t result; /* ncclResult_t of the call, set before `leave` */
} StreamcheckNcclCall;

typedef struct StreamcheckLibraryHooks {
  uint32_t version;
  /* Around each interposed NCCL call, on the calling thread: what CUDA work
   * happens between the two is NCCL's own. `leave` gets the same call with
   * its result; it is called only where `enter` was. */
  void (*nccl_enter)(const StreamcheckNcclCall* call);
  void (*nccl_leave)(const StreamcheckNcclCall* call);
} StreamcheckLibraryHooks;

/* Defined by the preloaded library; the tracer calls it once when it starts
 * (the hooks must stay valid until exit). */
typedef void (*StreamcheckSetLibraryHooks)(const StreamcheckLibraryHooks* hooks);

#ifdef __cplusplus
}
#endif

#endif /* STREAMCHECK_TRACER_PRELOAD_LIBRARY_HOOKS_H_ */
