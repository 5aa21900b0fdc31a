#include "analyzer/compile_flags.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace streamcheck::lint {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST(NvccTranslation, ArchGencodeXcompilerRdc) {
  const auto out = TranslateNvccCommand({"/usr/local/cuda/bin/nvcc", "-ccbin", "/usr/bin/g++-12", "-arch=sm_90",
                                         "-Xcompiler", "-fPIC,-Wall", "--expt-relaxed-constexpr", "-rdc=true",
                                         "-x", "cu", "-Iinc", "-DX=1", "-c", "a.cu", "-o", "a.o"});
  EXPECT_EQ(out[0], "clang++");
  EXPECT_TRUE(Has(out, "--cuda-gpu-arch=sm_90"));
  EXPECT_TRUE(Has(out, "-fPIC"));
  EXPECT_TRUE(Has(out, "-Wall"));
  EXPECT_TRUE(Has(out, "-fgpu-rdc"));
  EXPECT_TRUE(Has(out, "cuda"));
  EXPECT_FALSE(Has(out, "cu"));
  EXPECT_FALSE(Has(out, "-ccbin"));
  EXPECT_FALSE(Has(out, "/usr/bin/g++-12"));
  EXPECT_FALSE(Has(out, "--expt-relaxed-constexpr"));
  EXPECT_TRUE(Has(out, "-Iinc"));
  EXPECT_TRUE(Has(out, "-DX=1"));
}

// CMake writes a CUDA target's include paths into an nvcc options file.
TEST(ResponseFiles, OptionsFileAndAtFileAreReadRelativeToTheDirectory) {
  const std::string dir = testing::TempDir() + "/response_files";
  std::filesystem::create_directories(dir + "/CMakeFiles");
  std::ofstream(dir + "/CMakeFiles/includes_CUDA.rsp") << "-I/opt/inc \"-I/path with space\"\n-DF(x)=x";
  std::ofstream(dir + "/flags.rsp") << "-DFROM_AT=1";
  const auto out = ExpandResponseFiles({"nvcc", "--options-file", "CMakeFiles/includes_CUDA.rsp", "@flags.rsp",
                                        "-optf", "missing.rsp", "-c", "a.cu"},
                                       dir);
  const std::vector<std::string> want = {"nvcc", "-I/opt/inc", "-I/path with space", "-DF(x)=x", "-DFROM_AT=1",
                                         "-optf", "missing.rsp", "-c", "a.cu"};
  EXPECT_EQ(out, want);
}

TEST(NvccTranslation, GencodeForms) {
  EXPECT_TRUE(Has(TranslateNvccCommand({"nvcc", "-gencode", "arch=compute_80,code=sm_80", "a.cu"}),
                  "--cuda-gpu-arch=sm_80"));
  EXPECT_TRUE(Has(TranslateNvccCommand({"nvcc", "--generate-code=arch=compute_75,code=[compute_75,sm_75]", "a.cu"}),
                  "--cuda-gpu-arch=sm_75"));
  EXPECT_TRUE(Has(TranslateNvccCommand({"nvcc", "-arch", "compute_70", "a.cu"}), "--cuda-gpu-arch=sm_70"));
  const auto native = TranslateNvccCommand({"nvcc", "-arch=native", "a.cu"});
  EXPECT_EQ(std::count_if(native.begin(), native.end(), [](const std::string& s) { return s.rfind("--cuda-gpu-arch", 0) == 0; }), 0);
}

TEST(NvccTranslation, DropsDeviceOnlyAndValues) {
  const auto out = TranslateNvccCommand({"nvcc", "-Xptxas", "-v", "-maxrregcount=32", "-lineinfo", "-G",
                                         "--use_fast_math", "-t", "4", "-Werror", "all-warnings", "-dc", "a.cu",
                                         "--default-stream", "per-thread", "-std", "c++20"});
  EXPECT_FALSE(Has(out, "-v"));
  EXPECT_FALSE(Has(out, "4"));
  EXPECT_FALSE(Has(out, "all-warnings"));
  EXPECT_TRUE(Has(out, "-fgpu-rdc"));
  EXPECT_TRUE(Has(out, "-c"));
  EXPECT_TRUE(Has(out, "-fgpu-default-stream=per-thread"));
  EXPECT_TRUE(Has(PrepareClangCommand(out, "a.cu", CudaSetup{"/opt/cuda", "", true}),
                  "-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1"));
  EXPECT_TRUE(Has(out, "-std=c++20"));
  EXPECT_TRUE(Has(out, "a.cu"));
}

TEST(PrepareClangCommand, AddsCudaHostOnlySetupAndDropsOutputs) {
  CudaSetup setup{"/opt/cuda", "/rd", true};
  const auto out = PrepareClangCommand({"nvcc", "-c", "a.cu", "-o", "a.o", "-MD", "-MF", "a.d", "-Werror"}, "a.cu", setup);
  EXPECT_TRUE(Has(out, "--cuda-path=/opt/cuda"));
  EXPECT_TRUE(Has(out, "--cuda-host-only"));
  EXPECT_TRUE(Has(out, "-Wno-unknown-cuda-version"));
  EXPECT_TRUE(Has(out, "-resource-dir=/rd"));
  EXPECT_TRUE(Has(out, "-fsyntax-only"));
  EXPECT_FALSE(Has(out, "a.o"));
  EXPECT_FALSE(Has(out, "a.d"));
  EXPECT_FALSE(Has(out, "-Werror"));
  EXPECT_FALSE(Has(out, "-c"));
}

