/* MPI's API, interposed (preloaded by `streamcheck run`): the calls that move
 * or complete data. Each forwards to MPI's own function with its arguments,
 * return value and errno unchanged, and tells the tracer, around it, which
 * bytes the call reads and writes and which requests it starts or completes
 * (library_hooks.h); the tracer (tracer/libraries/mpi/) models them by the
 * MPI standard (runtime/engine_mpi.cpp, docs/internals/mpi.md).
 *
 * One build serves Open MPI and MPICH (and Intel MPI, MVAPICH, mpi4py on
 * either): their headers are not needed. Handles are opaque words: an
 * MPI_Datatype, MPI_Comm or MPI_Request is a pointer in Open MPI and an int
 * in MPICH, and an int argument arrives in the same register a pointer
 * would, so taking each as a uintptr_t and passing it on is exact for both.
 * Only where handles lie in memory (request arrays) does the width matter:
 * it is read from which MPI is loaded (HandleBytes). Datatype extents come
 * from MPI itself (PMPI_Type_get_true_extent), so derived types count too.
 *
 * MPI_Init, MPI_Initialized and the communicator queries are not
 * interposed: libraries probe for MPI with dlsym(RTLD_DEFAULT, "MPI_Init"),
 * and a process without MPI must not appear to have it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/preload/library_hooks.h"

typedef uintptr_t Handle; /* MPI_Datatype, MPI_Comm, MPI_Op: pointer or int */
typedef intptr_t Aint;    /* MPI_Aint */
enum { kMpiSuccess = 0, kMpiErrOther = 15, kMpiUndefined = -32766 /* both ABIs */, kInlineRequests = 64 };

__attribute__((visibility("hidden"))) const StreamcheckLibraryHooks* streamcheck_library_hooks(void);

static const StreamcheckLibraryHooks* MpiHooks(void) {
  const StreamcheckLibraryHooks* hooks = streamcheck_library_hooks();
  return hooks != NULL && hooks->mpi_enter != NULL ? hooks : NULL;
}

/* Where MPI was loaded into a local scope (mpi4py's extension is dlopened
 * without RTLD_GLOBAL), RTLD_NEXT does not reach it: find it among the
 * loaded objects by the names MPI libraries have. */
static int FindLoadedMpi(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  const char* slash = strrchr(info->dlpi_name, '/');
  const char* base = slash != NULL ? slash + 1 : info->dlpi_name;
  if (strncmp(base, "libmpi", 6) != 0 || strstr(base, "streamcheck") != NULL) return 0;
  if (strncmp(base, "libmpi_", 7) == 0 && strncmp(base, "libmpi_abi", 10) != 0) return 0; /* libmpi_cxx, _mpifh */
  void* lib = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
  if (lib == NULL) return 0;
  void** found = (void**)data;
  void* f = dlsym(lib, (const char*)found[1]);
  dlclose(lib); /* the reference RTLD_NOLOAD took: MPI stays loaded */
  if (f == NULL) return 0;
  found[0] = f;
  return 1;
}

static void* Mpi(void** slot, const char* name) {
  void* f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (f != NULL) return f;
  f = dlsym(RTLD_NEXT, name);
  if (f == NULL) {
    void* found[2] = {NULL, (void*)name};
    dl_iterate_phdr(FindLoadedMpi, found);
    f = found[0];
  }
  if (f != NULL) __atomic_store_n(slot, f, __ATOMIC_RELEASE);
  return f;
}

static int MissingMpi(const char* name) {
  fprintf(stderr, "streamcheck: %s was called but MPI's own %s is not in the process\n", name, name);
  return kMpiErrOther;
}

/* Bytes one handle takes in memory: 8 (pointers) for Open MPI and MPI 5's
 * standard ABI, 4 (ints) for MPICH and its derivatives. */
static size_t HandleBytes(void) {
  static int bytes;
  int b = __atomic_load_n(&bytes, __ATOMIC_RELAXED);
  if (b == 0) {
    static void* ompi_slot;
    static void* abi_slot;
    b = Mpi(&ompi_slot, "ompi_mpi_comm_world") != NULL || Mpi(&abi_slot, "MPI_Abi_get_version") != NULL ? 8 : 4;
    __atomic_store_n(&bytes, b, __ATOMIC_RELAXED);
  }
  return (size_t)b;
}

static uint64_t ReadHandle(const void* array, int index) {
  if (HandleBytes() == 8) return ((const uint64_t*)array)[index];
  return (uint32_t)((const int32_t*)array)[index];
}

static int IntOfComm(const char* name, void** slot, Handle comm) {
  typedef int (*Query)(Handle, int*);
  const Query query = (Query)Mpi(slot, name);
  int value = -1;
  if (query == NULL || query(comm, &value) != kMpiSuccess) return -1;
  return value;
}
static int CommRank(Handle comm) {
  static void* slot;
  return IntOfComm("PMPI_Comm_rank", &slot, comm);
}
static int CommSize(Handle comm) {
  static void* slot;
  return IntOfComm("PMPI_Comm_size", &slot, comm);
}

