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
#include <link.h>
#include <stdio.h>

#include "tracer/preload/mpi_interposer.h"

__attribute__((visibility("hidden"))) const StreamcheckLibraryHooks* streamcheck_library_hooks(void);

const StreamcheckLibraryHooks* MpiHooks(void) {
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

void* Mpi(void** slot, const char* name) {
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

int MissingMpi(const char* name) {
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

uint64_t ReadHandle(const void* array, int index) {
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
int CommRank(Handle comm) {
  static void* slot;
  return IntOfComm("PMPI_Comm_rank", &slot, comm);
}
int CommSize(Handle comm) {
  static void* slot;
  return IntOfComm("PMPI_Comm_size", &slot, comm);
}

/* MPI_IN_PLACE is (void*)1 in Open MPI and (void*)-1 in MPICH; MPI_BOTTOM is 0. */
int NotABuffer(const void* buf) {
  const uintptr_t p = (uintptr_t)buf;
  return p == 0 || p == 1 || p == UINTPTR_MAX;
}

/* The bytes `count` elements of `type` span from element `first` of `buf`:
 * from that element's true lower bound to the last one's true upper bound. */
void AddElements(StreamcheckMpiCall* call, const void* buf, long first, long count, Handle type, int mode) {
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

void AddBuffer(StreamcheckMpiCall* call, const void* buf, long count, Handle type, int mode) {
  AddElements(call, buf, 0, count, type, mode);
}

/* Reduce-like calls: MPI_IN_PLACE as the send buffer makes the receive
 * buffer both read and written. */
void AddReduction(StreamcheckMpiCall* call, const void* send, void* recv, long count, Handle type) {
  const int in_place = NotABuffer(send) && send != NULL;
  if (!in_place) AddBuffer(call, send, count, type, STREAMCHECK_MPI_READ);
  AddBuffer(call, recv, count, type, in_place ? STREAMCHECK_MPI_READ_WRITE : STREAMCHECK_MPI_WRITE);
}


/* The requests of a completion or start call, read before the call: after
 * it MPI has set completed ones to MPI_REQUEST_NULL. Without memory for more
 * than kInlineRequests, the first kInlineRequests are followed and the rest
 * are not (docs/internals/mpi.md). */
size_t MakeRoomForRequests(RequestArrays* arrays, size_t count) {
  arrays->values = arrays->inline_values;
  arrays->completed = arrays->inline_completed;
  memset(arrays->inline_completed, 0, sizeof arrays->inline_completed);
  if (count <= kInlineRequests) return count;
  arrays->heap = calloc(count, sizeof(uint64_t) + sizeof(uint8_t));
  if (arrays->heap == NULL) return kInlineRequests;
  arrays->values = (uint64_t*)arrays->heap;
  arrays->completed = (uint8_t*)(arrays->values + count);
  return count;
}

void ReadRequests(StreamcheckMpiCall* call, RequestArrays* arrays, int count, const void* requests) {
  if (requests == NULL || count < 0) count = 0;
  count = (int)MakeRoomForRequests(arrays, (size_t)count);
  for (int i = 0; i < count; ++i) arrays->values[i] = ReadHandle(requests, i);
  call->requests = arrays->values;
  call->request_count = count;
}

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

/* Large-count forms (MPI 4.0's _c calls): counts are an MPI_Count (64 bits).
 * Where MPI has none (before 4.0), a count that fits goes to the int form. */
STREAMCHECK_MPI_OR(MPI_Send_c, SMALL_COUNT_OR_MISSING(MPI_Send_c, count, MPI_Send(buf, (int)count, type, dest, tag, comm)),
                   BLOCKING, (const void* buf, Count count, Handle type, int dest, int tag, Handle comm),
                   (buf, count, type, dest, tag, comm), AddBuffer(&call, buf, count, type, R), NOTHING)
STREAMCHECK_MPI_OR(MPI_Recv_c,
                   SMALL_COUNT_OR_MISSING(MPI_Recv_c, count, MPI_Recv(buf, (int)count, type, source, tag, comm, status)),
                   BLOCKING, (void* buf, Count count, Handle type, int source, int tag, Handle comm, void* status),
                   (buf, count, type, source, tag, comm, status), AddBuffer(&call, buf, count, type, W), NOTHING)
STREAMCHECK_MPI_OR(MPI_Isend_c,
                   SMALL_COUNT_OR_MISSING(MPI_Isend_c, count,
                                          MPI_Isend(buf, (int)count, type, dest, tag, comm, request)),
                   NONBLOCKING, (const void* buf, Count count, Handle type, int dest, int tag, Handle comm, void* request),
                   (buf, count, type, dest, tag, comm, request), AddBuffer(&call, buf, count, type, R),
                   NEW_REQUEST(request))
STREAMCHECK_MPI_OR(MPI_Irecv_c,
                   SMALL_COUNT_OR_MISSING(MPI_Irecv_c, count,
                                          MPI_Irecv(buf, (int)count, type, source, tag, comm, request)),
                   NONBLOCKING, (void* buf, Count count, Handle type, int source, int tag, Handle comm, void* request),
                   (buf, count, type, source, tag, comm, request), AddBuffer(&call, buf, count, type, W),
                   NEW_REQUEST(request))
