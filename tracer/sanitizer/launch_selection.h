// Which kernel launches `--precise[=GLOB]` instruments: kernels whose
// demangled name matches GLOB, launched by the program's own code rather
// than by a vendor library (cuBLAS, cuDNN, NCCL, ...), whose kernels use
// copy engines inside the SM (the tensor memory accelerator) that the
// Sanitizer API's patches do not all see: those keep fast mode's extents and
// are counted. No CUDA here: unit-tested without a GPU.
#pragma once

#include <string>
#include <string_view>

namespace streamcheck::tracer::precise {

class KernelSelection {
 public:
  // `glob`: fnmatch(3) pattern; empty or "*" selects every kernel.
  explicit KernelSelection(std::string glob) : glob_(std::move(glob)) {}
  // Matches the whole demangled name ("ns::scale(float const*, float*)")
  // or the name without its parameter list ("ns::scale").
  bool Selects(std::string_view demangled) const;
  const std::string& glob() const { return glob_; }

 private:
  std::string glob_;
};

// The vendor library a shared object is (by its file name:
// ".../libcublasLt.so.13" is cuBLAS), or empty for any other object.
std::string_view VendorLibraryOf(std::string_view object_path);

// Whether a shared object is part of CUDA's own call path between the
// program and a launch callback (the driver, the runtime, the Sanitizer
// API's library, this tracer): the launching code is the first frame outside them.
bool IsCudaCallPath(std::string_view object_path);

// The shared object (or program) whose code made the CUDA call in progress
// on this thread: the first frame of the calling stack outside CUDA's call
// path, or empty when the stack cannot be walked that far.
std::string CallingObject();

}  // namespace streamcheck::tracer::precise
