// Instrumenting modules as they load: the patches (embedded in the tracer,
// patches/precise_patches.cu) are loaded once per context, then each module's
// global memory accesses, asynchronous and bulk copies and thread exits are
// patched. A module the Sanitizer API will not patch keeps fast mode's
// extents for its kernels, with a message; the program runs on unchanged.
#pragma once

#include <sanitizer.h>

#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "tracer/sanitizer/sanitizer_library.h"

namespace streamcheck::tracer::precise {

class ModulePatching {
 public:
  // `per_lane`: the access patch that logs every lane on its own (for measuring).
  ModulePatching(const SanitizerLibrary& api, bool per_lane) : api_(api), per_lane_(per_lane) {}
  // SANITIZER_CBID_RESOURCE_MODULE_LOADED. Empty, or why the module's
  // kernels keep fast mode's extents.
  std::string OnModuleLoaded(const Sanitizer_ResourceModuleData& module);
  // Whether launches of the module's kernels can be instrumented.
  bool Patched(CUmodule module) const;
  void Forget(CUmodule module);
  void ForgetContext(CUcontext context);

 private:
  // Loads the patches into the context once; empty or why not.
  std::string LoadPatches(CUcontext context);

  const SanitizerLibrary& api_;
  const bool per_lane_;
  mutable std::mutex mutex_;
  std::unordered_map<CUcontext, std::string> patches_;  // per context: "" loaded, else why not
  std::unordered_set<CUmodule> patched_;
};

}  // namespace streamcheck::tracer::precise
