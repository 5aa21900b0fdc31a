// STREAMCHECK_HOT marks the functions that every kernel launch's callbacks
// run. GCC places them in .text.hot, which the linker gathers into one
// stretch of the library. Between a launch's two callbacks the CUDA driver's
// own launch work evicts the tracer's code from the instruction cache and
// its pages from the TLB (a costly walk under a hypervisor's nested paging);
// a few adjacent pages come back faster than the dozen that these functions
// otherwise lie scattered over. A small effect, measured in
// tests/gpu/bench/results/README.md.
#pragma once

#define STREAMCHECK_HOT __attribute__((hot))