/* MPI_IN_PLACE is (void*)1 in Open MPI and (void*)-1 in MPICH; MPI_BOTTOM is 0. */
static int NotABuffer(const void* buf) {
  const uintptr_t p = (uintptr_t)buf;
  return p == 0 || p == 1 || p == UINTPTR_MAX;
}

/* The bytes `count` elements of `type` span from element `first` of `buf`:
 * from that element's true lower bound to the last one's true upper bound. */
static void AddElements(StreamcheckMpiCall* call, const void* buf, long first, long count, Handle type, int mode) {
  if (NotABuffer(buf) || count <= 0 || call->buffer_count >= 2) return;
  typedef int (*Extent)(Handle, Aint*, Aint*);
  typedef int (*Size)(Handle, int*);
  static void* extent_slot;
  static void* true_extent_slot;
  static void* size_slot;
  const Extent extent = (Extent)Mpi(&extent_slot, "PMPI_Type_get_extent");
  const Extent true_extent = (Extent)Mpi(&true_extent_slot, "PMPI_Type_get_true_extent");
  Aint lb = 0, ext = 0, true_lb = 0, true_ext = 0;
  uint64_t begin = (uint64_t)(uintptr_t)buf, size;
  if (extent != NULL && true_extent != NULL && extent(type, &lb, &ext) == kMpiSuccess &&
      true_extent(type, &true_lb, &true_ext) == kMpiSuccess && ext >= 0 && true_ext >= 0) {
    begin += (uint64_t)(first * (long)ext + (long)true_lb);
    size = (uint64_t)(count - 1) * (uint64_t)ext + (uint64_t)true_ext;
  } else {
    const Size type_size = (Size)Mpi(&size_slot, "PMPI_Type_size");
    int bytes = 0;
    if (type_size == NULL || type_size(type, &bytes) != kMpiSuccess || bytes < 0) {
      call->unknown_extent = 1;
      return;
    }
    begin += (uint64_t)(first * (long)bytes);
    size = (uint64_t)count * (uint64_t)bytes;
  }
  if (size == 0) return;
  StreamcheckMpiBuffer* b = &call->buffers[call->buffer_count++];
  b->address = begin;
  b->size = size;
  b->mode = mode;
}

static void AddBuffer(StreamcheckMpiCall* call, const void* buf, long count, Handle type, int mode) {
  AddElements(call, buf, 0, count, type, mode);
}

/* Reduce-like calls: MPI_IN_PLACE as the send buffer makes the receive
 * buffer both read and written. */
static void AddReduction(StreamcheckMpiCall* call, const void* send, void* recv, long count, Handle type) {
  const int in_place = NotABuffer(send) && send != NULL;
  if (!in_place) AddBuffer(call, send, count, type, STREAMCHECK_MPI_READ);
  AddBuffer(call, recv, count, type, in_place ? STREAMCHECK_MPI_READ_WRITE : STREAMCHECK_MPI_WRITE);
}

/* A call's requests and which of them it completed: in the interposer's
 * frame for up to kInlineRequests, on the heap beyond (a halo exchange with
 * many neighbours waits on hundreds at once; a request left out would keep
 * its buffer in use and make a later, ordered access a false race). */
typedef struct {
  uint64_t inline_values[kInlineRequests];
  uint8_t inline_completed[kInlineRequests];
  uint64_t* values;
  uint8_t* completed;
  void* heap;
} RequestArrays;

/* The requests of a completion or start call, read before the call: after
 * it MPI has set completed ones to MPI_REQUEST_NULL. Without memory for more
 * than kInlineRequests, the first kInlineRequests are followed and the rest
 * are not (docs/internals/mpi.md). */
static void ReadRequests(StreamcheckMpiCall* call, RequestArrays* arrays, int count, const void* requests) {
  arrays->values = arrays->inline_values;
  arrays->completed = arrays->inline_completed;
  memset(arrays->inline_completed, 0, sizeof arrays->inline_completed);
  if (count > kInlineRequests) {
    arrays->heap = calloc((size_t)count, sizeof(uint64_t) + sizeof(uint8_t));
    if (arrays->heap != NULL) {
      arrays->values = (uint64_t*)arrays->heap;
      arrays->completed = (uint8_t*)(arrays->values + count);
    } else {
      count = kInlineRequests;
    }
  }
  for (int i = 0; requests != NULL && i < count; ++i) arrays->values[i] = ReadHandle(requests, i);
  call->requests = arrays->values;
  call->request_count = requests != NULL && count > 0 ? count : 0;
}

/* One interposer. `describe` runs before the call when a tracer listens;
 * `after` runs after it (it sees `result`) and before `leave`. */
