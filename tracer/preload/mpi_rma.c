/* MPI's one-sided communication, interposed (see mpi_interposers.c for how
 * and why). By the MPI standard's chapter on one-sided communication, an RMA
 * call without a request of its own (MPI_Put, MPI_Get, MPI_Accumulate,
 * MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap) may use its
 * origin buffer until the synchronization that completes it at the origin:
 * MPI_Win_fence and MPI_Win_complete end the window's access epoch,
 * MPI_Win_unlock, MPI_Win_flush and MPI_Win_flush_local those to one target
 * rank, and their _all forms every target's. Each such call is given to the
 * tracer as a nonblocking operation with a request made here, which that
 * synchronization completes. The R forms (MPI_Rput, ...) have MPI's own
 * request, completed by MPI_Wait or MPI_Test like any other.
 *
 * Not followed: the target side (other ranks writing this rank's window
 * memory), and MPI_Compare_and_swap's compare buffer (a call has two buffer
 * slots: its origin and result buffers are given). */
#include "tracer/preload/mpi_interposer.h"

/* Requests made here have the top bits set, which no Open MPI request (a
 * user-space pointer) and no MPICH one (an int) has. */
#define RMA_REQUEST_TAG 0xfff0000000000000ull

typedef struct {
  Handle win;
  int target;
  uint64_t request;
} PendingRma;

/* The RMA calls not completed yet, over every thread: a spinlock (the
 * preloaded library's own pthread calls would reach its interposers). */
static PendingRma* g_pending;
static size_t g_pending_count, g_pending_capacity;
static uint64_t g_next_request;
static char g_pending_lock;

static void Lock(void) {
  while (__atomic_test_and_set(&g_pending_lock, __ATOMIC_ACQUIRE)) {
  }
}
static void Unlock(void) { __atomic_clear(&g_pending_lock, __ATOMIC_RELEASE); }

/* A request for an RMA call to `target` through `win`; 0 when out of memory
 * (the call is then taken as complete on return: PENDING_REQUEST). */
static uint64_t AddPending(Handle win, int target) {
  Lock();
  if (g_pending_count == g_pending_capacity) {
    const size_t capacity = g_pending_capacity != 0 ? 2 * g_pending_capacity : 64;
    PendingRma* grown = realloc(g_pending, capacity * sizeof *grown);
    if (grown == NULL) {
      Unlock();
      return 0;
    }
    g_pending = grown;
    g_pending_capacity = capacity;
  }
  const uint64_t request = RMA_REQUEST_TAG | ++g_next_request;
  g_pending[g_pending_count++] = (PendingRma){win, target, request};
  Unlock();
  return request;
}

static int Matches(const PendingRma* p, Handle win, int target) {
  return p->win == win && (target < 0 || p->target == target);
}

/* The requests a synchronization of `win` completes (target < 0: every
 * target's), read before the call as ReadRequests does. */
static void ReadPending(StreamcheckMpiCall* call, RequestArrays* arrays, Handle win, int target) {
  Lock();
  size_t count = 0;
  for (size_t i = 0; i < g_pending_count; ++i) count += Matches(&g_pending[i], win, target);
  count = MakeRoomForRequests(arrays, count);
  size_t n = 0;
  for (size_t i = 0; i < g_pending_count && n < count; ++i)
    if (Matches(&g_pending[i], win, target)) arrays->values[n++] = g_pending[i].request;
  Unlock();
  call->requests = arrays->values;
  call->request_count = (int32_t)n;
}

/* After a synchronization that succeeded: its requests are complete. */
static void CompletePending(StreamcheckMpiCall* call, uint8_t* completed) {
  Lock();
  for (int32_t r = 0; r < call->request_count; ++r) {
    completed[r] = 1;
    for (size_t i = 0; i < g_pending_count; ++i) {
      if (g_pending[i].request != call->requests[r]) continue;
      g_pending[i] = g_pending[--g_pending_count];
      break;
    }
  }
  Unlock();
  call->completed = completed;
}

#define PENDING_REQUEST(win, target)                                                        \
  if (result == kMpiSuccess && (call.new_request = AddPending((win), (target))) == 0) \
  call.kind = STREAMCHECK_MPI_BLOCKING
#define SYNC_BODY(win, target) ReadPending(&call, &requests_of_call, (win), (target))
#define SYNC_AFTER                                                                    \
  do {                                                                                \
    if (result == kMpiSuccess) CompletePending(&call, requests_of_call.completed);    \
    else call.completed = requests_of_call.completed; /* none: all still zero */      \
  } while (0)

/* Origin-side calls, completed by the window's synchronization. */
#define TARGET_PARAMS int target_rank, Aint target_disp, int target_count, Handle target_type
#define TARGET_ARGS target_rank, target_disp, target_count, target_type
STREAMCHECK_MPI(MPI_Put, NONBLOCKING, (const void* origin, int origin_count, Handle origin_type, TARGET_PARAMS, Handle win),
                (origin, origin_count, origin_type, TARGET_ARGS, win),
                AddBuffer(&call, origin, origin_count, origin_type, R), PENDING_REQUEST(win, target_rank))
