// A stand-in for the CUDA driver calls the tracer makes (a kernel's name and
// parameter layout), for benchmarks on machines without a GPU.
#pragma once

#include <cuda.h>

namespace streamcheck::bench {

// The one kernel the fake driver knows: `step(const float*, float*, int)`.
CUfunction FakeKernel();

}  // namespace streamcheck::bench
