// The Compute Sanitizer API's library (libsanitizer-public.so), loaded at
// run time: the tracer links nothing of it, so it builds where only the
// headers are, and a process without the library runs in fast mode.
#pragma once

#include <sanitizer.h>

#include <string>

namespace streamcheck::tracer::precise {

struct SanitizerLibrary {
#define STREAMCHECK_SANITIZER_FUNCTIONS(X)                                                                \
  X(sanitizerSubscribe) X(sanitizerUnsubscribe) X(sanitizerEnableCallback) X(sanitizerEnableDomain) X(sanitizerGetResultString) \
  X(sanitizerAddPatches) X(sanitizerPatchInstructions) X(sanitizerPatchModule)                            \
  X(sanitizerSetLaunchCallbackData) X(sanitizerAlloc) X(sanitizerAllocHost) X(sanitizerFree)             \
  X(sanitizerFreeHost) X(sanitizerMemcpyHostToDeviceAsync) X(sanitizerMemset)
#define X(name) decltype(&::name) name = nullptr;
  STREAMCHECK_SANITIZER_FUNCTIONS(X)
#undef X

  // Loads the library (STREAMCHECK_SANITIZER_LIB, else beside the CUDA
  // toolkit's compute-sanitizer) and resolves every function; false with
  // *error set when any is missing.
  bool Load(std::string* error);
  // The result's name, for messages.
  std::string Describe(SanitizerResult result) const;
};

}  // namespace streamcheck::tracer::precise