TEST(PrepareClangCommand, PlainCppStaysCpp) {
  const auto out = PrepareClangCommand({"g++", "-c", "a.cpp"}, "a.cpp", CudaSetup{"/opt/cuda", "", true});
  EXPECT_FALSE(Has(out, "--cuda-host-only"));
  EXPECT_EQ(out[0], "clang++");
}

// What CMake writes for the samples: nvcc's `-isystem=DIR`, which clang would read
// as sysroot-relative; value-taking nvcc options whose value must not become an input.
TEST(NvccTranslation, SamplesStyleIncludesAndValueOptions) {
  const auto out = TranslateNvccCommand({"nvcc", "-isystem=/usr/local/cuda/include", "-Xcompiler=-fPIE,-fopenmp",
                                         "-time", "t.csv", "--keep-dir", "kd", "-ftemplate-depth", "512", "-noeh",
                                         "--machine", "64", "-v", "a.cu"});
  EXPECT_TRUE(Has(out, "-isystem"));
  EXPECT_TRUE(Has(out, "/usr/local/cuda/include"));
  EXPECT_FALSE(Has(out, "-isystem=/usr/local/cuda/include"));
  EXPECT_TRUE(Has(out, "-fopenmp"));
  EXPECT_FALSE(Has(out, "t.csv"));
  EXPECT_FALSE(Has(out, "-time"));
  EXPECT_FALSE(Has(out, "kd"));
  EXPECT_FALSE(Has(out, "64"));
  EXPECT_FALSE(Has(out, "-v"));
  EXPECT_TRUE(Has(out, "-ftemplate-depth=512"));
  EXPECT_TRUE(Has(out, "-fno-exceptions"));
  // CMake's `-Xcompiler "-Wall -Wextra"`: one value, two flags.
  const auto quoted = TranslateNvccCommand({"nvcc", "-Xcompiler", "-Wmissing-declarations -fopenmp", "a.cu"});
  EXPECT_TRUE(Has(quoted, "-Wmissing-declarations"));
  EXPECT_TRUE(Has(quoted, "-fopenmp"));
}

TEST(PrepareClangCommand, CudaGetsTheNvccPreludeAndEveryFileTheFallbackHeaders) {
  const std::string prelude = std::string(kPreludeDir) + "/nvcc_host_prelude.h";
  const std::string fallback = std::string(kPreludeDir) + "/fallback";
  const auto cu = PrepareClangCommand({"nvcc", "-c", "a.cu"}, "a.cu", CudaSetup{"/opt/cuda", "", true});
  EXPECT_TRUE(Has(cu, prelude));
  EXPECT_TRUE(Has(cu, fallback));
  const auto cpp = PrepareClangCommand({"g++", "-c", "a.cpp"}, "a.cpp", CudaSetup{"/opt/cuda", "", true});
  EXPECT_FALSE(Has(cpp, prelude));
  EXPECT_TRUE(Has(cpp, fallback));
  // A .cpp file including cuda_runtime.h finds it, searched after the command's own paths.
  EXPECT_TRUE(Has(cpp, "/opt/cuda/include"));
}

// nvcc searches the command's include directories before the toolkit's
// CCCL: a project's own, newer CCCL given with -isystem must come first.
TEST(PrepareClangCommand, TheToolkitsCcclComesAfterTheCommandsOwnIncludes) {
  const std::filesystem::path toolkit = std::filesystem::path(::testing::TempDir()) / "lint_cccl_toolkit";
  std::filesystem::create_directories(toolkit / "include" / "cccl");
  const auto out = PrepareClangCommand({"nvcc", "-isystem", "/proj/cccl/include", "-I", "/proj/include", "-c", "a.cu"},
                                       "a.cu", CudaSetup{toolkit.string(), "", true});
  const auto at = [&](const std::string& arg) { return std::find(out.begin(), out.end(), arg) - out.begin(); };
  const auto toolkit_cccl = at((toolkit / "include" / "cccl").string());
  ASSERT_LT(toolkit_cccl, std::ssize(out));
  EXPECT_EQ(out[toolkit_cccl - 1], "-isystem");
  EXPECT_LT(at("/proj/cccl/include"), toolkit_cccl);
  EXPECT_LT(at("/proj/include"), toolkit_cccl);
  // A .cpp file's host code may include Thrust or libcu++ too: CCCL as a last resort.
  const auto cpp = PrepareClangCommand({"g++", "-I", "/proj/include", "-c", "a.cpp"}, "a.cpp",
                                       CudaSetup{toolkit.string(), "", true});
  const auto cpp_cccl = std::find(cpp.begin(), cpp.end(), (toolkit / "include" / "cccl").string());
  ASSERT_NE(cpp_cccl, cpp.end());
  EXPECT_EQ(*(cpp_cccl - 1), "-idirafter");
  std::filesystem::remove_all(toolkit);
}

TEST(PrepareClangCommand, CFilesStayC) {
  const auto out = PrepareClangCommand({"/usr/bin/cc", "-std=gnu11", "-c", "a.c"}, "a.c", CudaSetup{"/opt/cuda", "", true});
  EXPECT_EQ(out[0], "clang");
  EXPECT_TRUE(Has(out, "-std=gnu11"));
}

TEST(SplitCommandLine, Quotes) {
  const auto v = SplitCommandLine(R"(nvcc -DMSG="a b" 'x y' c\ d)");
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[1], "-DMSG=a b");
  EXPECT_EQ(v[2], "x y");
  EXPECT_EQ(v[3], "c d");
}

}  // namespace
}  // namespace streamcheck::lint
