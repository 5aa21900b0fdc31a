#include "tracer/sanitizer/launch_selection.h"

#include <fnmatch.h>

#include <array>

#include "tracer/libraries/library_modules.h"

namespace streamcheck::tracer::precise {
namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

struct Vendor {
  std::string_view prefix;  // of the file name
  std::string_view library;
};
constexpr std::array<Vendor, 14> kVendors{{
    {"libcublasLt", "cuBLAS"},
    {"libcublas", "cuBLAS"},
    {"libcudnn", "cuDNN"},
    {"libnccl", "NCCL"},
    {"libcufft", "cuFFT"},
    {"libcusparse", "cuSPARSE"},
    {"libcusolver", "cuSOLVER"},
    {"libcurand", "cuRAND"},
    {"libcutensor", "cuTENSOR"},
    {"libcudss", "cuDSS"},
    {"libnvjpeg", "nvJPEG"},
    {"libnpp", "NPP"},
    {"libnvshmem", "NVSHMEM"},
    {"libcufile", "cuFile"},
}};

}  // namespace

bool KernelSelection::Selects(std::string_view demangled) const {
  if (glob_.empty() || glob_ == "*") return true;
  const std::string whole(demangled);
  if (fnmatch(glob_.c_str(), whole.c_str(), 0) == 0) return true;
  const size_t paren = whole.find('(');
  return paren != std::string::npos && fnmatch(glob_.c_str(), whole.substr(0, paren).c_str(), 0) == 0;
}

std::string_view VendorLibraryOf(std::string_view object_path) {
  const std::string_view name = BaseName(object_path);
  for (const Vendor& v : kVendors)
    if (name.substr(0, v.prefix.size()) == v.prefix) return v.library;
  return {};
}

std::string_view LaunchingVendorLibrary() { return VendorLibraryOf(CallingModuleOfThisThread()); }

}  // namespace streamcheck::tracer::precise
