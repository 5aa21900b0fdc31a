#include "cli/doctor_lint_check.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli/child_process.h"
#include "cli/install_paths.h"
#if STREAMCHECK_HAVE_COMPILE_DB
#include "analyzer/compile_flags.h"
#endif

namespace streamcheck::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProbeSource =
    "#include <cuda_runtime.h>\n"
    "__global__ void scale(float* data) { data[threadIdx.x] *= 2.0f; }\n"
    "int main() {\n"
    "  float* data = nullptr;\n"
    "  cudaMalloc(&data, 32 * sizeof(float));\n"
    "  scale<<<1, 32>>>(data);\n"
    "  cudaDeviceSynchronize();\n"
    "  cudaFree(data);\n"
    "}\n";

#ifdef STREAMCHECK_LINT_RESOURCE_DIR
constexpr const char* kResourceDir = STREAMCHECK_LINT_RESOURCE_DIR;
#else
constexpr const char* kResourceDir = "";
#endif

std::string CudaHeaders() {
#if STREAMCHECK_HAVE_COMPILE_DB
  return lint::FindCudaToolkit();
#else
  return "";
#endif
}

// Why the probe failed, from what streamcheck-lint (or the loader) printed.
Capability Diagnose(const std::string& lint, const ChildResult& run) {
  const std::string name = "lint";
  std::smatch match;
  if (std::regex_search(run.output, match, std::regex("error while loading shared libraries: ([^:]+):"))) {
    const std::string library = match[1].str();
    return {name, false, lint + " cannot start: " + library + " is not found",
            "install Clang 22's libraries (Debian/Ubuntu: apt-get install libclang-cpp22 libllvm22)"};
  }
  if (run.output.find("'cuda_runtime.h' file not found") != std::string::npos)
    return {name, false, "no CUDA headers: cuda_runtime.h is not under $CUDA_PATH, $CUDA_HOME or /usr/local/cuda",
            "install the CUDA toolkit's headers, or point CUDA_PATH at them (lint --cuda-path DIR)"};
  if (run.output.find("__clang_cuda") != std::string::npos || run.output.find("resource") != std::string::npos)
    return {name, false, "Clang 22's resource headers are missing from " + std::string(kResourceDir),
            "install them (Debian/Ubuntu: apt-get install libclang-common-22-dev)"};
  std::string first = run.failure;
  std::istringstream lines(run.output);
  for (std::string line; first.empty() && std::getline(lines, line);)
    if (line.find("error") != std::string::npos) first = line;
  return {name, false, lint + " could not lint a small CUDA file (" + (first.empty() ? "exit status " +
              std::to_string(run.exit_code) : first) + ")",
          "run `streamcheck lint FILE.cu` to see the whole message"};
}

}  // namespace

Capability CheckLint() {
  const std::string name = "lint";
  const std::string lint = FindInstalledPart("streamcheck-lint", "analyzer");
  if (lint.empty())
    return {name, false, "this installation has no streamcheck-lint (it was built without Clang/LLVM 22)",
            "build streamcheck with libclang-22-dev and llvm-22-dev installed"};
  const char* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/streamcheck-doctor-XXXXXX";
  if (mkdtemp(dir.data()) == nullptr)
    return {name, false, "cannot make a folder in " + fs::path(dir).parent_path().string() + " to lint in",
            "set TMPDIR to a writable folder"};
  const std::string source = dir + "/probe.cu";
  std::ofstream(source) << kProbeSource;
  const ChildResult run = RunProgram({lint, source}, 120);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!run.finished || run.exit_code > 1) return Diagnose(lint, run);
  const std::string cuda = CudaHeaders();
  return {name, true,
          lint + " linted a CUDA file (Clang 22; resource headers " + kResourceDir +
              (cuda.empty() ? "" : "; CUDA headers " + cuda + "/include") + ")",
          ""};
}

}  // namespace streamcheck::cli
