// Turning a build's compile command into the clang command the lint parses:
// nvcc commands (CMake CUDA projects) are translated to clang's CUDA flags, and
// every command gets the host-only CUDA setup the analysis needs. No LLVM here,
// so the translation is unit-tested without Clang.
#pragma once

#include <string>
#include <vector>

namespace streamcheck::lint {

struct CudaSetup {
  std::string cuda_path;     // toolkit root; empty = FindCudaToolkit()
  std::string resource_dir;  // clang's resource dir (its own headers)
  bool host_only = true;     // analyse the host side only
};

// Where the lint's own headers appear to clang (served from memory by the
// driver, analyzer/prelude/): `nvcc_host_prelude.h`, force-included into CUDA
// sources for the host functions nvcc provides and clang's CUDA headers do
// not, and `fallback/`, searched after every other include directory for
// headers nvcc's host compiler has and clang may not (omp.h).
inline constexpr const char* kPreludeDir = "/streamcheck-lint-prelude";

// The CUDA toolkit root: $CUDA_PATH, $CUDA_HOME, then /usr/local/cuda; the
// directory must contain include/cuda_runtime.h. Empty when none is found.
std::string FindCudaToolkit();

bool IsNvcc(const std::string& program);

// nvcc's flags in clang's spelling; flags with no clang meaning (-ccbin,
// -Xptxas, --expt-relaxed-constexpr, ...) are dropped. argv[0] is replaced by
// "clang++". Unknown nvcc-only long options are dropped with their value when
// nvcc documents one; everything else passes through (clang reports it).
std::vector<std::string> TranslateNvccCommand(const std::vector<std::string>& nvcc_argv);

// Whether a file's text launches kernels or names CUDA's built-ins (`<<<`,
// __global__, threadIdx, blockIdx, __shared__): a .cpp file its build compiles as CUDA.
bool UsesCudaSyntax(const std::string& file);

// Adds what the lint needs to any clang-style command: CUDA mode for .cu
// inputs and for C++ files with CUDA syntax in them (UsesCudaSyntax), the toolkit and resource dir, host-only parsing, the nvcc prelude,
// the toolkit's headers for plain C++ files (nvcc puts them on every file's
// path), no warnings of its own (the lint reports its findings; compile
// errors still show), and drops outputs/dependency files the lint never writes.
std::vector<std::string> PrepareClangCommand(std::vector<std::string> argv, const std::string& file,
                                             const CudaSetup& setup);

// A command for a file given on the command line with no compile database:
// `clang++ [CUDA mode] EXTRA_FLAGS FILE`.
std::vector<std::string> DefaultCommand(const std::string& file,
                                        const std::vector<std::string>& extra_flags);

// The command with its response files read in, relative to `directory`:
// nvcc's `--options-file F` / `-optf F` (CMake puts a CUDA target's include
// paths there) and `@F` (gcc's and clang's). A file that cannot be read is
// left as it was (the parse then says what is missing).
std::vector<std::string> ExpandResponseFiles(const std::vector<std::string>& argv, const std::string& directory);

// Splits a shell-style command string (compile_commands.json "command").
std::vector<std::string> SplitCommandLine(const std::string& command);

}  // namespace streamcheck::lint
