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

#define STREAMCHECK_LIBRARY_HOOKS_VERSION 2

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

/* What an interposed MPI call does (mpi_interposers.c), by the MPI
 * standard's "Nonblocking Communication": */
typedef enum StreamcheckMpiKind {
  /* Uses its buffers during the call (MPI_Send, MPI_Recv, MPI_Allreduce). */
  STREAMCHECK_MPI_BLOCKING = 1,
  /* Starts an operation on its buffers that lasts until its request
   * (`new_request` after the call) completes (MPI_Isend, MPI_Iallreduce). */
  STREAMCHECK_MPI_NONBLOCKING = 2,
  /* Makes a persistent request (`new_request`) for its buffers, which each
   * MPI_Start of it starts (MPI_Send_init, MPI_Recv_init). */
  STREAMCHECK_MPI_PERSISTENT_INIT = 3,
  /* Starts the persistent `requests` (MPI_Start, MPI_Startall). */
  STREAMCHECK_MPI_START = 4,
  /* May complete `requests`: `completed` says which did (MPI_Wait*, MPI_Test*). */
  STREAMCHECK_MPI_COMPLETE = 5,
  /* Frees `requests` (MPI_Request_free): their completion can no longer be seen. */
  STREAMCHECK_MPI_FREE = 6,
} StreamcheckMpiKind;

enum { STREAMCHECK_MPI_READ = 1, STREAMCHECK_MPI_WRITE = 2, STREAMCHECK_MPI_READ_WRITE = 3 };

typedef struct StreamcheckMpiBuffer {
  uint64_t address;
  uint64_t size; /* bytes from `address` the datatype and count span */
  int32_t mode;  /* STREAMCHECK_MPI_READ, _WRITE or _READ_WRITE */
} StreamcheckMpiBuffer;

/* One MPI call. Handles are opaque: an MPI_Request is a pointer in Open
 * MPI and an int in MPICH; the interposers read each at its ABI's width. */
typedef struct StreamcheckMpiCall {
  int32_t kind;     /* StreamcheckMpiKind */
  const char* name; /* "MPI_Isend": static storage */
  StreamcheckMpiBuffer buffers[2];
  int32_t buffer_count;
  /* Unknown datatype extents or counts: the call's bytes are not known
   * (the tracer counts it as not modeled). */
  int32_t unknown_extent;
  const uint64_t* requests; /* START, COMPLETE, FREE: the handles, read before the call */
  int32_t request_count;
  const uint8_t* completed; /* COMPLETE, after the call: 1 for each request it completed */
  uint64_t new_request;     /* NONBLOCKING, PERSISTENT_INIT, after the call */
  int32_t result;           /* the call's return code (MPI_SUCCESS = 0), set before `leave` */
  uint32_t operation;       /* the tracer's, from `enter` to `leave` */
} StreamcheckMpiCall;

typedef struct StreamcheckLibraryHooks {
  uint32_t version;
  /* Around each interposed NCCL call, on the calling thread: what CUDA work
   * happens between the two is NCCL's own. `leave` gets the same call with
   * its result; it is called only where `enter` was. */
  void (*nccl_enter)(const StreamcheckNcclCall* call);
  void (*nccl_leave)(const StreamcheckNcclCall* call);
  /* Around each interposed MPI call, the same way; NULL: MPI not observed. */
  void (*mpi_enter)(StreamcheckMpiCall* call);
  void (*mpi_leave)(StreamcheckMpiCall* call);
} StreamcheckLibraryHooks;

/* Defined by the preloaded library; the tracer calls it once when it starts
 * (the hooks must stay valid until exit). */
typedef void (*StreamcheckSetLibraryHooks)(const StreamcheckLibraryHooks* hooks);

#ifdef __cplusplus
}
#endif

#endif /* STREAMCHECK_TRACER_PRELOAD_LIBRARY_HOOKS_H_ */
