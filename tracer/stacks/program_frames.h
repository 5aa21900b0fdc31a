// Which frames of a symbolized host stack a report shows: the program's own.
// Frames of the CUDA runtime linked into the program, inline frames from the
// toolkit's headers, nvcc's launch stub and the kernel's host wrapper, and the
// process start-up below main() say nothing about where the user launched.
// No CUDA here: unit-tested without a GPU.
#pragma once

#include <string>
#include <vector>

#include "runtime/finding.h"

namespace streamcheck::tracer {

// `frames` innermost first; `launched_kernel` the bare name (BareName) of the
// kernel the stack launched, or empty.
std::vector<ResolvedFrame> ProgramFrames(std::vector<ResolvedFrame> frames, const std::string& launched_kernel);

// "ns::spin_then_fill<float>(float*, int)" -> "spin_then_fill".
std::string BareName(const std::string& function);

}  // namespace streamcheck::tracer
