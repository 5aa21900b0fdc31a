#include "tracer/stacks/program_frames.h"

#include <gtest/gtest.h>

namespace streamcheck::tracer {
namespace {

ResolvedFrame Frame(std::string function, std::string file = "app.cu", uint32_t line = 1) {
  return SourceFrame(std::move(function), std::move(file), line);
}

std::vector<std::string> Functions(const std::vector<ResolvedFrame>& frames) {
  std::vector<std::string> out;
  for (const ResolvedFrame& f : frames) out.push_back(f.function);
  return out;
}

// A `scale<<<...>>>` launch from main(): the statically linked runtime, the
// stub and the host wrapper go; main() stays, the start-up frames go.
TEST(ProgramFrames, LaunchShowsTheLineThatLaunched) {
  const std::vector<ResolvedFrame> frames = {
      Frame("cudaLaunchKernel", ""), Frame("__device_stub__Z5scalePKfPfi"), Frame("scale(float const*, float*, int)"),
      Frame("main"), Frame("__libc_start_main", "libc-start.c"), Frame("_start", "")};
  EXPECT_EQ(Functions(ProgramFrames(frames, "scale")), (std::vector<std::string>{"main", "__libc_start_main"}));
}

// The frames after the stub are shorter than the stub's name: reading the
// stub after the erase that moves them read a moved frame (a crash).
TEST(ProgramFrames, StubFollowedByShortNames) {
  const std::vector<ResolvedFrame> frames = {Frame("__device_stub__Z14spin_then_fillPfxi"), Frame("f"),
                                             Frame("main"), Frame("g")};
  EXPECT_EQ(Functions(ProgramFrames(frames, "")), (std::vector<std::string>{"f", "main", "g"}));
}

// The host wrapper inlined into its caller appears at the kernel's definition.
TEST(ProgramFrames, InlinedHostWrapperIsSkipped) {
  const std::vector<ResolvedFrame> frames = {Frame("ns::fill<float>(float*, int)"), Frame("run()"), Frame("main")};
  EXPECT_EQ(Functions(ProgramFrames(frames, "fill")), (std::vector<std::string>{"run()", "main"}));
}

// Inline frames of the toolkit's headers (cudaMalloc<T>) are not the program's.
TEST(ProgramFrames, ToolkitHeaderFramesAreDropped) {
  const std::vector<ResolvedFrame> frames = {
      Frame("cudaMalloc<float>", "/usr/local/cuda/targets/x86_64-linux/include/cuda_runtime.h"), Frame("main")};
  EXPECT_EQ(Functions(ProgramFrames(frames, "")), (std::vector<std::string>{"main"}));
}

TEST(ProgramFrames, BareName) {
  EXPECT_EQ(BareName("ns::spin_then_fill<float>(float*, int)"), "spin_then_fill");
  EXPECT_EQ(BareName("main"), "main");
}

}  // namespace
}  // namespace streamcheck::tracer
