#include "analyzer/library_api.h"

#include <array>

namespace streamcheck::lint {
namespace {

// Longer prefixes first: cublasLt before cublas.
constexpr std::array kLibraries = {
    LibraryModel{"cublasLt", ""},  // cublasLtMatmul(..., cudaStream_t stream)
    LibraryModel{"cublas", "cublasHandle_t"},
    LibraryModel{"cusolverDn", "cusolverDnHandle_t"},
    LibraryModel{"cusolverSp", "cusolverSpHandle_t"},
    LibraryModel{"cufft", "cufftHandle"},
    LibraryModel{"curand", "curandGenerator_t"},
    LibraryModel{"cusparse", "cusparseHandle_t"},
    LibraryModel{"cudnn", "cudnnHandle_t"},
    LibraryModel{"nccl", ""},  // ncclAllReduce(..., ncclComm_t comm, cudaStream_t stream)
};

bool Contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

}  // namespace

const LibraryModel* FindLibrary(std::string_view function) {
  for (const LibraryModel& l : kLibraries) {
    if (function.substr(0, l.prefix.size()) == l.prefix && function.size() > l.prefix.size()) return &l;
  }
  return nullptr;
}

std::string_view SpelledLibraryName(std::string_view function) {
  for (std::string_view suffix : {"_v2_64", "_v2", "_64"}) {
    if (function.size() > suffix.size() && function.substr(function.size() - suffix.size()) == suffix) {
      return function.substr(0, function.size() - suffix.size());
    }
  }
  return function;
}

LibraryCall ClassifyLibraryCall(const LibraryModel& library, std::string_view function) {
  const std::string_view rest = SpelledLibraryName(function).substr(library.prefix.size());
  if (rest == "SetStream") return LibraryCall::kSetStream;
  // Copies between host and device: work, though their names say Set/Get.
  for (std::string_view copy : {"SetVector", "GetVector", "SetMatrix", "GetMatrix"}) {
    if (rest.substr(0, copy.size()) == copy) return LibraryCall::kWork;
  }
  if (rest.substr(0, 6) == "Create" || rest.substr(0, 4) == "Plan" || rest.substr(0, 8) == "MakePlan") {
    return LibraryCall::kCreate;
  }
  for (std::string_view word : {"Destroy", "Set", "Get", "bufferSize", "BufferSize", "WorkspaceSize", "Estimate",
                                "Version", "Property", "Attribute", "Error", "Status", "Init", "Finalize", "Group",
                                "Abort", "Count", "Rank", "Device", "Free", "Alloc", "Register", "Heuristic"}) {
    if (Contains(rest, word)) return LibraryCall::kBookkeeping;
  }
  return LibraryCall::kWork;
}

int ReadOnlyLibraryArgument(std::string_view function) {
  return function.substr(0, 9) == "cufftExec" ? 1 : -1;
}

}  // namespace streamcheck::lint
