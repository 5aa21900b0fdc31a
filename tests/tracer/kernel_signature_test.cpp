#include "tracer/kernel_access/kernel_signature.h"

#include <gtest/gtest.h>

namespace streamcheck::tracer {
namespace {

using Types = std::vector<std::string>;

TEST(ParameterTypes, SplitsAtTopLevelCommasOnly) {
  EXPECT_EQ(ParameterTypes("scale(float const*, float*, int)"), (Types{"float const*", "float*", "int"}));
  EXPECT_EQ(ParameterTypes("void ns::k<int, 4>(Pair<int, float>, float const*)"),
            (Types{"Pair<int, float>", "float const*"}));
  EXPECT_EQ(ParameterTypes("apply(void (*)(int, int), float*)"), (Types{"void (*)(int, int)", "float*"}));
}

TEST(ParameterTypes, EmptyWithoutAParameterList) {
  EXPECT_TRUE(ParameterTypes("extern_c_kernel").empty());
  EXPECT_TRUE(ParameterTypes("k()").empty());
  EXPECT_TRUE(ParameterTypes("k(void)").empty());
  EXPECT_TRUE(ParameterTypes("").empty());
}

TEST(ParameterTypes, TakesTheLastGroupForTemplateArgumentsWithParentheses) {
  EXPECT_EQ(ParameterTypes("k<(int)3>(float*, int)"), (Types{"float*", "int"}));
}

TEST(ModeOfParameter, PointerToConstIsRead) {
  // Only the memory the argument points to counts: an array of const pointers is read-only.
  EXPECT_EQ(ModeOfParameter("float const* const*"), AccessMode::kRead);
  EXPECT_EQ(ModeOfParameter("float const*"), AccessMode::kRead);
  EXPECT_EQ(ModeOfParameter("const float*"), AccessMode::kRead);
  EXPECT_EQ(ModeOfParameter("Vec<float> const *"), AccessMode::kRead);
}

TEST(ModeOfParameter, EverythingElseIsUnknown) {
  EXPECT_EQ(ModeOfParameter("float*"), AccessMode::kUnknown);
  EXPECT_EQ(ModeOfParameter("float* const"), AccessMode::kUnknown);        // const pointer, writable data
  EXPECT_EQ(ModeOfParameter("const float**"), AccessMode::kUnknown);
  EXPECT_EQ(ModeOfParameter("int"), AccessMode::kUnknown);
  EXPECT_EQ(ModeOfParameter("Params"), AccessMode::kUnknown);
}

TEST(ModeOfParameter, QualifiersInAnyOrder) {
  EXPECT_EQ(ModeOfParameter("float const volatile*"), AccessMode::kRead);
  EXPECT_EQ(ModeOfParameter("float volatile const*"), AccessMode::kRead);
  EXPECT_EQ(ModeOfParameter("const volatile float*"), AccessMode::kRead);
  EXPECT_EQ(ModeOfParameter("float volatile*"), AccessMode::kUnknown);
}

// XLA's DelayKernel(volatile GpuSemaphoreState*, GpuSemaphoreState) as the
// demangler writes it, and the other spellings of a pointer to volatile.
TEST(PointsToVolatile, OnlyTheOutermostPointeesQualifiers) {
  EXPECT_TRUE(PointsToVolatile("stream_executor::gpu::GpuSemaphoreState volatile*"));
  EXPECT_TRUE(PointsToVolatile("volatile int*"));
  EXPECT_TRUE(PointsToVolatile("int const volatile*"));
  EXPECT_TRUE(PointsToVolatile("const volatile int *"));
  EXPECT_TRUE(PointsToVolatile("int volatile* volatile*"));  // an array of volatile pointers is itself volatile
  EXPECT_FALSE(PointsToVolatile("int volatile**"));          // writable pointers to volatile ints
  EXPECT_FALSE(PointsToVolatile("int* volatile"));           // a volatile pointer (by value) to plain ints
  EXPECT_FALSE(PointsToVolatile("int*"));
  EXPECT_FALSE(PointsToVolatile("float const*"));
  EXPECT_FALSE(PointsToVolatile("volatile_flags*"));         // a type named so
  EXPECT_FALSE(PointsToVolatile("int"));
  EXPECT_TRUE(PointsToVolatile(ParameterTypes(Demangle("_Z5delayPVii")).at(0)));  // delay(int volatile*, int)
}

TEST(Demangle, ItaniumNamesAndPassThrough) {
  EXPECT_EQ(Demangle("_Z5scalePKfPfi"), "scale(float const*, float*, int)");
  EXPECT_EQ(Demangle("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(Demangle(nullptr), "");
}

}  // namespace
}  // namespace streamcheck::tracer
