/* A program's use of MPI, in a library linked with a fake MPI (either ABI's
 * build of fake_mpi.c), as an application or mpi4py's extension is: the
 * interposer probe loads it into the global scope or a local one. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#ifdef FAKE_MPI_INT_HANDLES
typedef int Handle;
#else
typedef uintptr_t Handle;
#endif
typedef Handle Request;

int MPI_Send(const void*, int, Handle, int, int, Handle);
int MPI_Recv(void*, int, Handle, int, int, Handle, void*);
int MPI_Isend(const void*, int, Handle, int, int, Handle, Request*);
int MPI_Irecv(void*, int, Handle, int, int, Handle, Request*);
int MPI_Send_init(const void*, int, Handle, int, int, Handle, Request*);
int MPI_Start(Request*);
int MPI_Request_free(Request*);
int MPI_Wait(Request*, void*);
int MPI_Test(Request*, int*, void*);
int MPI_Waitall(int, Request*, void*);
int MPI_Waitany(int, Request*, int*, void*);
int MPI_Bcast(void*, int, Handle, int, Handle);
int MPI_Allreduce(const void*, void*, int, Handle, Handle, Handle);
int MPI_Iallreduce(const void*, void*, int, Handle, Handle, Handle, Request*);
void fake_mpi_set_result(int);
void fake_mpi_set_test_flag(int);
void* fake_mpi_in_place(void);

__attribute__((visibility("default"))) int run_mpi_program(void) {
  const Handle kFloat = 4, kDouble = 8, kOp = 0;
  const Handle comm = 2 * 100 + 1; /* two ranks, this one is rank 1 */
  char* x = (char*)0x10000;
  char* y = (char*)0x80000;
  int rc = 0, flag = 0, index = -1;
  Request reqs[2];
  rc |= MPI_Send(x, 10, kFloat, 0, 0, comm);
  rc |= MPI_Recv(y, 4, kDouble, 0, 0, comm, NULL);
  rc |= MPI_Irecv(y, 16, kFloat, 0, 0, comm, &reqs[0]);
  rc |= MPI_Isend(x, 16, kFloat, 0, 0, comm, &reqs[1]);
  fake_mpi_set_test_flag(0);
  rc |= MPI_Test(&reqs[0], &flag, NULL);
  fake_mpi_set_test_flag(1);
  rc |= MPI_Waitany(2, reqs, &index, NULL);
  rc |= MPI_Waitall(1, reqs, NULL);
  rc |= MPI_Bcast(x, 3, kDouble, /*root*/ 1, comm);
  rc |= MPI_Bcast(y, 3, kDouble, /*root*/ 0, comm);
  rc |= MPI_Allreduce(fake_mpi_in_place(), y, 5, kFloat, kOp, comm);
  rc |= MPI_Iallreduce(x, y, 2, kDouble, kOp, comm, &reqs[0]);
  rc |= MPI_Wait(&reqs[0], NULL);
  Request persistent;
  rc |= MPI_Send_init(x, 1, kDouble, 0, 0, comm, &persistent);
  rc |= MPI_Start(&persistent);
  rc |= MPI_Test(&persistent, &flag, NULL);
  rc |= MPI_Request_free(&persistent);
  fake_mpi_set_result(/*MPI_ERR_BUFFER*/ 1);
  errno = 0;
  const int failed = MPI_Send(x, 1, kFloat, 0, 0, comm);
  const int failed_errno = errno;
  fake_mpi_set_result(0);
  printf("program: results %d, failed call %d, errno %d\n", rc, failed, failed_errno);
  return rc;
}

/* A halo exchange's shape: more receives than the interposers keep in their
 * frame (64), completed by one MPI_Waitall. */
__attribute__((visibility("default"))) int run_many_requests(void) {
  enum { kRequests = 100 };
  const Handle kFloat = 4;
  const Handle comm = 2 * 100 + 1;
  char* y = (char*)0x80000;
  Request reqs[kRequests];
  int rc = 0;
  for (int i = 0; i < kRequests; ++i) rc |= MPI_Irecv(y + 4 * i, 1, kFloat, 0, i, comm, &reqs[i]);
  rc |= MPI_Waitall(kRequests, reqs, NULL);
  return rc;
}

int MPI_Gatherv(const void*, int, Handle, void*, const int*, const int*, Handle, int, Handle);
int MPI_Scatterv(const void*, const int*, const int*, Handle, void*, int, Handle, int, Handle);
int MPI_Allgatherv(const void*, int, Handle, void*, const int*, const int*, Handle, Handle);
int MPI_Ialltoallv(const void*, const int*, const int*, Handle, void*, const int*, const int*, Handle, Handle,
                   Request*);
int MPI_Reduce_scatter(const void*, void*, const int*, Handle, Handle, Handle);

/* The v collectives on two ranks (this one is rank 1), blocks of floats:
 * rank 0's at element 8, rank 1's at element 2 (not in rank order). */
