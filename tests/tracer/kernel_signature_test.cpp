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

TEST(Demangle, ItaniumNamesAndPassThrough) {
  EXPECT_EQ(Demangle("_Z5scalePKfPfi"), "scale(float const*, float*, int)");
  EXPECT_EQ(Demangle("plain_c_kernel"), "plain_c_kernel");
  EXPECT_EQ(Demangle(nullptr), "");
}

}  // namespace
}  // namespace streamcheck::tracer