STREAMCHECK_MPI(MPI_Get, NONBLOCKING, (void* origin, int origin_count, Handle origin_type, TARGET_PARAMS, Handle win),
                (origin, origin_count, origin_type, TARGET_ARGS, win),
                AddBuffer(&call, origin, origin_count, origin_type, W), PENDING_REQUEST(win, target_rank))
STREAMCHECK_MPI(MPI_Accumulate, NONBLOCKING,
                (const void* origin, int origin_count, Handle origin_type, TARGET_PARAMS, Handle op, Handle win),
                (origin, origin_count, origin_type, TARGET_ARGS, op, win),
                AddBuffer(&call, origin, origin_count, origin_type, R), PENDING_REQUEST(win, target_rank))
#define GET_ACCUMULATE_BODY                                              \
  {                                                                      \
    AddBuffer(&call, origin, origin_count, origin_type, R);              \
    AddBuffer(&call, result_addr, result_count, result_type, W);         \
  }
STREAMCHECK_MPI(MPI_Get_accumulate, NONBLOCKING,
                (const void* origin, int origin_count, Handle origin_type, void* result_addr, int result_count,
                 Handle result_type, TARGET_PARAMS, Handle op, Handle win),
                (origin, origin_count, origin_type, result_addr, result_count, result_type, TARGET_ARGS, op, win),
                GET_ACCUMULATE_BODY, PENDING_REQUEST(win, target_rank))
#define FETCH_BODY                                          \
  {                                                         \
    AddBuffer(&call, origin, 1, type, R);                   \
    AddBuffer(&call, result_addr, 1, type, W);              \
  }
STREAMCHECK_MPI(MPI_Fetch_and_op, NONBLOCKING,
                (const void* origin, void* result_addr, Handle type, int target_rank, Aint target_disp, Handle op,
                 Handle win),
                (origin, result_addr, type, target_rank, target_disp, op, win), FETCH_BODY,
                PENDING_REQUEST(win, target_rank))
STREAMCHECK_MPI(MPI_Compare_and_swap, NONBLOCKING,
                (const void* origin, const void* compare, void* result_addr, Handle type, int target_rank,
                 Aint target_disp, Handle win),
                (origin, compare, result_addr, type, target_rank, target_disp, win), FETCH_BODY,
                PENDING_REQUEST(win, target_rank))

/* The R forms: MPI's own request. */
STREAMCHECK_MPI(MPI_Rput, NONBLOCKING,
                (const void* origin, int origin_count, Handle origin_type, TARGET_PARAMS, Handle win, void* request),
                (origin, origin_count, origin_type, TARGET_ARGS, win, request),
                AddBuffer(&call, origin, origin_count, origin_type, R), NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Rget, NONBLOCKING,
                (void* origin, int origin_count, Handle origin_type, TARGET_PARAMS, Handle win, void* request),
                (origin, origin_count, origin_type, TARGET_ARGS, win, request),
                AddBuffer(&call, origin, origin_count, origin_type, W), NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Raccumulate, NONBLOCKING,
                (const void* origin, int origin_count, Handle origin_type, TARGET_PARAMS, Handle op, Handle win,
                 void* request),
                (origin, origin_count, origin_type, TARGET_ARGS, op, win, request),
                AddBuffer(&call, origin, origin_count, origin_type, R), NEW_REQUEST(request))
STREAMCHECK_MPI(MPI_Rget_accumulate, NONBLOCKING,
                (const void* origin, int origin_count, Handle origin_type, void* result_addr, int result_count,
                 Handle result_type, TARGET_PARAMS, Handle op, Handle win, void* request),
                (origin, origin_count, origin_type, result_addr, result_count, result_type, TARGET_ARGS, op, win,
                 request),
                GET_ACCUMULATE_BODY, NEW_REQUEST(request))

/* The synchronizations that complete them at the origin. */
STREAMCHECK_MPI(MPI_Win_fence, COMPLETE, (int assertion, Handle win), (assertion, win), SYNC_BODY(win, -1), SYNC_AFTER)
STREAMCHECK_MPI(MPI_Win_complete, COMPLETE, (Handle win), (win), SYNC_BODY(win, -1), SYNC_AFTER)
STREAMCHECK_MPI(MPI_Win_unlock, COMPLETE, (int rank, Handle win), (rank, win), SYNC_BODY(win, rank), SYNC_AFTER)
STREAMCHECK_MPI(MPI_Win_unlock_all, COMPLETE, (Handle win), (win), SYNC_BODY(win, -1), SYNC_AFTER)
STREAMCHECK_MPI(MPI_Win_flush, COMPLETE, (int rank, Handle win), (rank, win), SYNC_BODY(win, rank), SYNC_AFTER)
STREAMCHECK_MPI(MPI_Win_flush_all, COMPLETE, (Handle win), (win), SYNC_BODY(win, -1), SYNC_AFTER)
STREAMCHECK_MPI(MPI_Win_flush_local, COMPLETE, (int rank, Handle win), (rank, win), SYNC_BODY(win, rank), SYNC_AFTER)
STREAMCHECK_MPI(MPI_Win_flush_local_all, COMPLETE, (Handle win), (win), SYNC_BODY(win, -1), SYNC_AFTER)
