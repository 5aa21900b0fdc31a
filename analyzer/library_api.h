// The CUDA libraries whose calls do work on a stream: cuBLAS, cuBLASLt,
// cuSOLVER, cuFFT, cuRAND, cuSPARSE, cuDNN and NCCL. A handle (plan,
// generator) is bound to a stream by the library's SetStream call and its
// calls run there (the legacy default stream until one is set); cuBLASLt's
// and NCCL's calls take the stream as an argument. Which pointers a call
// reads and writes follows its declaration: `const T*` is read, `T*` written.
// Grep a library's prefix here for its row; library_semantics.cpp gives the
// calls their effect.
#pragma once

#include <string_view>

namespace streamcheck::lint {

struct LibraryModel {
  std::string_view prefix;       // of its function names: "cublas", "cufft"
  std::string_view handle_type;  // the type its calls take first ("" if none)
};

// The library a function belongs to, by its name (nullptr: none modeled).
const LibraryModel* FindLibrary(std::string_view function);

enum class LibraryCall {
  kWork,         // runs on the handle's (or the given) stream
  kSetStream,    // binds the handle (argument 0) to a stream (argument 1)
  kCreate,       // makes a handle, or a descriptor of the buffers it is given (argument 0 is its address)
  kBookkeeping,  // sizes, attributes, versions, destruction: no work on a stream
};
LibraryCall ClassifyLibraryCall(const LibraryModel& library, std::string_view function);

// The name as the program wrote it: cublasSgemm for cublasSgemm_v2.
std::string_view SpelledLibraryName(std::string_view function);

// Arguments whose declared type is wrong about the access: cufftExec*'s input
// is `cufftComplex*` but only read. -1: none.
int ReadOnlyLibraryArgument(std::string_view function);

}  // namespace streamcheck::lint
