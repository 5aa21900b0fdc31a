// Shared parts of the driver-API scenarios: programs that call the CUDA
// driver themselves (cuStreamCreate, cuMemAlloc, cuMemcpy*Async, ...), as
// JAX's XLA and NVRTC programs do, next to the runtime's kernel launches.
#pragma once

#include <cuda.h>

#include <cstdlib>

#include "host_access.cuh"

// A failed driver call ends the program with status 3 (as CHECK does for the
// runtime's): the runner then sees the program's status change.
#define CU_CHECK(call)                        \
  do {                                        \
    if ((call) != CUDA_SUCCESS) std::exit(3); \
  } while (0)
