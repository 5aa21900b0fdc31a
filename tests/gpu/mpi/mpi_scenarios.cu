// MPI scenarios, two ranks (they may share one GPU, which MPI allows): CuSan's
// categories of stream bugs around MPI, each racy and fixed, on device,
// managed or pinned buffers. Rank 0 sends, rank 1 receives.
//   mpi_scenarios SCENARIO MEMORY racy|fixed
//   mpi_scenarios cuda-aware     prints "cuda-aware: yes|no|unknown"
// SCENARIO: send_after_kernel  rank 0 sends a buffer a kernel fills (fixed: cudaStreamSynchronize first)
//           isend_after_kernel the same with MPI_Isend + MPI_Wait
//           irecv_then_kernel  rank 1 launches a kernel on its MPI_Irecv buffer before MPI_Wait (fixed: after)
//           wait_after_sync    rank 1: MPI_Irecv, kernel, cudaStreamSynchronize, then MPI_Wait (fixed: wait first)
//           recv_over_copy     rank 1 receives into a buffer a cudaMemcpyAsync still reads (fixed: synchronize first)
//           persistent_send    MPI_Send_init once; each round a kernel refills and MPI_Start sends (fixed: synchronize)
//           alltoallv_after_kernel  both ranks MPI_Alltoallv a buffer a kernel fills (fixed: synchronize first)
//           put_after_kernel   rank 0 MPI_Puts a buffer a kernel fills into rank 1's window (fixed: synchronize first)
//           get_then_kernel    rank 1 MPI_Gets into a buffer and a kernel reads it before the closing fence (fixed: after)
//           many_irecvs_then_kernel rank 1 posts 100 MPI_Irecv (more than a wait's 64 inline requests), a kernel
//                              reads them all before MPI_Waitall (fixed: after it)
// MEMORY: device (needs a CUDA-aware MPI), managed, pinned.
// Exits 0 unless a CUDA or MPI call fails (3) or the arguments are wrong (2).
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "../scenarios/common.cuh"

#define MPI_CHECK(call)                                                   \
  do {                                                                    \
    if ((call) != MPI_SUCCESS) {                                          \
      std::fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call); \
      MPI_Abort(MPI_COMM_WORLD, 3);                                       \
    }                                                                     \
  } while (0)

namespace {

constexpr int kCount = 1 << 16;
constexpr long long kSpin = 20000000;  // keeps the producing kernel busy, so the race is real in time too

const char* CudaAware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() ? "yes" : "no";
#elif defined(MPIX_GPU_SUPPORT_CUDA)
  int supported = 0;
  MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported);
  return supported ? "yes" : "no";
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  return "no";
#else
  return "unknown";
#endif
}

float* Allocate(const std::string& memory) {
  float* p = nullptr;
  if (memory == "device") CHECK(cudaMalloc(&p, kCount * sizeof(float)));
  else if (memory == "managed") CHECK(cudaMallocManaged(&p, kCount * sizeof(float)));
  else if (memory == "pinned") CHECK(cudaMallocHost(&p, kCount * sizeof(float)));
  return p;
}

void Free(float* p, const std::string& memory) {
  if (memory == "pinned") CHECK(cudaFreeHost(p));
  else CHECK(cudaFree(p));
}

