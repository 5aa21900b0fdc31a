/* A stand-in for MPI for the interposer tests, built twice: as Open MPI's
 * ABI (libmpi.so.40: handles are pointers, and it defines
 * ompi_mpi_comm_world) and as MPICH's (libmpi.so.12, -DFAKE_MPI_INT_HANDLES:
 * handles are ints). Each function logs its call, sets errno to 42 (the
 * interposers must hand it back unchanged) and returns what it was told to.
 * A datatype's handle is its size in bytes, whose extent is the size; a
 * communicator's is 100 * size + rank. Requests count up from 0x700. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#ifdef FAKE_MPI_INT_HANDLES
typedef int Handle;
#define IN_PLACE ((void*)-1)
#else
typedef uintptr_t Handle;
#define IN_PLACE ((void*)1)
__attribute__((visibility("default"))) int ompi_mpi_comm_world;
#endif
typedef Handle Request;

static int g_result;
static int g_calls;
static Request g_next_request = 0x700;
static int g_test_flag = 1;
static Request g_persistent; /* stays valid when completed, as persistent requests do */

__attribute__((visibility("default"))) void fake_mpi_set_result(int result) { g_result = result; }
__attribute__((visibility("default"))) void fake_mpi_set_test_flag(int flag) { g_test_flag = flag; }
__attribute__((visibility("default"))) int fake_mpi_calls(void) { return g_calls; }
__attribute__((visibility("default"))) void* fake_mpi_in_place(void) { return IN_PLACE; }

static int Called(const char* name) {
  ++g_calls;
  printf("mpi: %s\n", name);
  errno = 42;
  return g_result;
}
static void NewRequest(Request* r) { *r = g_next_request++; }
static void Completed(Request* r) {
  if (*r != g_persistent) *r = 0;
}

int PMPI_Type_size(Handle type, int* size) { *size = (int)type; return 0; }
int PMPI_Type_get_extent(Handle type, intptr_t* lb, intptr_t* extent) { *lb = 0; *extent = (intptr_t)type; return 0; }
int PMPI_Type_get_true_extent(Handle type, intptr_t* lb, intptr_t* extent) { return PMPI_Type_get_extent(type, lb, extent); }
int PMPI_Comm_rank(Handle comm, int* rank) { *rank = (int)(comm % 100); return 0; }
int PMPI_Comm_size(Handle comm, int* size) { *size = (int)(comm / 100); return 0; }

int MPI_Send(const void* b, int n, Handle t, int d, int tag, Handle c) {
  (void)b, (void)n, (void)t, (void)d, (void)tag, (void)c;
  return Called("MPI_Send");
}
int MPI_Recv(void* b, int n, Handle t, int s, int tag, Handle c, void* st) {
  (void)b, (void)n, (void)t, (void)s, (void)tag, (void)c, (void)st;
  return Called("MPI_Recv");
}
int MPI_Isend(const void* b, int n, Handle t, int d, int tag, Handle c, Request* r) {
  (void)b, (void)n, (void)t, (void)d, (void)tag, (void)c;
  NewRequest(r);
  return Called("MPI_Isend");
}
int MPI_Irecv(void* b, int n, Handle t, int s, int tag, Handle c, Request* r) {
  (void)b, (void)n, (void)t, (void)s, (void)tag, (void)c;
  NewRequest(r);
  return Called("MPI_Irecv");
}
int MPI_Send_init(const void* b, int n, Handle t, int d, int tag, Handle c, Request* r) {
  (void)b, (void)n, (void)t, (void)d, (void)tag, (void)c;
  NewRequest(r);
  g_persistent = *r;
  return Called("MPI_Send_init");
}
int MPI_Start(Request* r) { (void)r; return Called("MPI_Start"); }
int MPI_Request_free(Request* r) { *r = 0; return Called("MPI_Request_free"); }
/* Completed requests become MPI_REQUEST_NULL (0 here), as MPI sets them,
 * but for a persistent one. */