#define STREAMCHECK_MPI(fn, kind_, params, args, describe, after)         \
  __attribute__((visibility("default"))) int fn params {                  \
    typedef int(*Real) params;                                            \
    static void* slot;                                                    \
    const Real real = (Real)Mpi(&slot, #fn);                              \
    if (real == NULL) return MissingMpi(#fn);                             \
    const StreamcheckLibraryHooks* hooks = MpiHooks();                    \
    if (hooks == NULL) return real args;                                  \
    StreamcheckMpiCall call;                                              \
    memset(&call, 0, sizeof call);                                        \
    RequestArrays requests_of_call;                                       \
    requests_of_call.heap = NULL;                                         \
    call.kind = (kind_);                                                  \
    call.name = #fn;                                                      \
    describe;                                                             \
    const int saved_errno = errno;                                        \
    hooks->mpi_enter(&call);                                              \
    errno = saved_errno;                                                  \
    const int result = real args;                                         \
    const int result_errno = errno;                                       \
    call.result = result;                                                 \
    after;                                                                \
    hooks->mpi_leave(&call);                                              \
    free(requests_of_call.heap);                                          \
    errno = result_errno;                                                 \
    return result;                                                        \
  }
#define NOTHING (void)0
#define R STREAMCHECK_MPI_READ
#define W STREAMCHECK_MPI_WRITE
#define RW STREAMCHECK_MPI_READ_WRITE
#define BLOCKING STREAMCHECK_MPI_BLOCKING
#define NONBLOCKING STREAMCHECK_MPI_NONBLOCKING
#define NEW_REQUEST(request) \
  if (result == kMpiSuccess && (request) != NULL) call.new_request = ReadHandle((request), 0)
#define RANK_IS_ROOT (CommRank(comm) == root)

/* Point to point, blocking. */
#define SEND_PARAMS (const void* buf, int count, Handle type, int dest, int tag, Handle comm)
#define SEND_ARGS (buf, count, type, dest, tag, comm)
STREAMCHECK_MPI(MPI_Send, BLOCKING, SEND_PARAMS, SEND_ARGS, AddBuffer(&call, buf, count, type, R), NOTHING)
STREAMCHECK_MPI(MPI_Ssend, BLOCKING, SEND_PARAMS, SEND_ARGS, AddBuffer(&call, buf, count, type, R), NOTHING)
STREAMCHECK_MPI(MPI_Bsend, BLOCKING, SEND_PARAMS, SEND_ARGS, AddBuffer(&call, buf, count, type, R), NOTHING)
STREAMCHECK_MPI(MPI_Rsend, BLOCKING, SEND_PARAMS, SEND_ARGS, AddBuffer(&call, buf, count, type, R), NOTHING)
STREAMCHECK_MPI(MPI_Recv, BLOCKING, (void* buf, int count, Handle type, int source, int tag, Handle comm, void* status),
                (buf, count, type, source, tag, comm, status), AddBuffer(&call, buf, count, type, W), NOTHING)
STREAMCHECK_MPI(MPI_Sendrecv,
                BLOCKING, (const void* sendbuf, int sendcount, Handle sendtype, int dest, int sendtag, void* recvbuf,
                           int recvcount, Handle recvtype, int source, int recvtag, Handle comm, void* status),
                (sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                 status),
                {
                  AddBuffer(&call, sendbuf, sendcount, sendtype, R);
                  AddBuffer(&call, recvbuf, recvcount, recvtype, W);
                },
                NOTHING)
STREAMCHECK_MPI(MPI_Sendrecv_replace,
                BLOCKING, (void* buf, int count, Handle type, int dest, int sendtag, int source, int recvtag,
                           Handle comm, void* status),
                (buf, count, type, dest, sendtag, source, recvtag, comm, status),
                AddBuffer(&call, buf, count, type, RW), NOTHING)

/* Point to point, nonblocking. */
#define ISEND_PARAMS (const void* buf, int count, Handle type, int dest, int tag, Handle comm, void* request)
#define ISEND_ARGS (buf, count, type, dest, tag, comm, request)
STREAMCHECK_MPI(MPI_Isend, NONBLOCKING, ISEND_PARAMS, ISEND_ARGS, AddBuffer(&call, buf, count, type, R),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Issend, NONBLOCKING, ISEND_PARAMS, ISEND_ARGS, AddBuffer(&call, buf, count, type, R),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Ibsend, NONBLOCKING, ISEND_PARAMS, ISEND_ARGS, AddBuffer(&call, buf, count, type, R),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Irsend, NONBLOCKING, ISEND_PARAMS, ISEND_ARGS, AddBuffer(&call, buf, count, type, R),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Irecv, NONBLOCKING,
                (void* buf, int count, Handle type, int source, int tag, Handle comm, void* request),
                (buf, count, type, source, tag, comm, request), AddBuffer(&call, buf, count, type, W),
                NEW_REQUEST(request))

/* Persistent requests: made here, started by MPI_Start/MPI_Startall. */
#define INIT STREAMCHECK_MPI_PERSISTENT_INIT
STREAMCHECK_MPI(MPI_Send_init, INIT, ISEND_PARAMS, ISEND_ARGS, AddBuffer(&call, buf, count, type, R),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Ssend_init, INIT, ISEND_PARAMS, ISEND_ARGS, AddBuffer(&call, buf, count, type, R),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Bsend_init, INIT, ISEND_PARAMS, ISEND_ARGS, AddBuffer(&call, buf, count, type, R),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Rsend_init, INIT, ISEND_PARAMS, ISEND_ARGS, AddBuffer(&call, buf, count, type, R),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Recv_init, INIT,
                (void* buf, int count, Handle type, int source, int tag, Handle comm, void* request),
                (buf, count, type, source, tag, comm, request), AddBuffer(&call, buf, count, type, W),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Start, STREAMCHECK_MPI_START, (void* request), (request), ReadRequests(&call, &requests_of_call, 1, request),
                NOTHING)
STREAMCHECK_MPI(MPI_Startall, STREAMCHECK_MPI_START, (int count, void* requests), (count, requests),
                ReadRequests(&call, &requests_of_call, count, requests), NOTHING)
STREAMCHECK_MPI(MPI_Request_free, STREAMCHECK_MPI_FREE, (void* request), (request),
                ReadRequests(&call, &requests_of_call, 1, request), NOTHING)

/* Completion: which requests completed, from what the call says after it. */
#define COMPLETE STREAMCHECK_MPI_COMPLETE
#define ALL_IF(condition)                                                                  \
  do {                                                                                     \
    if (condition)                                                                         \
      for (int i = 0; i < call.request_count; ++i) requests_of_call.completed[i] = 1;      \
    call.completed = requests_of_call.completed;                                           \
  } while (0)
#define ONE_IF(condition, index)                                                           \
  do {                                                                                     \
    if ((condition) && (index) >= 0 && (index) < call.request_count)                       \
      requests_of_call.completed[index] = 1;                                               \
    call.completed = requests_of_call.completed;                                           \
  } while (0)
#define SOME(outcount, indices)                                                            \
  do {                                                                                     \
    if (result == kMpiSuccess && (outcount) != NULL && (indices) != NULL)                  \
      for (int i = 0; i < *(outcount); ++i)                                                \
        if ((indices)[i] >= 0 && (indices)[i] < call.request_count)                        \
          requests_of_call.completed[(indices)[i]] = 1;                                    \
    call.completed = requests_of_call.completed;                                           \
  } while (0)
STREAMCHECK_MPI(MPI_Wait, COMPLETE, (void* request, void* status), (request, status),
                ReadRequests(&call, &requests_of_call, 1, request), ALL_IF(result == kMpiSuccess))
STREAMCHECK_MPI(MPI_Test, COMPLETE, (void* request, int* flag, void* status), (request, flag, status),
                ReadRequests(&call, &requests_of_call, 1, request), ALL_IF(result == kMpiSuccess && flag != NULL && *flag))
STREAMCHECK_MPI(MPI_Waitall, COMPLETE, (int count, void* requests, void* statuses), (count, requests, statuses),
                ReadRequests(&call, &requests_of_call, count, requests), ALL_IF(result == kMpiSuccess))
STREAMCHECK_MPI(MPI_Testall, COMPLETE, (int count, void* requests, int* flag, void* statuses),
                (count, requests, flag, statuses), ReadRequests(&call, &requests_of_call, count, requests),
                ALL_IF(result == kMpiSuccess && flag != NULL && *flag))
STREAMCHECK_MPI(MPI_Waitany, COMPLETE, (int count, void* requests, int* index, void* status),
                (count, requests, index, status), ReadRequests(&call, &requests_of_call, count, requests),
                ONE_IF(result == kMpiSuccess && index != NULL && *index != kMpiUndefined, index ? *index : -1))
STREAMCHECK_MPI(MPI_Testany, COMPLETE, (int count, void* requests, int* index, int* flag, void* status),
                (count, requests, index, flag, status), ReadRequests(&call, &requests_of_call, count, requests),
                ONE_IF(result == kMpiSuccess && flag != NULL && *flag && index != NULL, index ? *index : -1))
STREAMCHECK_MPI(MPI_Waitsome, COMPLETE,
                (int incount, void* requests, int* outcount, int* indices, void* statuses),
                (incount, requests, outcount, indices, statuses), ReadRequests(&call, &requests_of_call, incount, requests),
                SOME(outcount, indices))
STREAMCHECK_MPI(MPI_Testsome, COMPLETE,
                (int incount, void* requests, int* outcount, int* indices, void* statuses),
                (incount, requests, outcount, indices, statuses), ReadRequests(&call, &requests_of_call, incount, requests),
                SOME(outcount, indices))

/* Collectives, blocking and nonblocking (MPI standard, chapter 6: the
 * nonblocking ones' buffers "must not be accessed" until completion). */
#define BCAST_BODY AddBuffer(&call, buf, count, type, RANK_IS_ROOT ? R : W)
STREAMCHECK_MPI(MPI_Bcast, BLOCKING, (void* buf, int count, Handle type, int root, Handle comm),
                (buf, count, type, root, comm), BCAST_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Ibcast, NONBLOCKING, (void* buf, int count, Handle type, int root, Handle comm, void* request),
                (buf, count, type, root, comm, request), BCAST_BODY, NEW_REQUEST(request))

#define REDUCE_PARAMS (const void* send, void* recv, int count, Handle type, Handle op, int root, Handle comm)
#define REDUCE_BODY                                                                           \
  {                                                                                           \
    if (RANK_IS_ROOT) AddReduction(&call, send, recv, count, type);                          \
    else AddBuffer(&call, send, count, type, R);                                             \
  }
STREAMCHECK_MPI(MPI_Reduce, BLOCKING, REDUCE_PARAMS, (send, recv, count, type, op, root, comm), REDUCE_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Ireduce, NONBLOCKING,
                (const void* send, void* recv, int count, Handle type, Handle op, int root, Handle comm,
                 void* request),
                (send, recv, count, type, op, root, comm, request), REDUCE_BODY, NEW_REQUEST(request))

#define ALLREDUCE_PARAMS (const void* send, void* recv, int count, Handle type, Handle op, Handle comm)
#define IALLREDUCE_PARAMS \
  (const void* send, void* recv, int count, Handle type, Handle op, Handle comm, void* request)
STREAMCHECK_MPI(MPI_Allreduce, BLOCKING, ALLREDUCE_PARAMS, (send, recv, count, type, op, comm),
                AddReduction(&call, send, recv, count, type), NOTHING)
STREAMCHECK_MPI(MPI_Iallreduce, NONBLOCKING, IALLREDUCE_PARAMS, (send, recv, count, type, op, comm, request),
                AddReduction(&call, send, recv, count, type), NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Scan, BLOCKING, ALLREDUCE_PARAMS, (send, recv, count, type, op, comm),
                AddReduction(&call, send, recv, count, type), NOTHING)
STREAMCHECK_MPI(MPI_Iscan, NONBLOCKING, IALLREDUCE_PARAMS, (send, recv, count, type, op, comm, request),
                AddReduction(&call, send, recv, count, type), NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Exscan, BLOCKING, ALLREDUCE_PARAMS, (send, recv, count, type, op, comm),
                AddReduction(&call, send, recv, count, type), NOTHING)
STREAMCHECK_MPI(MPI_Iexscan, NONBLOCKING, IALLREDUCE_PARAMS, (send, recv, count, type, op, comm, request),
                AddReduction(&call, send, recv, count, type), NEW_REQUEST(request))
/* Each rank's recvcount elements of the result; the send buffer holds them all. */
#define REDUCE_SCATTER_BODY                                                                    \
  {                                                                                            \
    const int in_place = NotABuffer(send) && send != NULL;                                    \
    const int ranks = CommSize(comm);                                                          \
    if (ranks < 0) call.unknown_extent = 1;                                                    \
    if (!in_place) AddBuffer(&call, send, (long)count * ranks, type, R);                       \
    AddBuffer(&call, recv, in_place ? (long)count * ranks : count, type, in_place ? RW : W);   \
  }
STREAMCHECK_MPI(MPI_Reduce_scatter_block, BLOCKING, ALLREDUCE_PARAMS, (send, recv, count, type, op, comm),
                REDUCE_SCATTER_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Ireduce_scatter_block, NONBLOCKING, IALLREDUCE_PARAMS,
                (send, recv, count, type, op, comm, request), REDUCE_SCATTER_BODY, NEW_REQUEST(request))

/* Gathers and scatters: the root's (or every rank's) side holds one block a rank. */
#define GATHER_PARAMS \
  (const void* send, int sendcount, Handle sendtype, void* recv, int recvcount, Handle recvtype, int root, Handle comm)
#define IGATHER_PARAMS                                                                                              \
  (const void* send, int sendcount, Handle sendtype, void* recv, int recvcount, Handle recvtype, int root, Handle comm, \
   void* request)
#define GATHER_ARGS (send, sendcount, sendtype, recv, recvcount, recvtype, root, comm)
#define IGATHER_ARGS (send, sendcount, sendtype, recv, recvcount, recvtype, root, comm, request)
#define ALLGATHER_PARAMS \
  (const void* send, int sendcount, Handle sendtype, void* recv, int recvcount, Handle recvtype, Handle comm)
#define IALLGATHER_PARAMS                                                                                 \
  (const void* send, int sendcount, Handle sendtype, void* recv, int recvcount, Handle recvtype, Handle comm, \
   void* request)
#define ALLGATHER_ARGS (send, sendcount, sendtype, recv, recvcount, recvtype, comm)
#define IALLGATHER_ARGS (send, sendcount, sendtype, recv, recvcount, recvtype, comm, request)
/* `gathers`: the receive side has a block a rank; `scatters`: the send side does. */
static void AddBlocks(StreamcheckMpiCall* call, const void* send, int sendcount, Handle sendtype, void* recv,
                      int recvcount, Handle recvtype, Handle comm, int gathers, int scatters, int has_send,
                      int has_recv) {
  const int ranks = CommSize(comm);
  if (ranks < 0) call->unknown_extent = 1;
  const int in_place = NotABuffer(send) && send != NULL;
  if (has_send && !in_place) AddBuffer(call, send, (long)sendcount * (scatters ? ranks : 1), sendtype, R);
  if (has_recv && !NotABuffer(recv))
    AddBuffer(call, recv, (long)recvcount * (gathers ? ranks : 1), recvtype, in_place && gathers ? RW : W);
}
#define GATHER_BODY                                                                                               \
  {                                                                                                               \
    const int at_root = RANK_IS_ROOT;                                                                             \
    AddBlocks(&call, send, sendcount, sendtype, recv, recvcount, recvtype, comm, 1, 0, 1, at_root);              \
  }
#define SCATTER_BODY                                                                                              \
  {                                                                                                               \
    const int at_root = RANK_IS_ROOT;                                                                             \
    AddBlocks(&call, send, sendcount, sendtype, recv, recvcount, recvtype, comm, 0, 1, at_root, 1);              \
  }
STREAMCHECK_MPI(MPI_Gather, BLOCKING, GATHER_PARAMS, GATHER_ARGS, GATHER_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Igather, NONBLOCKING, IGATHER_PARAMS, IGATHER_ARGS, GATHER_BODY, NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Scatter, BLOCKING, GATHER_PARAMS, GATHER_ARGS, SCATTER_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Iscatter, NONBLOCKING, IGATHER_PARAMS, IGATHER_ARGS, SCATTER_BODY, NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Allgather, BLOCKING, ALLGATHER_PARAMS, ALLGATHER_ARGS,
                AddBlocks(&call, send, sendcount, sendtype, recv, recvcount, recvtype, comm, 1, 0, 1, 1), NOTHING)
STREAMCHECK_MPI(MPI_Iallgather, NONBLOCKING, IALLGATHER_PARAMS, IALLGATHER_ARGS,
                AddBlocks(&call, send, sendcount, sendtype, recv, recvcount, recvtype, comm, 1, 0, 1, 1),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Alltoall, BLOCKING, ALLGATHER_PARAMS, ALLGATHER_ARGS,
                AddBlocks(&call, send, sendcount, sendtype, recv, recvcount, recvtype, comm, 1, 1, 1, 1), NOTHING)
STREAMCHECK_MPI(MPI_Ialltoall, NONBLOCKING, IALLGATHER_PARAMS, IALLGATHER_ARGS,
                AddBlocks(&call, send, sendcount, sendtype, recv, recvcount, recvtype, comm, 1, 1, 1, 1),
                NEW_REQUEST(request))

/* The v collectives: rank i's block is `counts[i]` elements at `displs[i]`
 * elements (of the type's extent) from the buffer. The call is given the
 * bytes from the lowest block's first element to the highest block's last
 * (one range a side: blocks are laid out in order in practice, and a gap
 * between them is still the call's buffer). */
static void AddBlocksV(StreamcheckMpiCall* call, const void* buf, const int* counts, const int* displs, Handle type,
                       Handle comm, int mode) {
  if (NotABuffer(buf)) return;
  const int ranks = CommSize(comm);
  if (ranks < 0 || counts == NULL || displs == NULL) {
    call->unknown_extent = 1;
    return;
  }
  long first = LONG_MAX, end = LONG_MIN;
  for (int i = 0; i < ranks; ++i) {
    if (counts[i] <= 0) continue;
    if (displs[i] < first) first = displs[i];
    if ((long)displs[i] + counts[i] > end) end = (long)displs[i] + counts[i];
  }
  if (first != LONG_MAX) AddElements(call, buf, first, end - first, type, mode);
}
static long SumOf(const int* counts, Handle comm) {
  const int ranks = CommSize(comm);
  long sum = 0;
  for (int i = 0; counts != NULL && i < ranks; ++i) sum += counts[i] > 0 ? counts[i] : 0;
  return sum;
}
#define GATHERV_PARAMS                                                                                             \
  (const void* send, int sendcount, Handle sendtype, void* recv, const int* recvcounts, const int* displs,        \
   Handle recvtype, int root, Handle comm)
#define IGATHERV_PARAMS                                                                                            \
  (const void* send, int sendcount, Handle sendtype, void* recv, const int* recvcounts, const int* displs,        \
   Handle recvtype, int root, Handle comm, void* request)
#define GATHERV_BODY                                                                                               \
  {                                                                                                                \
    const int in_place = NotABuffer(send) && send != NULL;                                                        \
    if (!in_place) AddBuffer(&call, send, sendcount, sendtype, R);                                                \
    if (RANK_IS_ROOT) AddBlocksV(&call, recv, recvcounts, displs, recvtype, comm, in_place ? RW : W);              \
  }
STREAMCHECK_MPI(MPI_Gatherv, BLOCKING, GATHERV_PARAMS,
                (send, sendcount, sendtype, recv, recvcounts, displs, recvtype, root, comm), GATHERV_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Igatherv, NONBLOCKING, IGATHERV_PARAMS,
                (send, sendcount, sendtype, recv, recvcounts, displs, recvtype, root, comm, request), GATHERV_BODY,
                NEW_REQUEST(request))
#define SCATTERV_PARAMS                                                                                            \
  (const void* send, const int* sendcounts, const int* displs, Handle sendtype, void* recv, int recvcount,        \
   Handle recvtype, int root, Handle comm)
#define ISCATTERV_PARAMS                                                                                           \
  (const void* send, const int* sendcounts, const int* displs, Handle sendtype, void* recv, int recvcount,        \
   Handle recvtype, int root, Handle comm, void* request)
#define SCATTERV_BODY                                                                                              \
  {                                                                                                                \
    if (RANK_IS_ROOT) AddBlocksV(&call, send, sendcounts, displs, sendtype, comm, R);                              \
    AddBuffer(&call, recv, recvcount, recvtype, W); /* MPI_IN_PLACE at the root: no buffer */                     \
  }
STREAMCHECK_MPI(MPI_Scatterv, BLOCKING, SCATTERV_PARAMS,
                (send, sendcounts, displs, sendtype, recv, recvcount, recvtype, root, comm), SCATTERV_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Iscatterv, NONBLOCKING, ISCATTERV_PARAMS,
                (send, sendcounts, displs, sendtype, recv, recvcount, recvtype, root, comm, request), SCATTERV_BODY,
                NEW_REQUEST(request))
#define ALLGATHERV_PARAMS                                                                                          \
  (const void* send, int sendcount, Handle sendtype, void* recv, const int* recvcounts, const int* displs,        \
   Handle recvtype, Handle comm)
#define IALLGATHERV_PARAMS                                                                                         \
  (const void* send, int sendcount, Handle sendtype, void* recv, const int* recvcounts, const int* displs,        \
   Handle recvtype, Handle comm, void* request)
#define ALLGATHERV_BODY                                                                                            \
  {                                                                                                                \
    const int in_place = NotABuffer(send) && send != NULL;                                                        \
    if (!in_place) AddBuffer(&call, send, sendcount, sendtype, R);                                                \
    AddBlocksV(&call, recv, recvcounts, displs, recvtype, comm, in_place ? RW : W);                                \
  }
STREAMCHECK_MPI(MPI_Allgatherv, BLOCKING, ALLGATHERV_PARAMS,
                (send, sendcount, sendtype, recv, recvcounts, displs, recvtype, comm), ALLGATHERV_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Iallgatherv, NONBLOCKING, IALLGATHERV_PARAMS,
                (send, sendcount, sendtype, recv, recvcounts, displs, recvtype, comm, request), ALLGATHERV_BODY,
                NEW_REQUEST(request))
#define ALLTOALLV_PARAMS                                                                                           \
  (const void* send, const int* sendcounts, const int* sdispls, Handle sendtype, void* recv,                      \
   const int* recvcounts, const int* rdispls, Handle recvtype, Handle comm)
#define IALLTOALLV_PARAMS                                                                                          \
  (const void* send, const int* sendcounts, const int* sdispls, Handle sendtype, void* recv,                      \
   const int* recvcounts, const int* rdispls, Handle recvtype, Handle comm, void* request)
#define ALLTOALLV_BODY                                                                                             \
  {                                                                                                                \
    const int in_place = NotABuffer(send) && send != NULL;                                                        \
    if (!in_place) AddBlocksV(&call, send, sendcounts, sdispls, sendtype, comm, R);                                \
    AddBlocksV(&call, recv, recvcounts, rdispls, recvtype, comm, in_place ? RW : W);                               \
  }
STREAMCHECK_MPI(MPI_Alltoallv, BLOCKING, ALLTOALLV_PARAMS,
                (send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls, recvtype, comm), ALLTOALLV_BODY,
                NOTHING)
STREAMCHECK_MPI(MPI_Ialltoallv, NONBLOCKING, IALLTOALLV_PARAMS,
                (send, sendcounts, sdispls, sendtype, recv, recvcounts, rdispls, recvtype, comm, request),
                ALLTOALLV_BODY, NEW_REQUEST(request))
/* Rank i gets recvcounts[i] elements of the result; the send buffer holds them all. */
#define REDUCE_SCATTER_PARAMS (const void* send, void* recv, const int* recvcounts, Handle type, Handle op, Handle comm)
#define IREDUCE_SCATTER_PARAMS \
  (const void* send, void* recv, const int* recvcounts, Handle type, Handle op, Handle comm, void* request)
#define REDUCE_SCATTER_V_BODY                                                                                      \
  {                                                                                                                \
    const int in_place = NotABuffer(send) && send != NULL;                                                        \
    const int rank = CommRank(comm);                                                                               \
    if (rank < 0 || recvcounts == NULL) call.unknown_extent = 1;                                                  \
    const long all = SumOf(recvcounts, comm);                                                                      \
    if (!in_place) AddBuffer(&call, send, all, type, R);                                                          \
    if (in_place) AddBuffer(&call, recv, all, type, RW);                                                          \
    else if (rank >= 0 && recvcounts != NULL) AddBuffer(&call, recv, recvcounts[rank], type, W);                  \
  }
STREAMCHECK_MPI(MPI_Reduce_scatter, BLOCKING, REDUCE_SCATTER_PARAMS, (send, recv, recvcounts, type, op, comm),
                REDUCE_SCATTER_V_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Ireduce_scatter, NONBLOCKING, IREDUCE_SCATTER_PARAMS,
                (send, recv, recvcounts, type, op, comm, request), REDUCE_SCATTER_V_BODY, NEW_REQUEST(request))

/* Persistent collectives (MPI 4.0, chapter 6.13): made here with an MPI_Info,
 * started by MPI_Start/MPI_Startall like persistent point-to-point requests. */
STREAMCHECK_MPI(MPI_Bcast_init, INIT,
                (void* buf, int count, Handle type, int root, Handle comm, Handle info, void* request),
                (buf, count, type, root, comm, info, request), BCAST_BODY, NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Reduce_init, INIT,
                (const void* send, void* recv, int count, Handle type, Handle op, int root, Handle comm, Handle info,
                 void* request),
                (send, recv, count, type, op, root, comm, info, request), REDUCE_BODY, NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Allreduce_init, INIT,
                (const void* send, void* recv, int count, Handle type, Handle op, Handle comm, Handle info,
                 void* request),
                (send, recv, count, type, op, comm, info, request), AddReduction(&call, send, recv, count, type),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Allgather_init, INIT,
                (const void* send, int sendcount, Handle sendtype, void* recv, int recvcount, Handle recvtype,
                 Handle comm, Handle info, void* request),
                (send, sendcount, sendtype, recv, recvcount, recvtype, comm, info, request),
                AddBlocks(&call, send, sendcount, sendtype, recv, recvcount, recvtype, comm, 1, 0, 1, 1),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Alltoall_init, INIT,
                (const void* send, int sendcount, Handle sendtype, void* recv, int recvcount, Handle recvtype,
                 Handle comm, Handle info, void* request),
                (send, sendcount, sendtype, recv, recvcount, recvtype, comm, info, request),
                AddBlocks(&call, send, sendcount, sendtype, recv, recvcount, recvtype, comm, 1, 1, 1, 1),
                NEW_REQUEST(request))

/* Large-count forms (MPI 4.0's _c calls): counts are an MPI_Count (64 bits). */
typedef long long Count;
STREAMCHECK_MPI(MPI_Send_c, BLOCKING, (const void* buf, Count count, Handle type, int dest, int tag, Handle comm),
                (buf, count, type, dest, tag, comm), AddBuffer(&call, buf, count, type, R), NOTHING)
STREAMCHECK_MPI(MPI_Recv_c, BLOCKING,
                (void* buf, Count count, Handle type, int source, int tag, Handle comm, void* status),
                (buf, count, type, source, tag, comm, status), AddBuffer(&call, buf, count, type, W), NOTHING)
STREAMCHECK_MPI(MPI_Isend_c, NONBLOCKING,
                (const void* buf, Count count, Handle type, int dest, int tag, Handle comm, void* request),
                (buf, count, type, dest, tag, comm, request), AddBuffer(&call, buf, count, type, R),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Irecv_c, NONBLOCKING,
                (void* buf, Count count, Handle type, int source, int tag, Handle comm, void* request),
                (buf, count, type, source, tag, comm, request), AddBuffer(&call, buf, count, type, W),
                NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Bcast_c, BLOCKING, (void* buf, Count count, Handle type, int root, Handle comm),
                (buf, count, type, root, comm), BCAST_BODY, NOTHING)
STREAMCHECK_MPI(MPI_Allreduce_c, BLOCKING,
                (const void* send, void* recv, Count count, Handle type, Handle op, Handle comm),
                (send, recv, count, type, op, comm), AddReduction(&call, send, recv, count, type), NOTHING)
STREAMCHECK_MPI(MPI_Iallreduce_c, NONBLOCKING,
                (const void* send, void* recv, Count count, Handle type, Handle op, Handle comm, void* request),
                (send, recv, count, type, op, comm, request), AddReduction(&call, send, recv, count, type),
                NEW_REQUEST(request))