void Scenario(const std::string& name, int rank, float* buf, float* other, cudaStream_t s, bool racy) {
  const int peer = 1 - rank;
  if (name == "send_after_kernel" || name == "isend_after_kernel") {
    if (rank == 0) {
      spin_then_fill<<<64, 256, 0, s>>>(buf, kSpin, kCount);
      if (!racy) CHECK(cudaStreamSynchronize(s));
      if (name == "send_after_kernel") {
        MPI_CHECK(MPI_Send(buf, kCount, MPI_FLOAT, peer, 0, MPI_COMM_WORLD));
      } else {
        MPI_Request r;
        MPI_CHECK(MPI_Isend(buf, kCount, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &r));
        MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      }
    } else {
      MPI_CHECK(MPI_Recv(buf, kCount, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
  } else if (name == "irecv_then_kernel" || name == "wait_after_sync") {
    if (rank == 0) {
      MPI_CHECK(MPI_Send(other, kCount, MPI_FLOAT, peer, 0, MPI_COMM_WORLD));
    } else {
      MPI_Request r;
      MPI_CHECK(MPI_Irecv(buf, kCount, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &r));
      if (!racy) MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      scale<<<64, 256, 0, s>>>(buf, other, kCount);
      if (name == "wait_after_sync") CHECK(cudaStreamSynchronize(s));
      if (racy) MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
  } else if (name == "recv_over_copy") {
    if (rank == 0) {
      MPI_CHECK(MPI_Send(other, kCount, MPI_FLOAT, peer, 0, MPI_COMM_WORLD));
    } else {
      // Into device memory: a host-to-host copy would be synchronous.
      float* staging = nullptr;
      CHECK(cudaMalloc(&staging, kCount * sizeof(float)));
      CHECK(cudaMemcpyAsync(staging, buf, kCount * sizeof(float), cudaMemcpyDefault, s));
      if (!racy) CHECK(cudaStreamSynchronize(s));
      MPI_CHECK(MPI_Recv(buf, kCount, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(cudaStreamSynchronize(s));
      CHECK(cudaFree(staging));
    }
  } else if (name == "persistent_send") {
    MPI_Request r;
    if (rank == 0) MPI_CHECK(MPI_Send_init(buf, kCount, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &r));
    else MPI_CHECK(MPI_Recv_init(buf, kCount, MPI_FLOAT, peer, 0, MPI_COMM_WORLD, &r));
    for (int round = 0; round < 2; ++round) {
      if (rank == 0) {
        spin_then_fill<<<64, 256, 0, s>>>(buf, kSpin, kCount);
        if (!racy || round == 0) CHECK(cudaStreamSynchronize(s));
      }
      MPI_CHECK(MPI_Start(&r));
      MPI_CHECK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    }
    MPI_CHECK(MPI_Request_free(&r));
  } else if (name == "alltoallv_after_kernel") {
    // Half of each buffer to each rank, the blocks given in reverse order.
    const int half = kCount / 2;
    const int counts[2] = {half, half}, displs[2] = {half, 0};
    spin_then_fill<<<64, 256, 0, s>>>(buf, kSpin, kCount);
    if (!racy) CHECK(cudaStreamSynchronize(s));
    MPI_CHECK(MPI_Alltoallv(buf, counts, displs, MPI_FLOAT, other, counts, displs, MPI_FLOAT, MPI_COMM_WORLD));
  } else if (name == "put_after_kernel" || name == "get_then_kernel") {
    // Each rank exposes `other`; the origin side is `buf`.
    MPI_Win win;
    // An MPI without a one-sided component for this memory (Open MPI 4.1
    // with neither UCX nor an RDMA transport) refuses the window: skip (77).
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (MPI_Win_create(other, kCount * sizeof(float), sizeof(float), MPI_INFO_NULL, MPI_COMM_WORLD, &win) !=
        MPI_SUCCESS) {
      std::fprintf(stderr, "skip: this MPI cannot make a window over this memory (MPI_Win_create failed)\n");
      std::exit(77);
    }
    MPI_CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_CHECK(MPI_Win_fence(0, win));
    if (name == "put_after_kernel" && rank == 0) {
      spin_then_fill<<<64, 256, 0, s>>>(buf, kSpin, kCount);
      if (!racy) CHECK(cudaStreamSynchronize(s));
      MPI_CHECK(MPI_Put(buf, kCount, MPI_FLOAT, peer, 0, kCount, MPI_FLOAT, win));
    }
    if (name == "get_then_kernel" && rank == 1) {
      MPI_CHECK(MPI_Get(buf, kCount, MPI_FLOAT, peer, 0, kCount, MPI_FLOAT, win));
      if (racy) scale<<<64, 256, 0, s>>>(buf, buf + kCount / 2, kCount / 2);
    }
    MPI_CHECK(MPI_Win_fence(0, win));
    if (name == "get_then_kernel" && rank == 1 && !racy) scale<<<64, 256, 0, s>>>(buf, buf + kCount / 2, kCount / 2);
    CHECK(cudaStreamSynchronize(s));
    MPI_CHECK(MPI_Win_free(&win));
  } else if (name == "many_irecvs_then_kernel") {
    constexpr int kMessages = 100, kChunk = kCount / kMessages;
    MPI_Request r[kMessages];
    for (int i = 0; i < kMessages; ++i) {
      if (rank == 0) MPI_CHECK(MPI_Isend(other + i * kChunk, kChunk, MPI_FLOAT, peer, i, MPI_COMM_WORLD, &r[i]));
      else MPI_CHECK(MPI_Irecv(buf + i * kChunk, kChunk, MPI_FLOAT, peer, i, MPI_COMM_WORLD, &r[i]));
    }
    if (rank == 1 && racy) scale<<<64, 256, 0, s>>>(buf, other, kMessages * kChunk);
    MPI_CHECK(MPI_Waitall(kMessages, r, MPI_STATUSES_IGNORE));
    if (rank == 1 && !racy) scale<<<64, 256, 0, s>>>(buf, other, kMessages * kChunk);
  } else {
    std::fprintf(stderr, "unknown scenario %s\n", name.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc == 2 && std::strcmp(argv[1], "cuda-aware") == 0) {
    if (rank == 0) std::printf("cuda-aware: %s\n", CudaAware());
    MPI_Finalize();
    return 0;
  }
  if (argc != 4 || size != 2) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -np 2 %s SCENARIO device|managed|pinned racy|fixed\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const std::string memory = argv[2];
  const bool racy = Racy(argc - 2, argv + 2);
  int devices = 0;
  CHECK(cudaGetDeviceCount(&devices));
  CHECK(cudaSetDevice(rank % devices));  // two ranks on one GPU where there is one
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  float* buf = Allocate(memory);
  float* other = Allocate(memory);
  if (buf == nullptr || other == nullptr) {
    std::fprintf(stderr, "unknown memory %s\n", memory.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  CHECK(cudaMemset(buf, 0, kCount * sizeof(float)));
  CHECK(cudaMemset(other, 0, kCount * sizeof(float)));
  CHECK(cudaDeviceSynchronize());
  Scenario(argv[1], rank, buf, other, s, racy);
  CHECK(cudaStreamSynchronize(s));
  MPI_Barrier(MPI_COMM_WORLD);
  Free(buf, memory);
  Free(other, memory);
  CHECK(cudaStreamDestroy(s));
  MPI_Finalize();
  return 0;
}
