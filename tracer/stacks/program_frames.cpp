#include "tracer/stacks/program_frames.h"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace streamcheck::tracer {
namespace {

constexpr std::string_view kStubPrefix = "__device_stub__";

// "Z14spin_then_fillPfxi" -> "spin_then_fill" (the stub's mangled suffix).
std::string KernelIdentifier(std::string_view mangled) {
  size_t i = mangled.starts_with('Z') ? 1 : 0;
  size_t length = 0;
  while (i < mangled.size() && std::isdigit(static_cast<unsigned char>(mangled[i]))) length = length * 10 + (mangled[i++] - '0');
  return length > 0 && i + length <= mangled.size() ? std::string(mangled.substr(i, length)) : std::string();
}

// Inline frames from the CUDA toolkit's own headers (cudaMalloc<T>, ...).
bool IsToolkitHeaderFrame(const ResolvedFrame& f) {
  return f.file.find("/targets/x86_64-linux/include/") != std::string::npos ||
         f.file.rfind("/usr/local/cuda", 0) == 0;
}

// The CUDA runtime linked statically into the program (cudaLaunchKernel,
// cudaMalloc, ... without line information) is not the user's code.
bool IsStaticRuntimeFrame(const ResolvedFrame& f) {
  return f.file.empty() && (f.function.rfind("cuda", 0) == 0 || f.function.rfind("__cuda", 0) == 0);
}

}  // namespace

std::string BareName(const std::string& function) {
  std::string name = function.substr(0, function.find_first_of("(<"));
  const size_t colons = name.rfind("::");
  return colons == std::string::npos ? name : name.substr(colons + 2);
}

std::vector<ResolvedFrame> ProgramFrames(std::vector<ResolvedFrame> frames, const std::string& launched_kernel) {
  std::erase_if(frames, [](const ResolvedFrame& f) { return IsStaticRuntimeFrame(f) || IsToolkitHeaderFrame(f); });
  // nvcc's launch stub `__device_stub__Z<n>K...` and the host wrapper `K` that
  // calls it stand between the launch and the line that wrote `K<<<...>>>`.
  const auto stub = std::find_if(frames.begin(), frames.end(),
                                 [](const ResolvedFrame& f) { return f.function.starts_with(kStubPrefix); });
  if (stub != frames.end()) {
    // Read before the erase below moves other frames into its place.
    const std::string kernel = KernelIdentifier(std::string_view(stub->function).substr(kStubPrefix.size()));
    frames.erase(frames.begin(), stub + 1);
    if (!frames.empty() && !kernel.empty() && frames[0].function.find(kernel) != std::string::npos)
      frames.erase(frames.begin());
  }
  // The host wrapper of the launched kernel, when inlined into the caller,
  // shows up as the innermost frame at the kernel's definition: skip it.
  if (!launched_kernel.empty())
    while (!frames.empty() && BareName(frames[0].function) == launched_kernel) frames.erase(frames.begin());
  // Drop the process start-up frames below main.
  while (!frames.empty() && (frames.back().function == "_start" || frames.back().function.empty()))
    frames.pop_back();
  return frames;
}

}  // namespace streamcheck::tracer
