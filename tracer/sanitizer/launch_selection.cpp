#include "tracer/sanitizer/launch_selection.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <fnmatch.h>

#include <array>

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

bool IsCudaCallPath(std::string_view object_path) {
  const std::string_view name = BaseName(object_path);
  for (std::string_view prefix : {"libcuda.so", "libcudart.so", "libsanitizer", "libstreamcheck_tracer",
                                  "libnvidia-", "libTreeLauncher"})
    if (name.substr(0, prefix.size()) == prefix) return true;
  return false;
}

std::string CallingObject() {
  void* frames[64];
  const int depth = backtrace(frames, 64);
  for (int i = 0; i < depth; ++i) {
    Dl_info info{};
    if (dladdr(frames[i], &info) == 0 || info.dli_fname == nullptr) continue;
    if (!IsCudaCallPath(info.dli_fname)) return info.dli_fname;
  }
  return {};
}

}  // namespace streamcheck::tracer::precise
