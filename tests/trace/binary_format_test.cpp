// The binary form: round trips, block framing, flushing.
#include <gtest/gtest.h>

#include <cstdio>

#include "tests/trace/random_records.h"
#include "tests/trace/trace_test_util.h"

namespace streamcheck {
namespace {

using testing::ReadAll;
using testing::WriteBinary;

TraceRecord SmallKernelLaunch(uint64_t i) {
  TraceRecord r;
  r.op = OpCode::kKernelLaunch;
  r.thread = 1;
  r.stream = 0x5633f8a0;
  r.name = 7;
  r.api = 3;
  r.stack = 12;
  r.timestamp_ns = 1'000'000'000 + i * 3000;
  r.accesses = {{0x7f5e40000000 + i * 256, 256, AccessMode::kRead},
                {0x7f5e40200000, 4, AccessMode::kWrite}};
  return r;
}

TEST(BinaryTrace, EmptyTraceIsJustTheHeader) {
  std::string bytes = WriteBinary({});
  EXPECT_EQ(bytes.size(), 16u);
  EXPECT_EQ(bytes.substr(0, 8), kBinaryTraceMagic);
  auto result = ReadAll(bytes);
  EXPECT_EQ(result.end, TraceSource::Status::kEnd);
  EXPECT_TRUE(result.records.empty());
}

TEST(BinaryTrace, EveryOpCodeRoundTrips) {
  testing::RandomRecords random(1);
  std::vector<TraceRecord> records;
  for (OpCode op : testing::AllOpCodes()) {
    TraceRecord bare;
    bare.op = op;
    records.push_back(bare);
    records.push_back(random.Make(op));
  }
  auto result = ReadAll(WriteBinary(records));
  ASSERT_EQ(result.end, TraceSource::Status::kEnd) << result.error;
  EXPECT_EQ(result.records, records);
}

TEST(BinaryTrace, RandomRecordsRoundTripAcrossManyBlocks) {
  testing::RandomRecords random(2);
  std::vector<TraceRecord> records;
  for (int i = 0; i < 5000; ++i) records.push_back(random.Make());
  for (size_t block_bytes : {size_t{1}, size_t{300}, size_t{64 * 1024}}) {
    auto result = ReadAll(WriteBinary(records, {block_bytes}));
    ASSERT_EQ(result.end, TraceSource::Status::kEnd) << result.error;
    ASSERT_EQ(result.records.size(), records.size());
    for (size_t i = 0; i < records.size(); ++i) ASSERT_EQ(result.records[i], records[i]) << i;
  }
}

TEST(BinaryTrace, SmallKernelLaunchIsCompact) {
  std::vector<TraceRecord> records;
  for (int i = 0; i < 1000; ++i) records.push_back(SmallKernelLaunch(i));
  std::string bytes = WriteBinary(records);
  // The two 47-bit access addresses take 14 bytes; everything else about 20.
  EXPECT_LT((bytes.size() - 16) / 1000.0, 36.0);
  EXPECT_EQ(ReadAll(bytes).records, records);
}

TEST(BinaryTrace, WriterEmitsWholeBlocksAtTheBlockSize) {
  std::string bytes;
  auto writer = CreateBinaryTraceWriter(&bytes, {1024});
  size_t appended = 0;
  while (bytes.size() == 16) {
    ASSERT_TRUE(writer->Append(SmallKernelLaunch(appended++)));
  }
  // What reached the output is a complete, readable trace of a prefix.
  auto result = ReadAll(bytes);
  ASSERT_EQ(result.end, TraceSource::Status::kEnd) << result.error;
  EXPECT_EQ(result.records.size(), appended);
  EXPECT_GE(bytes.size(), 16u + 16u + 1024u);
}

TEST(BinaryTrace, UnflushedRecordsAreAllACrashLoses) {
  std::string bytes;
  auto writer = CreateBinaryTraceWriter(&bytes);
  for (int i = 0; i < 10; ++i) writer->Append(SmallKernelLaunch(i));
  ASSERT_TRUE(writer->Flush());
  for (int i = 10; i < 15; ++i) writer->Append(SmallKernelLaunch(i));
  std::string at_crash = bytes;  // the process dies here
  auto result = ReadAll(at_crash);
  EXPECT_EQ(result.end, TraceSource::Status::kEnd);
  EXPECT_EQ(result.records.size(), 10u);
  writer->Close();
  EXPECT_EQ(ReadAll(bytes).records.size(), 15u);
}

TEST(BinaryTrace, FlushIfOlderThanFlushesOnlyOldRecords) {
  std::string bytes;
  auto writer = CreateBinaryTraceWriter(&bytes);
  EXPECT_TRUE(writer->FlushIfOlderThan(0));  // nothing buffered: nothing written
  EXPECT_EQ(bytes.size(), 16u);
  writer->Append(SmallKernelLaunch(0));
  EXPECT_TRUE(writer->FlushIfOlderThan(3'600'000));
  EXPECT_EQ(bytes.size(), 16u);
  EXPECT_TRUE(writer->FlushIfOlderThan(0));
  EXPECT_EQ(ReadAll(bytes).records.size(), 1u);
}

TEST(BinaryTrace, WriterRejectsRecordsTheReaderWouldReject) {
  std::string bytes;
  auto writer = CreateBinaryTraceWriter(&bytes);
  TraceRecord bad;  // op kInvalid
  EXPECT_FALSE(writer->Append(bad));
  EXPECT_NE(writer->error().find("opcode"), std::string::npos);
  TraceRecord bad_mode = SmallKernelLaunch(0);
  bad_mode.accesses[0].mode = static_cast<AccessMode>(0);
  EXPECT_FALSE(writer->Append(bad_mode));
  // The writer stays usable for good records.
  EXPECT_TRUE(writer->Append(SmallKernelLaunch(1)));
  writer->Close();
  auto result = ReadAll(bytes);
  ASSERT_EQ(result.records.size(), 1u);
  EXPECT_EQ(result.records[0], SmallKernelLaunch(1));
}

TEST(BinaryTrace, ReaderReusesTheRecordsBuffers) {
  std::vector<TraceRecord> records;
  for (int i = 0; i < 100; ++i) records.push_back(SmallKernelLaunch(i));
  auto source = OpenTraceFromString(WriteBinary(records));
  TraceRecord r;
  ASSERT_EQ(source->Next(&r), TraceSource::Status::kRecord);
  const MemoryAccess* buffer = r.accesses.data();
  while (source->Next(&r) == TraceSource::Status::kRecord) ASSERT_EQ(r.accesses.data(), buffer);
  EXPECT_EQ(source->records_read(), 100u);
  EXPECT_EQ(source->format(), TraceFormat::kBinary);
}

TEST(BinaryTrace, FileAndStdioWritersProduceTheSameBytes) {
  std::vector<TraceRecord> records;
  for (int i = 0; i < 50; ++i) records.push_back(SmallKernelLaunch(i));
  std::string expected = WriteBinary(records);

  std::string path = ::testing::TempDir() + "/writer_test.sctrace";
  std::string error;
  auto by_path = CreateBinaryTraceWriter(path, &error);
  ASSERT_TRUE(by_path) << error;
  for (const auto& r : records) by_path->Append(r);
  ASSERT_TRUE(by_path->Close()) << by_path->error();

  std::FILE* file = std::tmpfile();
  auto by_file = CreateBinaryTraceWriter(file);
  for (const auto& r : records) by_file->Append(r);
  ASSERT_TRUE(by_file->Close());
  std::string from_file(expected.size() + 10, '\0');
  std::rewind(file);
  from_file.resize(std::fread(from_file.data(), 1, from_file.size(), file));
  std::fclose(file);
  EXPECT_EQ(from_file, expected);

  auto source = OpenTrace(path, &error);
  ASSERT_TRUE(source) << error;
  EXPECT_EQ(testing::ReadAll(source.get()).records, records);
}

TEST(BinaryTrace, WriterToAnUnwritablePathFailsCleanly) {
  std::string error;
  EXPECT_EQ(CreateBinaryTraceWriter("/nonexistent-dir/x.sctrace", &error), nullptr);
  EXPECT_NE(error.find("/nonexistent-dir/x.sctrace"), std::string::npos);
}

}  // namespace
}  // namespace streamcheck
