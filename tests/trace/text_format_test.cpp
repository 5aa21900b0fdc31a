// The text form: syntax, string literals, errors, and exact round trips.
#include <gtest/gtest.h>

#include "tests/trace/random_records.h"
#include "tests/trace/trace_test_util.h"

namespace streamcheck {
namespace {

using testing::ReadAll;

std::vector<TraceRecord> Parse(std::string_view text) {
  std::vector<TraceRecord> records;
  std::string error;
  EXPECT_TRUE(ParseTextTrace(text, &records, &error)) << error;
  return records;
}

std::string ParseError(std::string_view text) {
  std::vector<TraceRecord> records;
  std::string error;
  EXPECT_FALSE(ParseTextTrace(text, &records, &error)) << text;
  return error;
}

TEST(TextTrace, KernelLaunchWithLiteralsAndAccesses) {
  auto records = Parse(
      "# a comment\n"
      "\n"
      "kernel_launch thread=1 stream=0x10 name=\"sum_kernel\" access=0x1000+4096:read "
      "access=0x2000+16:write   # trailing comment\n");
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].op, OpCode::kDefineString);  // the literal defines the string
  EXPECT_EQ(records[0].id, 1u);
  EXPECT_EQ(records[0].text, "sum_kernel");
  const TraceRecord& k = records[1];
  EXPECT_EQ(k.op, OpCode::kKernelLaunch);
  EXPECT_EQ(k.thread, 1u);
  EXPECT_EQ(k.stream, 0x10u);
  EXPECT_EQ(k.name, 1u);
  ASSERT_EQ(k.accesses.size(), 2u);
  EXPECT_EQ(k.accesses[0], (MemoryAccess{0x1000, 4096, AccessMode::kRead}));
  EXPECT_EQ(k.accesses[1], (MemoryAccess{0x2000, 16, AccessMode::kWrite}));
  EXPECT_EQ(k.device, -1);  // omitted fields keep their defaults
}

TEST(TextTrace, AGuessedExtentSaysHowMuchOfItIsCertain) {
  auto records = Parse("kernel_launch access=0x1000+4096:read:guessed access=0x2000+16:unknown:guessed_whole "
                       "access=0x3000+8:write");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].accesses[0].certainty, AccessCertainty::kFirstByte);
  EXPECT_EQ(records[0].accesses[1].certainty, AccessCertainty::kNone);
  EXPECT_EQ(records[0].accesses[2].certainty, AccessCertainty::kExact);
  const std::string text = FormatTextTrace(records);
  EXPECT_NE(text.find("access=0x1000+4096:read:guessed "), std::string::npos) << text;
  EXPECT_NE(text.find("access=0x3000+8:write\n"), std::string::npos) << text;
  EXPECT_NE(ParseError("kernel_launch access=0x1000+8:read:roughly").find("unknown access certainty 'roughly'"),
            std::string::npos);
}

TEST(TextTrace, FieldsInAnyOrderAndDecimalOrHex) {
  auto a = Parse("memcpy size=4096 dst=0x100 src=256 stream=16 async=true copy_kind=host_to_device");
  auto b = Parse("memcpy copy_kind=host_to_device async=1 stream=0x10 src=0x100 dst=256 size=0x1000");
  EXPECT_EQ(a, b);
  EXPECT_TRUE(a[0].is_async);
  EXPECT_EQ(a[0].copy_kind, CopyKind::kHostToDevice);
}

TEST(TextTrace, AHostFunctionAndItsObservedRun) {
  const std::string text =
      "host_func thread=1 stream=0x10 id=3\n"
      "host_func_begin thread=7 id=3\n"
      "host_func_end thread=7 id=3\n";
  auto records = Parse(text);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].id, 3u);
  EXPECT_EQ(records[1].op, OpCode::kHostFuncBegin);
  EXPECT_EQ(records[1].thread, 7u);
  EXPECT_EQ(records[2].op, OpCode::kHostFuncEnd);
  EXPECT_EQ(FormatTextTrace(records), text);
}

TEST(TextTrace, LiteralsReuseDefinedStrings) {
  auto records = Parse(
      "define_string id=3 text=\"aten::sum\"\n"
      "kernel_launch framework_op=\"aten::sum\" name=\"k\" api=\"k\"\n"
      "define_stack id=1 frame=\"main\":\"a.cu\":12:0x4005d0 frame=\"k\"\n");
  ASSERT_EQ(records.size(), 6u);
  EXPECT_EQ(records[1].op, OpCode::kDefineString);  // "k" gets the next free id, once
  EXPECT_EQ(records[1].id, 4u);
  const TraceRecord& launch = records[2];
  EXPECT_EQ(launch.op, OpCode::kKernelLaunch);
  EXPECT_EQ(launch.framework_op, 3u);
  EXPECT_EQ(launch.name, 4u);
  EXPECT_EQ(launch.api, 4u);
  EXPECT_EQ(records[3].text, "main");
  EXPECT_EQ(records[4].text, "a.cu");
  ASSERT_EQ(records[5].frames.size(), 2u);
  EXPECT_EQ(records[5].frames[0], (StackFrame{5, 6, 12, 0x4005d0}));
  EXPECT_EQ(records[5].frames[1], (StackFrame{4, 0, 0, 0}));
}

