// Where a statically linked CUDA runtime's code lies in a loaded object.
//
// nvcc links cudart_static by default, so the runtime's internal locks are
// called from inside the program (or from a shared object that links it),
// where the library name that leaves out libcudart.so cannot see them
// (host_thread_order.cpp). The object's own symbol table says which of its
// functions are the runtime's: cudart 13 names its internal functions
// libcudart_static_<hash> (hidden, so they are in .symtab only), older
// versions put them in namespace cudart. Only those names anchor a range;
// names the program could also use (cudaFoo, __cudaFoo, cuosFoo: a C helper
// of the program's own may be called so) are covered only where they lie
// between two anchors with no other function between, which is the runtime's
// one prelinked object. A stripped object yields nothing: the in-call rule
// (tracer/preload/interpose.c) is what remains there.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "tracer/preload/thread_order.h"

namespace streamcheck::tracer {

// What a function's name says of it, in the order of increasing certainty.
enum class RuntimeName : uint8_t {
  kOther,       // the program's, or any library's
  kEntryPoint,  // named as the runtime's API or OS layer is: cudaMalloc, __cudaRegisterFunction, cuosOnce
  kInternal,    // only the runtime is named so
};
RuntimeName ClassifyFunctionName(std::string_view name);

struct FunctionSymbol {
  uintptr_t begin = 0, end = 0;  // end == begin for a symbol without a size
  RuntimeName kind = RuntimeName::kOther;
};

// The runtime's code among an object's functions (in any order): each run of
// runtime functions with no other function between, from its first internal
// function's start to its last one's end. Sorted, disjoint.
std::vector<streamcheck_code_range> RuntimeCodeRanges(std::vector<FunctionSymbol> functions);

// The function symbols of the ELF file at `path` (.symtab, else .dynsym), at
// their addresses once loaded at `load_bias`; empty when the file cannot be
// read, is not an ELF object of this machine's class, or names no internal
// runtime function (the common case: nothing else is collected then).
std::vector<FunctionSymbol> ReadRuntimeCandidates(const char* path, uintptr_t load_bias);

// Both: the runtime's code in the object loaded from `path`.
inline std::vector<streamcheck_code_range> StaticCudaRuntimeCode(const char* path, uintptr_t load_bias) {
  return RuntimeCodeRanges(ReadRuntimeCandidates(path, load_bias));
}

}  // namespace streamcheck::tracer
