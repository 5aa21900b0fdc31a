/* A program's use of NCCL, in a library linked with the fake libnccl.so.2
 * (as PyTorch's libtorch_cuda.so is with NCCL): the interposer probe loads
 * it into the global scope or, as Python loads extensions, a local one. */
#include <stddef.h>
#include <stdio.h>

typedef struct FakeComm {
  int nranks, rank, device;
} FakeComm;

int ncclAllReduce(const void*, void*, size_t, int, int, FakeComm*, void*);
int ncclBcast(void*, size_t, int, int, FakeComm*, void*);
int ncclAllGather(const void*, void*, size_t, int, FakeComm*, void*);
int ncclSend(const void*, size_t, int, int, FakeComm*, void*);
int ncclRecv(void*, size_t, int, int, FakeComm*, void*);
int ncclGroupStart(void);
int ncclGroupEnd(void);
int ncclCommDestroy(FakeComm*);
void fake_nccl_set_result(int);

__attribute__((visibility("default"))) int run_nccl_program(void) {
  FakeComm comm = {4, 1, 3};
  void* stream = (void*)0x5000;
  char* x = (char*)0x10000;
  char* y = (char*)0x80000;
  int rc = 0;
  rc |= ncclAllReduce(x, y, 100, /*float*/ 7, /*sum*/ 0, &comm, stream);
  rc |= ncclBcast(x, 8, /*int64*/ 4, /*root*/ 0, &comm, stream);
  rc |= ncclGroupStart();
  rc |= ncclSend(x, 16, 7, 2, &comm, stream);
  rc |= ncclRecv(y, 16, 7, 2, &comm, stream);
  rc |= ncclGroupEnd();
  rc |= ncclAllGather(x, y, 32, /*half*/ 6, &comm, stream);
  fake_nccl_set_result(/*ncclSystemError*/ 2);
  const int failed = ncclAllReduce(x, y, 1, 7, 0, &comm, stream);
  fake_nccl_set_result(0);
  rc |= ncclCommDestroy(&comm);
  printf("program: results %d, failed call %d\n", rc, failed);
  return rc;
}
