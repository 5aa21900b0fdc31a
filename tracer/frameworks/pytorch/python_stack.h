// The calling thread's Python stack, for findings in PyTorch programs: the
// user's file:line of each op. The plugin links no libpython: the CPython
// functions are looked up in the process (a C++ program using libtorch has
// none, and gets no Python stacks).
#pragma once

#include <cstdint>

#include "tracer/frameworks/framework_hooks.h"

namespace streamcheck::pytorch {

// The stack id (framework_hooks.h intern_stack) of the calling thread's
// Python stack, innermost first, PyTorch's own frames left out when the
// user's are there; 0 when the thread runs no Python.
//
// A stack seen before is recognized from the thread's frames read in place
// (python_frames.h), without the GIL. A new one is walked through CPython's
// API, which needs the GIL: with `take_gil` it is taken (op dispatch has
// released it; call this where no lock of the framework is held); without,
// a new stack is found only if the thread holds the GIL already (a tensor
// freed by Python code), else the answer is 0.
uint32_t CurrentPythonStack(const StreamcheckFrameworkHooks& hooks, bool take_gil);

// How the calls that found a stack found it, for STREAMCHECK_DEBUG=profile
// and the tests (STREAMCHECK_DEBUG=python-api-stacks: through the API alone).
struct PythonStackCounts {
  uint64_t in_place = 0;     // frames read in place, a stack seen before
  uint64_t through_api = 0;  // walked through CPython's API under the GIL
};
PythonStackCounts CurrentPythonStackCounts();

}  // namespace streamcheck::pytorch
