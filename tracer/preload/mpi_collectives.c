/* MPI's collectives, interposed (see mpi_interposers.c for how and why):
 * blocking and nonblocking, the v forms, persistent collectives and the
 * large-count forms; each says which bytes of its buffers it reads and
 * writes on this rank. */
#include <limits.h>

#include "tracer/preload/mpi_interposer.h"

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

/* Large-count collectives (MPI 4.0's _c calls); where MPI has none, a count
 * that fits goes to the int form (mpi_interposers.c's large-count sends). */
STREAMCHECK_MPI_OR(MPI_Bcast_c, SMALL_COUNT_OR_MISSING(MPI_Bcast_c, count, MPI_Bcast(buf, (int)count, type, root, comm)),
                   BLOCKING, (void* buf, Count count, Handle type, int root, Handle comm),
                   (buf, count, type, root, comm), BCAST_BODY, NOTHING)
STREAMCHECK_MPI_OR(MPI_Allreduce_c,
                   SMALL_COUNT_OR_MISSING(MPI_Allreduce_c, count,
                                          MPI_Allreduce(send, recv, (int)count, type, op, comm)),
                   BLOCKING, (const void* send, void* recv, Count count, Handle type, Handle op, Handle comm),
                   (send, recv, count, type, op, comm), AddReduction(&call, send, recv, count, type), NOTHING)
STREAMCHECK_MPI_OR(MPI_Iallreduce_c,
                   SMALL_COUNT_OR_MISSING(MPI_Iallreduce_c, count,
                                          MPI_Iallreduce(send, recv, (int)count, type, op, comm, request)),
                   NONBLOCKING,
                   (const void* send, void* recv, Count count, Handle type, Handle op, Handle comm, void* request),
                   (send, recv, count, type, op, comm, request), AddReduction(&call, send, recv, count, type),
                   NEW_REQUEST(request))
