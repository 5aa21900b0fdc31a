#include "cli/precise_support.h"

#include <dlfcn.h>
#include <link.h>

#include "cli/child_process.h"
#include "cli/install_paths.h"
#include "tracer/sanitizer/sanitizer_library_paths.h"

namespace streamcheck::cli {
namespace {

// The first candidate that loads, as the tracer would load it (in a child:
// what it loads is not ours to keep).
std::string FindSanitizerLibrary(std::string* tried) {
  for (const std::string& candidate : tracer::precise::SanitizerLibraryCandidates())
    *tried += (tried->empty() ? "" : ", ") + candidate;
  const ChildResult found = ProbeInChild(
      [](std::string* out) {
        for (const std::string& candidate : tracer::precise::SanitizerLibraryCandidates()) {
          void* handle = dlopen(candidate.c_str(), RTLD_LAZY | RTLD_LOCAL);
          link_map* map = nullptr;
          if (handle == nullptr || dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == nullptr) continue;
          *out = map->l_name;
          return 0;
        }
        return 1;
      },
      20);
  return found.finished && found.exit_code == 0 ? found.output : "";
}

}  // namespace

PreciseSupport CheckPreciseSupport() {
  PreciseSupport support;
#ifndef STREAMCHECK_TRACER_PRECISE
  // A tracer of STREAMCHECK_TRACER_LIB's may have it: it says so itself.
  if (!TracerChosenByEnvironment()) {
    support.detail = "this installation's tracer was built without the Compute Sanitizer API's headers "
                     "(compute-sanitizer/include), so it has no precise front-end";
    support.fix = "build streamcheck where the CUDA toolkit has compute-sanitizer/include, or configure it with "
                  "-DSTREAMCHECK_SANITIZER_INCLUDE=DIR (docs/PRECISE.md)";
    return support;
  }
#endif
  std::string tried;
  const std::string library = FindSanitizerLibrary(&tried);
  if (library.empty()) {
    support.detail = std::string(tracer::precise::kSanitizerLibraryName) + " (the Compute Sanitizer API) is not found: tried " + tried;
    support.fix = std::string("install the CUDA toolkit's compute-sanitizer, or set ") + environment::kSanitizerLib +
                  " to the library";
    return support;
  }
  support.ok = true;
  support.detail = "the tracer has the precise front-end; the Compute Sanitizer API is " + library;
  return support;
}

}  // namespace streamcheck::cli
