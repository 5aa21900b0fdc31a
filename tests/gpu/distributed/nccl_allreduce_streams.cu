// ncclAllReduce on one stream and a kernel reading its result on another:
// racy with nothing between them (the reader may run before the collective
// wrote), fixed with an event recorded after the collective and waited on
// by the reader's stream. One process drives every visible GPU
// (ncclCommInitAll, one rank per GPU, the collectives in one group), so it
// runs on one GPU (one rank) as on several. NCCL's own prototypes are
// declared here (its header is not needed); link with libnccl.so.2.
#include <vector>

#include "../scenarios/common.cuh"

extern "C" {
typedef struct ncclComm* ncclComm_t;
int ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist);
int ncclAllReduce(const void* send, void* recv, size_t count, int datatype, int op, ncclComm_t comm,
                  cudaStream_t stream);
int ncclGroupStart(void);
int ncclGroupEnd(void);
int ncclCommDestroy(ncclComm_t comm);
const char* ncclGetErrorString(int result);
}
constexpr int kNcclFloat32 = 7, kNcclSum = 0;

#define NCCL_CHECK(call)                                                                       \
  do {                                                                                         \
    const int rc_ = (call);                                                                    \
    if (rc_ != 0) {                                                                            \
      std::fprintf(stderr, "%s:%d: NCCL error %d: %s\n", __FILE__, __LINE__, rc_, ncclGetErrorString(rc_)); \
      std::exit(3);                                                                            \
    }                                                                                          \
  } while (0)

struct Rank {
  cudaStream_t comm_stream, compute_stream;
  cudaEvent_t reduced;
  float *grad, *out;
};

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  std::vector<ncclComm_t> comms(devices);
  std::vector<Rank> ranks(devices);
  NCCL_CHECK(ncclCommInitAll(comms.data(), devices, nullptr));
  for (int d = 0; d < devices; ++d) {
    Rank& r = ranks[d];
    CHECK(cudaSetDevice(d));
    CHECK(cudaStreamCreateWithFlags(&r.comm_stream, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&r.compute_stream, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&r.reduced, cudaEventDisableTiming));
    CHECK(cudaMalloc(&r.grad, kN * sizeof(float)));
    CHECK(cudaMalloc(&r.out, kN * sizeof(float)));
    fill<<<64, 256, 0, r.comm_stream>>>(r.grad, 1.0f + d, kN);
  }
  NCCL_CHECK(ncclGroupStart());
  for (int d = 0; d < devices; ++d)
    NCCL_CHECK(ncclAllReduce(ranks[d].grad, ranks[d].grad, kN, kNcclFloat32, kNcclSum, comms[d], ranks[d].comm_stream));
  NCCL_CHECK(ncclGroupEnd());
  for (int d = 0; d < devices; ++d) {
    Rank& r = ranks[d];
    CHECK(cudaSetDevice(d));
    if (!racy) {
      CHECK(cudaEventRecord(r.reduced, r.comm_stream));
      CHECK(cudaStreamWaitEvent(r.compute_stream, r.reduced, 0));
    }
    scale<<<64, 256, 0, r.compute_stream>>>(r.grad, r.out, kN);
  }
  for (int d = 0; d < devices; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaDeviceSynchronize());
  }
  for (int d = 0; d < devices; ++d) NCCL_CHECK(ncclCommDestroy(comms[d]));
  for (int d = 0; d < devices; ++d) {
    CHECK(cudaSetDevice(d));
    CHECK(cudaFree(ranks[d].grad));
    CHECK(cudaFree(ranks[d].out));
  }
  return 0;
}
