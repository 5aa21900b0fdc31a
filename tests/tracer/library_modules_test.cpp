// tracer/libraries/library_modules.h: libraries known by their modules'
// names, a call's calling library, and a thread's starting library, with
// the stand-in NCCL of tests/tracer/fake_nccl/ as the library.
#include "tracer/libraries/library_modules.h"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <thread>

#include "tracer/sanitizer/launch_selection.h"

namespace streamcheck::tracer {
namespace {

TEST(LibraryModules, KnownByFileName) {
  EXPECT_EQ(LibraryOfModule("/opt/venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2"), "nccl");
  EXPECT_EQ(LibraryOfModule("libnccl.so"), "nccl");
  EXPECT_EQ(LibraryOfModule("/usr/local/cuda/lib64/libcublasLt.so.13"), "cublas");
  EXPECT_EQ(LibraryOfModule("libcublas.so.13.0.0"), "cublas");
  EXPECT_EQ(LibraryOfModule("libcudnn_engines_precompiled.so.9"), "cudnn");
  EXPECT_EQ(LibraryOfModule("libcufft.so.12"), "cufft");
  EXPECT_EQ(LibraryOfModule("/venv/lib/python3.12/site-packages/jax_plugins/xla_cuda13/xla_cuda_plugin.so"), "xla");
  EXPECT_EQ(LibraryOfModule("xla_extension.so"), "xla");
  EXPECT_EQ(LibraryOfModule("/usr/lib/libtorch_cuda.so"), "");
  EXPECT_EQ(LibraryOfModule("/home/me/libncclx_not_nccl_free.so"), "");
  EXPECT_EQ(LibraryOfModule(""), "");
}

class FakeNccl : public ::testing::Test {
 protected:
  void SetUp() override {
    lib_ = dlopen(FAKE_NCCL_LIB, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib_, nullptr) << dlerror();
  }
  void TearDown() override { dlclose(lib_); }
  uint64_t Pc(const char* symbol) const { return reinterpret_cast<uint64_t>(dlsym(lib_, symbol)); }
  void* lib_ = nullptr;
};

TEST_F(FakeNccl, TheCallerIsTheFirstFrameOutsideThePlumbing) {
  const uint64_t in_nccl = Pc("ncclAllReduce");
  ASSERT_NE(in_nccl, 0u);
  const uint64_t in_libc = reinterpret_cast<uint64_t>(&std::abort);
  const uint64_t in_program = reinterpret_cast<uint64_t>(&LibraryOfModule);  // this test binary
  const uint64_t through_libc[] = {in_libc, in_nccl, in_program}, from_program[] = {in_program, in_nccl};
  EXPECT_EQ(LibraryOfCaller(through_libc, 3), "nccl");
  EXPECT_EQ(LibraryOfCaller(from_program, 2), "");
  EXPECT_EQ(LibraryOfCaller(&in_libc, 1), "");
  EXPECT_EQ(LibraryOfCaller(nullptr, 0), "");
}

// The module itself, as --precise's launch selection takes it: a kernel
// launched from a vendor library keeps fast mode's extents.
TEST_F(FakeNccl, TheCallingModuleIsTheFirstOutsideThePlumbing) {
  const uint64_t in_libc = reinterpret_cast<uint64_t>(&std::abort);
  const uint64_t in_program = reinterpret_cast<uint64_t>(&LibraryOfModule);
  const uint64_t through_libc[] = {in_libc, Pc("ncclAllReduce"), in_program}, from_program[] = {in_libc, in_program};
  EXPECT_TRUE(CallingModule(through_libc, 3).starts_with("libnccl.so")) << CallingModule(through_libc, 3);
  EXPECT_EQ(precise::VendorLibraryOf(CallingModule(through_libc, 3)), "NCCL");
  EXPECT_EQ(CallingModule(from_program, 2), "<program>");
  EXPECT_EQ(precise::VendorLibraryOf(CallingModule(from_program, 2)), "");
  EXPECT_EQ(CallingModule(&in_libc, 1), "");
  // Its path, for `run --forbid-default-stream=GLOB`: as loaded, and the executable's own.
  EXPECT_EQ(CallingObject(through_libc, 3), std::string(FAKE_NCCL_LIB));
  EXPECT_TRUE(CallingObject(from_program, 2).ends_with("/tracer_tests")) << CallingObject(from_program, 2);
  EXPECT_EQ(CallingObject(&in_libc, 1), "");
}

// Under --precise the Compute Sanitizer API's library dispatches the
// callback: its frames are plumbing like CUPTI's.
TEST_F(FakeNccl, TheSanitizerApisFramesArePlumbing) {
  void* sanitizer = dlopen(FAKE_SANITIZER_LIB, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(sanitizer, nullptr) << dlerror();
  const uint64_t in_sanitizer = reinterpret_cast<uint64_t>(dlsym(sanitizer, "fake_sanitizer_dispatch"));
  ASSERT_NE(in_sanitizer, 0u);
  const uint64_t in_program = reinterpret_cast<uint64_t>(&LibraryOfModule);
  const uint64_t from_nccl[] = {in_sanitizer, Pc("ncclAllReduce"), in_program};
  EXPECT_EQ(LibraryOfCaller(from_nccl, 3), "nccl");
  const uint64_t from_program[] = {in_sanitizer, in_program};
  EXPECT_EQ(LibraryOfCaller(from_program, 2), "");
  dlclose(sanitizer);
}

std::string g_seen;
void NoteStartingLibrary(void*) { g_seen = std::string(LibraryThatStartedThisThread()); }

TEST_F(FakeNccl, AThreadTheLibraryStartedIsItsOwn) {
  using RunOnOwnThread = void (*)(void (*)(void*), void*);
  auto run = reinterpret_cast<RunOnOwnThread>(dlsym(lib_, "fake_nccl_run_on_own_thread"));
  ASSERT_NE(run, nullptr);
  g_seen = "not run";
  run(NoteStartingLibrary, nullptr);
  EXPECT_EQ(g_seen, "nccl");
  g_seen = "not run";
  std::thread([] { NoteStartingLibrary(nullptr); }).join();  // the program's own thread
  EXPECT_EQ(g_seen, "");
  EXPECT_EQ(LibraryThatStartedThisThread(), "");  // the main thread
}

}  // namespace
}  // namespace streamcheck::tracer
