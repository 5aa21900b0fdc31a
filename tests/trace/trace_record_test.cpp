#include "runtime/trace_record.h"

#include <gtest/gtest.h>

#include <set>

#include "runtime/trace/trace_io.h"
#include "tests/trace/random_records.h"

namespace streamcheck {
namespace {

TEST(MergeAccessModes, ReadAndWriteMakeReadWriteUnknownWins) {
  EXPECT_EQ(MergeAccessModes(AccessMode::kRead, AccessMode::kWrite), AccessMode::kReadWrite);
  EXPECT_EQ(MergeAccessModes(AccessMode::kWrite, AccessMode::kRead), AccessMode::kReadWrite);
  EXPECT_EQ(MergeAccessModes(AccessMode::kRead, AccessMode::kRead), AccessMode::kRead);
  EXPECT_EQ(MergeAccessModes(AccessMode::kReadWrite, AccessMode::kWrite), AccessMode::kReadWrite);
  EXPECT_EQ(MergeAccessModes(AccessMode::kRead, AccessMode::kUnknown), AccessMode::kUnknown);
  EXPECT_EQ(MergeAccessModes(AccessMode::kUnknown, AccessMode::kWrite), AccessMode::kUnknown);
}

TEST(TraceRecordNames, EveryOpCodeHasAUniqueSnakeCaseName) {
  std::set<std::string_view> seen;
  for (OpCode op : testing::AllOpCodes()) {
    std::string_view name = OpCodeName(op);
    ASSERT_FALSE(name.empty());
    for (char c : name) EXPECT_TRUE((c >= 'a' && c <= 'z') || c == '_') << name;
    EXPECT_TRUE(seen.insert(name).second) << name;
    EXPECT_EQ(OpCodeFromName(name), op);
  }
  EXPECT_EQ(testing::AllOpCodes().size(), 49u);
  EXPECT_EQ(OpCodeName(OpCode::kScopeBegin), "scope_begin");
  EXPECT_EQ(OpCodeName(OpCode::kScopeEnd), "scope_end");
  EXPECT_EQ(OpCodeName(OpCode::kHostFuncBegin), "host_func_begin");
  EXPECT_EQ(OpCodeName(OpCode::kKernelLaunch), "kernel_launch");
  EXPECT_EQ(OpCodeName(OpCode::kStreamWaitEvent), "stream_wait_event");
  EXPECT_EQ(OpCodeFromName("no_such_op"), OpCode::kInvalid);
  EXPECT_EQ(OpCodeFromName(""), OpCode::kInvalid);
  EXPECT_EQ(OpCodeName(static_cast<OpCode>(200)), "");
}

TEST(TraceRecordNames, EnumNamesRoundTrip) {
  for (int i = 1; i <= 4; ++i) {
    AccessMode m = static_cast<AccessMode>(i), back{};
    ASSERT_TRUE(AccessModeFromName(AccessModeName(m), &back));
    EXPECT_EQ(back, m);
  }
  EXPECT_EQ(AccessModeName(AccessMode::kReadWrite), "readwrite");
  for (int i = 0; i <= 5; ++i) {
    MemoryKind k = static_cast<MemoryKind>(i), back{};
    ASSERT_TRUE(MemoryKindFromName(MemoryKindName(k), &back));
    EXPECT_EQ(back, k);
  }
  for (int i = 0; i <= 4; ++i) {
    CopyKind k = static_cast<CopyKind>(i), back{};
    ASSERT_TRUE(CopyKindFromName(CopyKindName(k), &back));
    EXPECT_EQ(back, k);
  }
  AccessMode mode;
  EXPECT_FALSE(AccessModeFromName("rw", &mode));
  EXPECT_EQ(AccessModeName(static_cast<AccessMode>(9)), "");
}

TEST(TraceRecord, ClearResetsEveryFieldAndKeepsCapacity) {
  testing::RandomRecords random(7);
  TraceRecord r = random.Make(OpCode::kGraphAddNode);
  r.accesses.resize(10);
  r.deps.resize(10);
  r.frames.resize(10);
  r.text.assign(100, 'x');
  const auto* accesses = r.accesses.data();
  const auto* text = r.text.data();
  r.Clear();
  EXPECT_EQ(r, TraceRecord());
  EXPECT_GE(r.accesses.capacity(), 10u);
  EXPECT_GE(r.deps.capacity(), 10u);
  EXPECT_GE(r.frames.capacity(), 10u);
  EXPECT_GE(r.text.capacity(), 100u);
  EXPECT_EQ(r.accesses.data(), accesses);
  EXPECT_EQ(r.text.data(), text);
}

}  // namespace
}  // namespace streamcheck

namespace streamcheck {
namespace {

// An access whose last byte would lie past 2^64 - 1 is damage: the readers
// refuse it with its place, the writers never write it.
TEST(AccessWrap, BothFormsRefuseAnAccessPastTheEndOfTheAddressSpace) {
  std::vector<TraceRecord> records;
  std::string error;
  EXPECT_FALSE(ParseTextTrace("kernel_launch stream=0x55 access=0xffffffffffffff00+257:write\n", &records, &error));
  EXPECT_NE(error.find("wraps past 2^64"), std::string::npos) << error;
  ASSERT_TRUE(ParseTextTrace("kernel_launch stream=0x55 access=0xffffffffffffff00+256:write\n", &records, &error))
      << "the last byte of the address space is still memory: " << error;

  TraceRecord wrapping = records.back();
  wrapping.accesses[0].size = 257;
  std::string bytes;
  auto writer = CreateBinaryTraceWriter(&bytes);
  EXPECT_FALSE(writer->Append(wrapping));
  EXPECT_NE(writer->error().find("wraps past 2^64"), std::string::npos) << writer->error();
}

}  // namespace
}  // namespace streamcheck
