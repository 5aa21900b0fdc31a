#include "tracer/sanitizer/sanitizer_library.h"

#include <dlfcn.h>

#include <string>

#include "tracer/sanitizer/sanitizer_library_paths.h"

namespace streamcheck::tracer::precise {

bool SanitizerLibrary::Load(std::string* error) {
  void* handle = nullptr;
  std::string tried;
  for (const std::string& path : SanitizerLibraryCandidates()) {
    handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle != nullptr) break;
    tried += (tried.empty() ? "" : ", ") + path;
  }
  if (handle == nullptr) {
    *error = "libsanitizer-public.so not found (tried " + tried + "; STREAMCHECK_SANITIZER_LIB names it)";
    return false;
  }
#define X(fn)                                                          \
  fn = reinterpret_cast<decltype(fn)>(dlsym(handle, #fn));             \
  if (fn == nullptr) {                                                 \
    *error = std::string("libsanitizer-public.so has no ") + #fn;      \
    return false;                                                      \
  }
  STREAMCHECK_SANITIZER_FUNCTIONS(X)
#undef X
  return true;
}

std::string SanitizerLibrary::Describe(SanitizerResult result) const {
  const char* text = nullptr;
  if (sanitizerGetResultString != nullptr) sanitizerGetResultString(result, &text);
  return text != nullptr ? text : "error " + std::to_string(static_cast<int>(result));
}

}  // namespace streamcheck::tracer::precise
