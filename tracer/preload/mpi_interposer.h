/* What the MPI interposers share (mpi_interposers.c: the helpers, point to
 * point and completion; mpi_collectives.c: the collectives; mpi_rma.c:
 * one-sided communication): MPI's handles as
 * words, the bytes a call's buffers span, its requests, and STREAMCHECK_MPI,
 * which makes one interposer. Internal to libstreamcheck_preload.so: every
 * function here is hidden (the library's default visibility). */
#pragma once

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/preload/library_hooks.h"

typedef uintptr_t Handle; /* MPI_Datatype, MPI_Comm, MPI_Op: pointer or int */
typedef intptr_t Aint;    /* MPI_Aint */
typedef long long Count;  /* MPI_Count, the large-count (_c) calls' */
enum { kMpiSuccess = 0, kMpiErrOther = 15, kMpiUndefined = -32766 /* both ABIs */, kInlineRequests = 64 };

/* The tracer's hooks, NULL while no tracer listens to MPI. */
const StreamcheckLibraryHooks* MpiHooks(void);
/* MPI's own function `name`, found once into `slot`; NULL when absent. */
void* Mpi(void** slot, const char* name);
/* What an interposer whose MPI function is missing returns (and says). */
int MissingMpi(const char* name);
/* The handle at `index` of an array of MPI handles (requests). */
uint64_t ReadHandle(const void* array, int index);
/* A communicator's rank and size, -1 when MPI cannot tell. */
int CommRank(Handle comm);
int CommSize(Handle comm);
/* MPI_IN_PLACE or MPI_BOTTOM: no buffer. */
int NotABuffer(const void* buf);
/* A buffer the call reads or writes (mode): `count` elements of `type` from
 * element `first` of `buf` (AddBuffer: from its start). */
void AddElements(StreamcheckMpiCall* call, const void* buf, long first, long count, Handle type, int mode);
void AddBuffer(StreamcheckMpiCall* call, const void* buf, long count, Handle type, int mode);
/* A reduction's send and receive buffers (MPI_IN_PLACE: receive read and written). */
void AddReduction(StreamcheckMpiCall* call, const void* send, void* recv, long count, Handle type);

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

/* Points `arrays` at room for `count` requests (zeroed `completed`): its
 * frame's, else the heap's (freed by the interposer); how many fit. Only
 * without memory for more than kInlineRequests are the first kInlineRequests
 * followed and the rest not (their buffers then stay in use to the end). */
size_t MakeRoomForRequests(RequestArrays* arrays, size_t count);
/* The requests of a completion or start call, read before the call: after
 * it MPI has set completed ones to MPI_REQUEST_NULL. */
void ReadRequests(StreamcheckMpiCall* call, RequestArrays* arrays, int count, const void* requests);

/* One interposer. `describe` runs before the call when a tracer listens;
 * `after` runs after it (it sees `result`) and before `leave`. */
#define STREAMCHECK_MPI(fn, kind_, params, args, describe, after) \
  STREAMCHECK_MPI_OR(fn, MissingMpi(#fn), kind_, params, args, describe, after)
/* The same, with what to do where MPI's own `fn` is not in the process: a
 * call the preload's symbol drew that MPI never had (mpi4py takes MPI 4's
 * large-count `MPI_Send_c` where the process defines one, and ours does). */
#define STREAMCHECK_MPI_OR(fn, missing, kind_, params, args, describe, after) \
  __attribute__((visibility("default"))) int fn params {                  \
    typedef int(*Real) params;                                            \
    static void* slot;                                                    \
    const Real real = (Real)Mpi(&slot, #fn);                              \
    if (real == NULL) return (missing);                                   \
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
/* A large-count form where MPI has only the int one (MPI before 4.0): the
 * int form (this preload's, so the call is still seen) with the count, which
 * must fit. */
#define SMALL_COUNT_OR_MISSING(fn, count, small_call) \
  ((count) >= 0 && (count) <= INT_MAX ? (small_call) : MissingMpi(#fn))
#define NOTHING (void)0
#define R STREAMCHECK_MPI_READ
#define W STREAMCHECK_MPI_WRITE
#define RW STREAMCHECK_MPI_READ_WRITE
#define BLOCKING STREAMCHECK_MPI_BLOCKING
#define NONBLOCKING STREAMCHECK_MPI_NONBLOCKING
#define NEW_REQUEST(request) \
  if (result == kMpiSuccess && (request) != NULL) call.new_request = ReadHandle((request), 0)
#define RANK_IS_ROOT (CommRank(comm) == root)
#define INIT STREAMCHECK_MPI_PERSISTENT_INIT
#define COMPLETE STREAMCHECK_MPI_COMPLETE