TEST(TextTrace, EscapesInStrings) {
  auto records = Parse(R"(process_info text="a\"b\\c\n\t\r\x01\x7f#not a comment")");
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].text, "a\"b\\c\n\t\r\x01\x7f#not a comment");
  EXPECT_EQ(FormatTextTrace(records),
            "process_info text=\"a\\\"b\\\\c\\n\\t\\r\\x01\\x7f#not a comment\"\n");
}

TEST(TextTrace, SignedFieldsAndExtremes) {
  auto r = Parse("event_query event=0xffffffffffffffff result=-2147483648 device=2147483647 "
                 "priority=-1 flags=0xffffffff")[0];
  EXPECT_EQ(r.event, ~uint64_t{0});
  EXPECT_EQ(r.result, INT32_MIN);
  EXPECT_EQ(r.device, INT32_MAX);
  EXPECT_EQ(r.priority, -1);
  EXPECT_EQ(r.flags, 0xffffffffu);
}

TEST(TextTrace, ErrorsNameLineAndColumn) {
  EXPECT_EQ(ParseError("# ok\nkernel_launch sream=0x10\n"),
            "<text>:2:15 (byte 19): unknown field 'sream'");
  EXPECT_EQ(ParseError("kernal_launch"), "<text>:1:1 (byte 0): unknown operation 'kernal_launch'");
  EXPECT_EQ(ParseError("memcpy size=12x"), "<text>:1:15 (byte 14): expected a space before the next field");
  EXPECT_EQ(ParseError("memcpy size=-1"), "<text>:1:13 (byte 12): expected a number");
  EXPECT_EQ(ParseError("memcpy thread=4294967296"), "<text>:1:15 (byte 14): number out of range");
  EXPECT_EQ(ParseError("memcpy size=99999999999999999999"),
            "<text>:1:13 (byte 12): number out of range");
  EXPECT_EQ(ParseError("memcpy device=2147483648"), "<text>:1:15 (byte 14): number out of range");
  EXPECT_EQ(ParseError("memcpy size=1 size=2"), "<text>:1:15 (byte 14): field 'size' given twice");
  EXPECT_EQ(ParseError("memcpy copy_kind=sideways"),
            "<text>:1:18 (byte 17): unknown copy kind 'sideways'");
  EXPECT_EQ(ParseError("kernel_launch access=0x10+4:rw"),
            "<text>:1:29 (byte 28): unknown access mode 'rw'");
  EXPECT_EQ(ParseError("kernel_launch access=0x10"), "<text>:1:26 (byte 25): expected '+'");
  EXPECT_EQ(ParseError("process_info text=\"abc"), "<text>:1:23 (byte 22): unterminated string");
  EXPECT_EQ(ParseError("process_info text=\"\\q\""), "<text>:1:20 (byte 19): unknown escape \\q");
  EXPECT_EQ(ParseError("process_info text=\"\\x4\""),
            "<text>:1:20 (byte 19): \\x needs two hex digits");
  EXPECT_EQ(ParseError("memcpy async=maybe"), "<text>:1:14 (byte 13): expected true or false");
  EXPECT_EQ(ParseError("memcpy stream"), "<text>:1:14 (byte 13): expected '='");
  EXPECT_EQ(ParseError("graph_add_node node_op=nope"),
            "<text>:1:24 (byte 23): unknown operation 'nope'");
  EXPECT_EQ(ParseError("= x"), "<text>:1:1 (byte 0): expected an operation name");
}

TEST(TextTrace, ErrorsStopTheReaderAfterTheGoodLines) {
  auto result = ReadAll("device_synchronize\r\nset_device device=1\nbogus\nfree\n");
  EXPECT_EQ(result.records.size(), 2u);
  EXPECT_EQ(result.error, "t:3:1 (byte 40): unknown operation 'bogus'");
  EXPECT_EQ(result.error_offset, 40u);
}

TEST(TextTrace, LastLineWithoutNewline) {
  auto result = ReadAll("device_synchronize\nfree dst=0x10");
  ASSERT_EQ(result.end, TraceSource::Status::kEnd) << result.error;
  ASSERT_EQ(result.records.size(), 2u);
  EXPECT_EQ(result.records[1].dst, 0x10u);
}

