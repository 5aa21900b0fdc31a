// What a kernel's demangled signature says about its pointer parameters:
// `const T*` is only read through; any other pointer may be written.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/trace_record.h"

namespace streamcheck::tracer {

// Splits "ns::kernel<int, 4>(float const*, float*, int)" into its parameter
// types ("float const*", "float*", "int"). Empty when the name has no
// parameter list (extern "C" kernels) or cannot be parsed.
std::vector<std::string> ParameterTypes(std::string_view demangled);

// The access mode a parameter of this type implies for memory it points to:
// kRead for pointers to const, kUnknown otherwise (including by-value structs
// that may hold pointers).
AccessMode ModeOfParameter(std::string_view type);

// Whether a parameter of this type points to volatile memory ("volatile T*",
// "T volatile*", "T const volatile*"): what a kernel polls or signals while
// others use it too (a flag, a semaphore the host releases while the kernel
// spins). PTX's memory model takes volatile accesses as relaxed atomic ones
// at system scope: synchronization, not data, so no stream-ordering race is
// checked through such a parameter (kernel_launches.cpp counts them).
bool PointsToVolatile(std::string_view type);

// "_Z5scalePKfPf" -> "scale(float const*, float*)"; returns the input when it
// is not a mangled name.
std::string Demangle(const char* name);

}  // namespace streamcheck::tracer
