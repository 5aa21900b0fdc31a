// The calling thread's Python stack, for findings in PyTorch programs: the
// user's file:line of each op. The plugin links no libpython: the CPython
// functions are looked up in the process (a C++ program using libtorch has
// none, and gets no Python stacks).
#pragma once

#include <cstdint>

#include "tracer/framework_hooks.h"

namespace streamcheck::pytorch {

// The stack id (framework_hooks.h intern_stack) of the calling thread's
// Python stack, innermost first, PyTorch's own frames left out when the
// user's are there; 0 when the thread runs no Python. Takes the GIL, which op
// dispatch has released, when `take_gil`: then call it where no lock of the
// framework is held. Without, it gives a stack only if the thread holds the
// GIL already (a tensor freed by Python code).
uint32_t CurrentPythonStack(const StreamcheckFrameworkHooks& hooks, bool take_gil);

}  // namespace streamcheck::pytorch
