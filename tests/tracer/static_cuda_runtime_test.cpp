// Finding a statically linked CUDA runtime's code by its symbols
// (tracer/host_threads/static_cuda_runtime.h): the names, the runs they make, and a real
// ELF file, this test's own executable, which carries stand-ins named as
// cudart 13 names its internal functions.
#include "tracer/host_threads/static_cuda_runtime.h"

#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

// Stand-ins: two internal functions of the runtime, one named as its API,
// and one of the program's own. noinline, used: each stays a function;
// hidden, as cudart 13's are: in .symtab only.
#define STAND_IN extern "C" __attribute__((noinline, used, visibility("hidden")))
STAND_IN int libcudart_static_0a1b2c3d4e5f60718293a4b5c6d7e8f901234567(int x) { return x + 1; }
STAND_IN int cudaStandInEntryPoint(int x) { return x * 3; }
STAND_IN int libcudart_static_fedcba9876543210fedcba9876543210fedcba98(int x) { return x - 1; }
STAND_IN int ProgramsOwnFunction(int x) { return x * 5; }

namespace streamcheck::tracer {
namespace {

using Kind = RuntimeName;

TEST(StaticCudaRuntime, NamesOnlyTheRuntimeTakesAreInternal) {
  EXPECT_EQ(ClassifyFunctionName("libcudart_static_0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"), Kind::kInternal);
  EXPECT_EQ(ClassifyFunctionName("_ZN6cudart11globalState16initializeDriverEv"), Kind::kInternal);
  EXPECT_EQ(ClassifyFunctionName("_ZNK6cudart9arrayInfo4sizeEv"), Kind::kInternal);
  EXPECT_EQ(ClassifyFunctionName("__cudartGetStateAux"), Kind::kInternal);
  // A name the program may take as well: only between internal functions.
  EXPECT_EQ(ClassifyFunctionName("cudaLaunchKernel"), Kind::kEntryPoint);
  EXPECT_EQ(ClassifyFunctionName("cudaGetExportTable"), Kind::kEntryPoint);
  EXPECT_EQ(ClassifyFunctionName("__cudaRegisterFatBinary"), Kind::kEntryPoint);
  EXPECT_EQ(ClassifyFunctionName("cuosEnterCriticalSection"), Kind::kEntryPoint);
  // Not the runtime's.
  EXPECT_EQ(ClassifyFunctionName("libcudart_static_helper"), Kind::kOther);  // not a hash
  EXPECT_EQ(ClassifyFunctionName("libcudart_static_"), Kind::kOther);
  EXPECT_EQ(ClassifyFunctionName("cuda_check"), Kind::kOther);
  EXPECT_EQ(ClassifyFunctionName("cudaify"), Kind::kOther);
  EXPECT_EQ(ClassifyFunctionName("_Z14cudaCheckErrori"), Kind::kOther);  // a C++ helper of the program's
  EXPECT_EQ(ClassifyFunctionName("_ZN7mycudart4lockEv"), Kind::kOther);
  EXPECT_EQ(ClassifyFunctionName("cuLaunchKernel"), Kind::kOther);  // the driver's API: libcuda's own
  EXPECT_EQ(ClassifyFunctionName(""), Kind::kOther);
}

std::vector<std::pair<uintptr_t, uintptr_t>> Pairs(const std::vector<streamcheck_code_range>& ranges) {
  std::vector<std::pair<uintptr_t, uintptr_t>> out;
  for (const streamcheck_code_range& r : ranges) out.emplace_back(r.begin, r.end);
  return out;
}

TEST(StaticCudaRuntime, ARunSpansTheRuntimesFunctionsUpToAnyOther) {
  const std::vector<FunctionSymbol> functions = {
      {0x1000, 0x1100, Kind::kOther},       // the program's main
      {0x1100, 0x1180, Kind::kEntryPoint},  // its cudaCheck, next to the runtime: not covered
      {0x1180, 0x1200, Kind::kInternal},
      {0x1210, 0x1280, Kind::kEntryPoint},  // cudaMalloc between internal functions: covered
      {0x1280, 0x1300, Kind::kInternal},
      {0x1300, 0x1340, Kind::kEntryPoint},  // at the run's end: not covered
      {0x1340, 0x1400, Kind::kOther},       // libstdc++'s, linked after the runtime
      {0x1400, 0x1480, Kind::kInternal},    // the runtime's .text.unlikely part
  };
  EXPECT_EQ(Pairs(RuntimeCodeRanges(functions)),
            (std::vector<std::pair<uintptr_t, uintptr_t>>{{0x1180, 0x1300}, {0x1400, 0x1480}}));
}

TEST(StaticCudaRuntime, OrderAliasesAndSymbolsWithoutSizeAreTakenIntoAccount) {
  const std::vector<FunctionSymbol> functions = {
      {0x2280, 0x2300, Kind::kInternal},
      {0x2200, 0x2240, Kind::kOther},     // alias of an internal function: the runtime's
      {0x2200, 0x2240, Kind::kInternal},
      {0x2250, 0x2250, Kind::kOther},     // an assembly routine of the program's, without a size
      {0x2290, 0x2290, Kind::kOther},     // a label inside an internal function
  };
  EXPECT_EQ(Pairs(RuntimeCodeRanges(functions)),
            (std::vector<std::pair<uintptr_t, uintptr_t>>{{0x2200, 0x2240}, {0x2280, 0x2300}}));
  EXPECT_TRUE(RuntimeCodeRanges({{0x1000, 0x1100, Kind::kEntryPoint}, {0x1100, 0x1200, Kind::kOther}}).empty());
  EXPECT_TRUE(RuntimeCodeRanges({}).empty());
}

bool Covered(const std::vector<streamcheck_code_range>& ranges, const void* function) {
  const auto pc = reinterpret_cast<uintptr_t>(function) + 1;  // a return address lies inside
  for (const streamcheck_code_range& r : ranges)
    if (pc >= r.begin && pc < r.end) return true;
  return false;
}

uintptr_t LoadBiasOfProgram() {
  uintptr_t bias = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        *static_cast<uintptr_t*>(data) = info->dlpi_addr;
        return 1;  // the first object is the program
      },
      &bias);
  return bias;
}