int MPI_Wait(Request* r, void* st) {
  (void)st;
  Completed(r);
  return Called("MPI_Wait");
}
int MPI_Test(Request* r, int* flag, void* st) {
  (void)st;
  *flag = g_test_flag;
  if (g_test_flag) Completed(r);
  return Called("MPI_Test");
}
int MPI_Waitall(int n, Request* r, void* st) {
  (void)st;
  for (int i = 0; i < n; ++i) r[i] = 0;
  return Called("MPI_Waitall");
}
int MPI_Waitany(int n, Request* r, int* index, void* st) {
  (void)st;
  *index = n - 1;
  r[n - 1] = 0;
  return Called("MPI_Waitany");
}
int MPI_Bcast(void* b, int n, Handle t, int root, Handle c) {
  (void)b, (void)n, (void)t, (void)root, (void)c;
  return Called("MPI_Bcast");
}
int MPI_Allreduce(const void* s, void* r, int n, Handle t, Handle op, Handle c) {
  (void)s, (void)r, (void)n, (void)t, (void)op, (void)c;
  return Called("MPI_Allreduce");
}
int MPI_Iallreduce(const void* s, void* r, int n, Handle t, Handle op, Handle c, Request* req) {
  (void)s, (void)r, (void)n, (void)t, (void)op, (void)c;
  NewRequest(req);
  return Called("MPI_Iallreduce");
}
/* The v collectives: only their arguments matter to the interposers. */
int MPI_Gatherv(const void* s, int sn, Handle st, void* r, const int* rn, const int* d, Handle rt, int root, Handle c) {
  (void)s, (void)sn, (void)st, (void)r, (void)rn, (void)d, (void)rt, (void)root, (void)c;
  return Called("MPI_Gatherv");
}
int MPI_Scatterv(const void* s, const int* sn, const int* d, Handle st, void* r, int rn, Handle rt, int root, Handle c) {
  (void)s, (void)sn, (void)d, (void)st, (void)r, (void)rn, (void)rt, (void)root, (void)c;
  return Called("MPI_Scatterv");
}
int MPI_Allgatherv(const void* s, int sn, Handle st, void* r, const int* rn, const int* d, Handle rt, Handle c) {
  (void)s, (void)sn, (void)st, (void)r, (void)rn, (void)d, (void)rt, (void)c;
  return Called("MPI_Allgatherv");
}
int MPI_Ialltoallv(const void* s, const int* sn, const int* sd, Handle st, void* r, const int* rn, const int* rd,
                   Handle rt, Handle c, Request* req) {
  (void)s, (void)sn, (void)sd, (void)st, (void)r, (void)rn, (void)rd, (void)rt, (void)c;
  NewRequest(req);
  return Called("MPI_Ialltoallv");
}
int MPI_Reduce_scatter(const void* s, void* r, const int* rn, Handle t, Handle op, Handle c) {
  (void)s, (void)r, (void)rn, (void)t, (void)op, (void)c;
  return Called("MPI_Reduce_scatter");
}
/* Persistent collectives (MPI 4.0): a request made, started by MPI_Start. */
int MPI_Allreduce_init(const void* s, void* r, int n, Handle t, Handle op, Handle c, Handle info, Request* req) {
  (void)s, (void)r, (void)n, (void)t, (void)op, (void)c, (void)info;
  NewRequest(req);
  g_persistent = *req;
  return Called("MPI_Allreduce_init");
}
int MPI_Bcast_init(void* b, int n, Handle t, int root, Handle c, Handle info, Request* req) {
  (void)b, (void)n, (void)t, (void)root, (void)c, (void)info;
  NewRequest(req);
  g_persistent = *req;
  return Called("MPI_Bcast_init");
}
/* Large-count forms (MPI 4.0): an MPI_Count of 64 bits. An MPI before 4.0
 * (FAKE_MPI_NO_LARGE_COUNT) has none. */
#ifndef FAKE_MPI_NO_LARGE_COUNT
int MPI_Send_c(const void* b, long long n, Handle t, int d, int tag, Handle c) {
  (void)b, (void)n, (void)t, (void)d, (void)tag, (void)c;
  return Called("MPI_Send_c");
}
int MPI_Iallreduce_c(const void* s, void* r, long long n, Handle t, Handle op, Handle c, Request* req) {
  (void)s, (void)r, (void)n, (void)t, (void)op, (void)c;
  NewRequest(req);
  return Called("MPI_Iallreduce_c");
}
#endif
/* One-sided communication. */
int MPI_Put(const void* o, int n, Handle t, int r, intptr_t d, int tn, Handle tt, Handle w) {
  (void)o, (void)n, (void)t, (void)r, (void)d, (void)tn, (void)tt, (void)w;
  return Called("MPI_Put");
}
int MPI_Get(void* o, int n, Handle t, int r, intptr_t d, int tn, Handle tt, Handle w) {
  (void)o, (void)n, (void)t, (void)r, (void)d, (void)tn, (void)tt, (void)w;
  return Called("MPI_Get");
}
int MPI_Rput(const void* o, int n, Handle t, int r, intptr_t d, int tn, Handle tt, Handle w, Request* req) {
  (void)o, (void)n, (void)t, (void)r, (void)d, (void)tn, (void)tt, (void)w;
  NewRequest(req);
  return Called("MPI_Rput");
}
int MPI_Fetch_and_op(const void* o, void* res, Handle t, int r, intptr_t d, Handle op, Handle w) {
  (void)o, (void)res, (void)t, (void)r, (void)d, (void)op, (void)w;
  return Called("MPI_Fetch_and_op");
}
int MPI_Win_fence(int a, Handle w) { (void)a, (void)w; return Called("MPI_Win_fence"); }
int MPI_Win_flush(int r, Handle w) { (void)r, (void)w; return Called("MPI_Win_flush"); }
int MPI_Win_unlock_all(Handle w) { (void)w; return Called("MPI_Win_unlock_all"); }
