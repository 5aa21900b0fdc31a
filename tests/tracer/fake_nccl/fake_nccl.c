/* A stand-in for NCCL (built as libnccl.so.2, in a folder of its own) for
 * the interposer tests: each function logs its call and returns what it
 * was told to. A communicator is a FakeComm. ncclBcast calls ncclBroadcast
 * through its exported symbol, as NCCL's does. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

typedef struct FakeComm {
  int nranks, rank, device;
} FakeComm;

static int g_result;    /* what the next calls return */
static int g_calls;     /* calls that reached this library */

__attribute__((visibility("default"))) void fake_nccl_set_result(int result) { g_result = result; }
__attribute__((visibility("default"))) int fake_nccl_calls(void) { return g_calls; }

static int Called(const char* name) {
  ++g_calls;
  printf("nccl: %s\n", name);
  return g_result;
}

int ncclCommCount(const FakeComm* comm, int* count) { *count = comm->nranks; return 0; }
int ncclCommUserRank(const FakeComm* comm, int* rank) { *rank = comm->rank; return 0; }
int ncclCommCuDevice(const FakeComm* comm, int* device) { *device = comm->device; return 0; }

int ncclAllReduce(const void* s, void* r, size_t n, int type, int op, FakeComm* c, void* stream) {
  (void)s, (void)r, (void)n, (void)type, (void)op, (void)c, (void)stream;
  return Called("ncclAllReduce");
}
int ncclBroadcast(const void* s, void* r, size_t n, int type, int root, FakeComm* c, void* stream) {
  (void)s, (void)r, (void)n, (void)type, (void)root, (void)c, (void)stream;
  return Called("ncclBroadcast");
}
int ncclBcast(void* buff, size_t n, int type, int root, FakeComm* c, void* stream) {
  Called("ncclBcast");
  return ncclBroadcast(buff, buff, n, type, root, c, stream);
}
int ncclAllGather(const void* s, void* r, size_t n, int type, FakeComm* c, void* stream) {
  (void)s, (void)r, (void)n, (void)type, (void)c, (void)stream;
  return Called("ncclAllGather");
}
int ncclSend(const void* s, size_t n, int type, int peer, FakeComm* c, void* stream) {
  (void)s, (void)n, (void)type, (void)peer, (void)c, (void)stream;
  return Called("ncclSend");
}
int ncclRecv(void* r, size_t n, int type, int peer, FakeComm* c, void* stream) {
  (void)r, (void)n, (void)type, (void)peer, (void)c, (void)stream;
  return Called("ncclRecv");
}
int ncclGroupStart(void) { return Called("ncclGroupStart"); }
int ncclGroupEnd(void) { return Called("ncclGroupEnd"); }
int ncclCommDestroy(FakeComm* c) { (void)c; return Called("ncclCommDestroy"); }

/* A thread NCCL starts (its proxy threads): runs `body` on it. */
struct Body {
  void (*body)(void*);
  void* arg;
};
static void* ThreadMain(void* p) {
  struct Body* b = (struct Body*)p;
  b->body(b->arg);
  return NULL;
}
__attribute__((visibility("default"))) void fake_nccl_run_on_own_thread(void (*body)(void*), void* arg) {
  struct Body b = {body, arg};
  pthread_t thread;
  if (pthread_create(&thread, NULL, ThreadMain, &b) == 0) pthread_join(thread, NULL);
}
