#include "tracer/sanitizer/module_patching.h"

#include "tracer/sanitizer/patches/precise_patch_image.h"

namespace streamcheck::tracer::precise {
namespace {

struct PatchPoint {
  Sanitizer_InstructionId instruction;
  const char* patch;
  // Without it the kernel's accesses would be incomplete (or its end unseen).
  bool required;
};

// Patches of the global memory a kernel reads or writes, and of its end.
// Copies through the tensor memory accelerator (cp.async.bulk.tensor) have
// no patch point: launch_selection.h leaves the vendor libraries that use
// them to fast mode.
constexpr PatchPoint kPatchPoints[] = {
    {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "StreamcheckGlobalAccess", true},
    {SANITIZER_INSTRUCTION_BLOCK_EXIT, "StreamcheckBlockExit", true},
    {SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "StreamcheckMemcpyAsync", true},
    {SANITIZER_INSTRUCTION_BULK_COPY_GLOBAL_TO_SHARED, "StreamcheckBulkGlobalToShared", false},
    {SANITIZER_INSTRUCTION_BULK_COPY_SHARED_TO_GLOBAL, "StreamcheckBulkSharedToGlobal", false},
    {SANITIZER_INSTRUCTION_BULK_REDUCTION_SHARED_TO_GLOBAL, "StreamcheckBulkReductionToGlobal", false},
};

}  // namespace

std::string ModulePatching::LoadPatches(CUcontext context) {
  auto [it, inserted] = patches_.try_emplace(context);
  if (!inserted) return it->second;
  const SanitizerResult rc = api_.sanitizerAddPatches(kPrecisePatchImage, context);
  if (rc != SANITIZER_SUCCESS)
    it->second = "precise: the patches did not load (" + api_.Describe(rc) +
                 "; built for another GPU architecture?): every kernel keeps fast mode's extents";
  return it->second;
}

std::string ModulePatching::OnModuleLoaded(const Sanitizer_ResourceModuleData& module) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (std::string why = LoadPatches(module.context); !why.empty()) return why;
  std::string skipped;
  for (const PatchPoint& point : kPatchPoints) {
    const char* patch = point.instruction == SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS && per_lane_
                            ? "StreamcheckGlobalAccessPerLane"
                            : point.patch;
    const SanitizerResult rc = api_.sanitizerPatchInstructions(point.instruction, module.module, patch);
    if (rc == SANITIZER_SUCCESS) continue;
    if (point.required)
      return "precise: a module's " + std::string(point.patch) + " patch was refused (" + api_.Describe(rc) +
             "): its kernels keep fast mode's extents";
    skipped = point.patch;
  }
  if (const SanitizerResult rc = api_.sanitizerPatchModule(module.module); rc != SANITIZER_SUCCESS)
    return "precise: a module could not be patched (" + api_.Describe(rc) + "): its kernels keep fast mode's extents";
  patched_.insert(module.module);
  if (!skipped.empty()) return "precise: a module was patched without " + skipped + " (this driver has no such patch point)";
  return "";
}

bool ModulePatching::Patched(CUmodule module) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return patched_.count(module) != 0;
}

void ModulePatching::Forget(CUmodule module) {
  std::lock_guard<std::mutex> lock(mutex_);
  patched_.erase(module);
}

void ModulePatching::ForgetContext(CUcontext context) {
  std::lock_guard<std::mutex> lock(mutex_);
  patches_.erase(context);
}

}  // namespace streamcheck::tracer::precise
