// Where a process stands in a job of several (torchrun, mpirun/mpiexec,
// srun): its rank from the launcher's environment, and its host. Findings
// carry them through the process they came from (store's processes table,
// and the trace's process_info record for replays). No CUDA here.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace streamcheck::tracer {

struct JobPlace {
  int32_t rank = -1;        // the global rank; -1 when no launcher said
  int32_t local_rank = -1;  // the rank on this host, when said
  std::string rank_from;    // the variable the rank came from, e.g. "RANK"
  std::string host;
};

using EnvironmentLookup = std::function<const char*(const char*)>;

// The global rank from the first of RANK (torchrun, torch.distributed),
// OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK (MPICH, Intel MPI), PMIX_RANK,
// MV2_COMM_WORLD_RANK (MVAPICH), SLURM_PROCID (srun) that holds a
// non-negative number; where none does, a local rank (LOCAL_RANK,
// OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID) stands in,
// which is the rank on one host.
JobPlace JobPlaceFrom(const EnvironmentLookup& getenv, std::string host);
JobPlace JobPlaceOfThisProcess();

// "rank=0 local_rank=0 host=node1" (the fields known), for process_info.
std::string DescribeJobPlace(const JobPlace& place);

}  // namespace streamcheck::tracer