TEST(TextTrace, WriterUsesLiteralsOnlyWhenTheyReadBackAsTheSameId) {
  std::vector<TraceRecord> records(5);
  records[0] = StringDefinition(3, "k");
  records[1] = StringDefinition(4, "k");  // same text again: "k" still means 3
  records[2].op = OpCode::kKernelLaunch;
  records[2].name = 3;
  records[3].op = OpCode::kKernelLaunch;
  records[3].name = 4;
  records[4].op = OpCode::kKernelLaunch;
  records[4].name = 9;  // never defined
  EXPECT_EQ(FormatTextTrace(records),
            "define_string id=3 text=\"k\"\n"
            "define_string id=4 text=\"k\"\n"
            "kernel_launch name=\"k\"\n"
            "kernel_launch name=4\n"
            "kernel_launch name=9\n");
  EXPECT_EQ(Parse(FormatTextTrace(records)), records);
}

// A trace of random records of every op code, with string definitions mixed
// in so that literals are exercised.
std::vector<TraceRecord> RandomTrace(uint64_t seed, int count) {
  testing::RandomRecords random(seed);
  std::mt19937 rng(seed);
  std::vector<TraceRecord> records;
  for (int i = 0; i < count; ++i) {
    if (rng() % 4 == 0) {
      const uint32_t id = rng() % 8;
      records.push_back(StringDefinition(id, std::string(1, static_cast<char>('a' + rng() % 5))));
    }
    TraceRecord r = random.Make();
    if (rng() % 2) r.name = rng() % 8;  // often a defined string
    if (rng() % 2) r.api = rng() % 8;
    records.push_back(r);
  }
  return records;
}

TEST(TextTrace, PropertyRecordsToTextAndBack) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto records = RandomTrace(seed, 300);
    std::string text = FormatTextTrace(records);
    std::vector<TraceRecord> back;
    std::string error;
    ASSERT_TRUE(ParseTextTrace(text, &back, &error)) << error;
    ASSERT_EQ(back.size(), records.size()) << "seed " << seed;
    for (size_t i = 0; i < records.size(); ++i) {
      ASSERT_EQ(back[i], records[i]) << "seed " << seed << " record " << i << "\n"
                                     << FormatTextTrace({records[i]});
    }
  }
}

TEST(TextTrace, PropertyTextToBinaryToTextIsExact) {
  for (uint64_t seed = 100; seed < 110; ++seed) {
    std::string text = FormatTextTrace(RandomTrace(seed, 300));
    auto from_text = ReadAll(text);
    ASSERT_EQ(from_text.end, TraceSource::Status::kEnd) << from_text.error;
    auto from_binary = ReadAll(testing::WriteBinary(from_text.records));
    ASSERT_EQ(from_binary.end, TraceSource::Status::kEnd) << from_binary.error;
    std::string again;
    auto writer = CreateTextTraceWriter(&again);
    for (const auto& r : from_binary.records) ASSERT_TRUE(writer->Append(r)) << writer->error();
    ASSERT_TRUE(writer->Close());
    EXPECT_EQ(again, text);
  }
}

TEST(TextTrace, HandWrittenExampleSurvivesBinary) {
  const std::string text =
      "stream_create thread=1 stream=0x5633f8a0 flags=0x1 api=\"cudaStreamCreateWithFlags\"\n"
      "kernel_launch thread=1 stream=0x0 name=\"normal_kernel\" access=0x7f00+40000:write\n";
  auto records = Parse(text);
  EXPECT_EQ(ReadAll(testing::WriteBinary(records)).records, records);
  EXPECT_EQ(Parse(FormatTextTrace(records)), records);
}

}  // namespace
}  // namespace streamcheck

namespace streamcheck {
namespace {

TEST(TextTrace, FramesLeaveOutTrailingZeroParts) {
  TraceRecord r;
  r.op = OpCode::kDefineStack;
  r.id = 1;
  r.frames = {{1, 0, 0, 0}, {1, 2, 0, 0}, {1, 2, 3, 0}, {1, 2, 3, 4}, {0, 0, 0, 4}};
  std::string text = FormatTextTrace({r});
  EXPECT_EQ(text, "define_stack id=1 frame=1 frame=1:2 frame=1:2:3 frame=1:2:3:0x4 frame=0:0:0:0x4\n");
  std::vector<TraceRecord> back;
  std::string error;
  ASSERT_TRUE(ParseTextTrace(text, &back, &error)) << error;
  EXPECT_EQ(back, std::vector<TraceRecord>{r});
}

}  // namespace
}  // namespace streamcheck
