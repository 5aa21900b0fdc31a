// What a shared library needs from the loader, read from its ELF file
// without loading it (loading the tracer needs the NVIDIA driver's
// libcuda.so.1, which `doctor` must be able to say is missing), and where the
// loader would find each: LD_LIBRARY_PATH, the library's run path ($ORIGIN
// expanded), then the system's own search.
#pragma once

#include <string>
#include <vector>

namespace streamcheck::cli {

struct ElfDependencies {
  std::vector<std::string> needed;    // DT_NEEDED, in order
  std::vector<std::string> run_path;  // DT_RUNPATH (or DT_RPATH), $ORIGIN expanded
};

// false with *error when `path` is not a readable 64-bit ELF file.
bool ReadElfDependencies(const std::string& path, ElfDependencies* out, std::string* error);

// Where `needed` of a library with `deps` resolves: a path, or "" when the
// loader would not find it. Libraries of the system's search are looked up
// by loading them in a child process.
std::string ResolveNeeded(const std::string& needed, const ElfDependencies& deps);

}  // namespace streamcheck::cli
