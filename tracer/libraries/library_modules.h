// The GPU libraries whose own CUDA work streamcheck keeps apart from the
// program's (TraceRecord::library), known by their modules' file names, and
// the two ways their work is recognized without an interposer: a thread the
// library started (NCCL's proxy and service threads), and a call made from
// the library's code (cuBLAS and cuDNN allocating their own workspaces).
// No CUDA here: unit-tested without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace streamcheck::tracer {

// "nccl", "cublas", "cudnn", ... for a module of one of these libraries
// (a path or a file name), else "".
std::string_view LibraryOfModule(std::string_view path);

// The file name of the module holding the first of `pcs` (return
// addresses, innermost first) outside CUDA's runtime and driver, the
// front-end's library (CUPTI, the Compute Sanitizer API), the tracer and
// the C and C++ runtimes: the code that made the CUDA call in progress.
// "<program>" for the main executable; "" when no frame is outside.
std::string_view CallingModule(const uint64_t* pcs, size_t count);

// The library (LibraryOfModule) of CallingModule; "" when that is the
// program's (or no frame is).
std::string_view LibraryOfCaller(const uint64_t* pcs, size_t count);

// The path of the object CallingModule names, as it was loaded (a shared
// library's path; the executable's own, from /proc/self/exe): what
// `run --forbid-default-stream=GLOB` matches. "" when no frame is outside.
std::string_view CallingObject(const uint64_t* pcs, size_t count);

// CallingModule of the calling thread's stack: the code that made the CUDA
// call in progress (its first 64 frames unwound; "" past them).
std::string_view CallingModuleOfThisThread();

// The library that started the calling thread: the module of the
// outermost frame of its stack that is not the C or C++ runtime's (nor the
// preloaded library's thread start). "" for the program's own threads, and
// where the stack's bottom is not reached.
// Unwinds the whole stack: once per thread.
std::string_view LibraryThatStartedThisThread();

}  // namespace streamcheck::tracer
