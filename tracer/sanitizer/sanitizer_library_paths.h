// Where the Compute Sanitizer API's library is looked for, in order: the
// tracer loads the first that opens (sanitizer_library.cpp), and `streamcheck
// doctor` and `run --precise` look in the same places before running anything.
// No Sanitizer API header here: the command includes it too.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "tracer/environment.h"

namespace streamcheck::tracer::precise {

inline constexpr const char* kSanitizerLibraryName = "libsanitizer-public.so";

// STREAMCHECK_SANITIZER_LIB, the toolkit's compute-sanitizer/ under
// $CUDA_HOME, $CUDA_PATH and /usr/local/cuda, then the loader's own search.
inline std::vector<std::string> SanitizerLibraryCandidates() {
  std::vector<std::string> candidates;
  if (const char* path = std::getenv(environment::kSanitizerLib)) candidates.emplace_back(path);
  for (const char* home : {std::getenv("CUDA_HOME"), std::getenv("CUDA_PATH")})
    if (home != nullptr) candidates.push_back(std::string(home) + "/compute-sanitizer/" + kSanitizerLibraryName);
  candidates.push_back(std::string("/usr/local/cuda/compute-sanitizer/") + kSanitizerLibraryName);
  candidates.emplace_back(kSanitizerLibraryName);
  return candidates;
}

}  // namespace streamcheck::tracer::precise