__attribute__((visibility("default"))) int run_v_collectives(void) {
  const Handle kFloat = 4, kOp = 0;
  const Handle comm = 2 * 100 + 1;
  char* x = (char*)0x10000;
  char* y = (char*)0x80000;
  const int counts[2] = {3, 5}, displs[2] = {8, 2};
  int rc = 0;
  Request request;
  rc |= MPI_Gatherv(x, 5, kFloat, y, counts, displs, kFloat, /*root*/ 1, comm);
  rc |= MPI_Gatherv(x, 5, kFloat, y, counts, displs, kFloat, /*root*/ 0, comm);
  rc |= MPI_Scatterv(x, counts, displs, kFloat, y, 5, kFloat, /*root*/ 1, comm);
  rc |= MPI_Allgatherv(fake_mpi_in_place(), 0, kFloat, y, counts, displs, kFloat, comm);
  rc |= MPI_Ialltoallv(x, counts, displs, kFloat, y, counts, displs, kFloat, comm, &request);
  rc |= MPI_Wait(&request, NULL);
  rc |= MPI_Reduce_scatter(x, y, counts, kFloat, kOp, comm);
  return rc;
}

int MPI_Allreduce_init(const void*, void*, int, Handle, Handle, Handle, Handle, Request*);
int MPI_Bcast_init(void*, int, Handle, int, Handle, Handle, Request*);

/* Persistent collectives: made once, started and completed each round. */
__attribute__((visibility("default"))) int run_persistent_collectives(void) {
  const Handle kFloat = 4, kOp = 0, kInfo = 0;
  const Handle comm = 2 * 100 + 1;
  char* x = (char*)0x10000;
  char* y = (char*)0x80000;
  int rc = 0;
  Request reduce, bcast;
  rc |= MPI_Allreduce_init(x, y, 6, kFloat, kOp, comm, kInfo, &reduce);
  rc |= MPI_Bcast_init(y, 2, kFloat, /*root*/ 0, comm, kInfo, &bcast);
  rc |= MPI_Start(&reduce);
  rc |= MPI_Wait(&reduce, NULL);
  return rc;
}

/* Weak, as mpi4py takes them: present only where the process defines them. */
int MPI_Send_c(const void*, long long, Handle, int, int, Handle) __attribute__((weak));
int MPI_Iallreduce_c(const void*, void*, long long, Handle, Handle, Handle, Request*) __attribute__((weak));

/* Large counts: three billion floats, past an int's range. */
__attribute__((visibility("default"))) int run_large_counts(void) {
  const Handle kFloat = 4, kOp = 0;
  const Handle comm = 2 * 100 + 1;
  char* x = (char*)0x10000;
  char* y = (char*)0x80000;
  int rc = 0;
  Request request;
  rc |= MPI_Send_c(x, 3000000000LL, kFloat, 0, 0, comm);
  rc |= MPI_Iallreduce_c(x, y, 3000000000LL, kFloat, kOp, comm, &request);
  rc |= MPI_Wait(&request, NULL);
  return rc;
}

/* Large-count forms with counts that fit an int, called where the process
 * has them (here: the preload's, over an MPI that has none). */
__attribute__((visibility("default"))) int run_large_counts_that_fit(void) {
  const Handle kFloat = 4, kOp = 0;
  const Handle comm = 2 * 100 + 1;
  char* x = (char*)0x10000;
  char* y = (char*)0x80000;
  if (MPI_Send_c == NULL || MPI_Iallreduce_c == NULL) return 99;
  int rc = 0;
  Request request;
  rc |= MPI_Send_c(x, 10, kFloat, 0, 0, comm);
  rc |= MPI_Iallreduce_c(x, y, 16, kFloat, kOp, comm, &request);
  rc |= MPI_Wait(&request, NULL);
  return rc;
}

int MPI_Put(const void*, int, Handle, int, intptr_t, int, Handle, Handle);
int MPI_Get(void*, int, Handle, int, intptr_t, int, Handle, Handle);
int MPI_Rput(const void*, int, Handle, int, intptr_t, int, Handle, Handle, Request*);
int MPI_Fetch_and_op(const void*, void*, Handle, int, intptr_t, Handle, Handle);
int MPI_Win_fence(int, Handle);
int MPI_Win_flush(int, Handle);
int MPI_Win_unlock_all(Handle);

/* One-sided calls on two windows, each completed by the synchronization
 * that ends it at the origin: a flush to its target, a fence, an unlock of
 * every target; an MPI_Rput by its own request. */
__attribute__((visibility("default"))) int run_one_sided(void) {
  const Handle kFloat = 4, kDouble = 8, kOp = 0;
  const Handle win = 0x900, other_win = 0x901;
  char* x = (char*)0x10000;
  char* y = (char*)0x80000;
  int rc = 0;
  Request request;
  rc |= MPI_Put(x, 4, kFloat, /*target*/ 0, 0, 4, kFloat, win);
  rc |= MPI_Get(y, 2, kDouble, /*target*/ 1, 0, 2, kDouble, win);
  rc |= MPI_Put(x + 64, 1, kFloat, 0, 0, 1, kFloat, other_win);
  rc |= MPI_Win_flush(0, win);
  rc |= MPI_Win_fence(0, win);
  rc |= MPI_Rput(x, 1, kFloat, 0, 0, 1, kFloat, other_win, &request);
  rc |= MPI_Wait(&request, NULL);
  rc |= MPI_Fetch_and_op(x, y, kDouble, 0, 0, kOp, other_win);
  rc |= MPI_Win_unlock_all(other_win);
  return rc;
}
