// A GoogleTest suite with streamcheck's listener (include/streamcheck/gtest_listener.h),
// for gtest_listener_test.cpp: 2 racy and 3 clean tests, one race across two
// tests, whose CUDA work fake_traced_process.cpp makes up. `--fake-cuda`
// starts the tracer inside (as CUDA's injection would under `streamcheck
// run`); without it the tests make no CUDA work and the listener's calls are
// no-ops.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

#include "include/streamcheck/gtest_listener.h"

extern "C" {
void fake_cuda_init();
void fake_stream_create(uint64_t stream);
void fake_malloc(uint64_t address, uint64_t size);
void fake_launch(uint64_t stream, const char* kernel, uint64_t address, uint64_t size, int write);
void fake_wait_stream(uint64_t waiter, uint64_t stream);
void fake_synchronize();
}

namespace {

bool g_fake_cuda = false;
constexpr uint64_t kLegacy = 0, kSide = 0x10, kBytes = 4096;
uint64_t g_next = 0x7f0000000000;

uint64_t Buffer() {
  const uint64_t address = g_next;
  g_next += 0x100000;
  fake_malloc(address, kBytes);
  return address;
}

void Launch(uint64_t stream, const char* kernel, uint64_t address, bool write) {
  if (g_fake_cuda) fake_launch(stream, kernel, address, kBytes, write ? 1 : 0);
}

uint64_t g_in_flight = 0;

TEST(Loader, SideStreamReadsTooEarly) {  // racy
  if (!g_fake_cuda) return;
  const uint64_t a = Buffer();
  Launch(kLegacy, "normal_kernel", a, true);
  Launch(kSide, "sum_kernel", a, false);
  fake_synchronize();
}

TEST(Loader, SideStreamWaits) {  // clean
  if (!g_fake_cuda) return;
  const uint64_t b = Buffer();
  Launch(kLegacy, "normal_kernel", b, true);
  fake_wait_stream(kSide, kLegacy);
  Launch(kSide, "sum_kernel", b, false);
  fake_synchronize();
}

TEST(Loader, LeavesWorkInFlight) {  // clean itself
  if (!g_fake_cuda) return;
  g_in_flight = Buffer();
  Launch(kSide, "fill_kernel", g_in_flight, true);
}

TEST(Loader, ReusesTheBuffer) {  // racy: meets the previous test's work
  if (!g_fake_cuda) return;
  Launch(kLegacy, "scale_kernel", g_in_flight, false);
  fake_synchronize();
}

TEST(Loader, NoCuda) { EXPECT_EQ(1 + 1, 2); }  // clean

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) g_fake_cuda = g_fake_cuda || std::strcmp(argv[i], "--fake-cuda") == 0;
  if (g_fake_cuda) {
    fake_cuda_init();
    fake_stream_create(kSide);
  }
  streamcheck::InstallScopeListener(&argc, argv);
  return RUN_ALL_TESTS();
}