TEST(StaticCudaRuntime, TheProgramsSymbolsNameTheRuntimesFunctions) {
  const std::vector<streamcheck_code_range> ranges = StaticCudaRuntimeCode("/proc/self/exe", LoadBiasOfProgram());
  ASSERT_FALSE(ranges.empty());
  EXPECT_TRUE(Covered(ranges, reinterpret_cast<const void*>(&libcudart_static_0a1b2c3d4e5f60718293a4b5c6d7e8f901234567)));
  EXPECT_TRUE(Covered(ranges, reinterpret_cast<const void*>(&libcudart_static_fedcba9876543210fedcba9876543210fedcba98)));
  EXPECT_FALSE(Covered(ranges, reinterpret_cast<const void*>(&ProgramsOwnFunction)));
  EXPECT_FALSE(Covered(ranges, reinterpret_cast<const void*>(&LoadBiasOfProgram)));
  // Only the stand-ins: a range or two, not the program.
  for (const streamcheck_code_range& r : ranges) EXPECT_LT(r.end - r.begin, 4096u);
}

TEST(StaticCudaRuntime, ObjectsWithoutTheRuntimeOrWithoutSymbolsYieldNothing) {
  EXPECT_TRUE(StaticCudaRuntimeCode("/nonexistent/libfoo.so", 0).empty());
  EXPECT_TRUE(StaticCudaRuntimeCode("/proc/self/status", 0).empty());  // not ELF
  // A stripped copy keeps no .symtab, and the stand-ins are not exported.
#ifdef STRIP_PROGRAM
  const std::string stripped = ::testing::TempDir() + "stripped." + std::to_string(getpid());
  const std::string command = std::string(STRIP_PROGRAM) + " -o " + stripped + " /proc/self/exe";
  if (std::system(command.c_str()) != 0) GTEST_SKIP() << "cannot run " << command;
  EXPECT_TRUE(StaticCudaRuntimeCode(stripped.c_str(), LoadBiasOfProgram()).empty());
  std::remove(stripped.c_str());
#endif
}

}  // namespace
}  // namespace streamcheck::tracer
