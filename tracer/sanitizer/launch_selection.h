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

// The vendor library (VendorLibraryOf) whose code made the launch in
// progress on this thread (tracer/libraries/library_modules.h's
// CallingModule), or empty.
std::string_view LaunchingVendorLibrary();

}  // namespace streamcheck::tracer::precise
