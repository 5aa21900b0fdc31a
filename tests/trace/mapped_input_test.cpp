// The mapped file input: a window smaller than a block, blocks straddling
// windows, damage at the end, and files that are not mapped at all.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "runtime/trace/byte_io.h"
#include "runtime/trace/trace_readers.h"
#include "tests/trace/random_records.h"
#include "tests/trace/trace_test_util.h"

namespace streamcheck {
namespace {

using testing::ReadAll;

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// A binary trace of `count` random records in blocks of about 10 KB, written to `name`.
struct RandomTrace {
  std::vector<TraceRecord> records;
  std::string bytes, path;
};
RandomTrace WriteRandomTrace(uint64_t seed, int count, const std::string& name) {
  testing::RandomRecords random(seed);
  RandomTrace t;
  for (int i = 0; i < count; ++i) t.records.push_back(random.Make());
  t.bytes = testing::WriteBinary(t.records, {10000});
  t.path = WriteTemp(name, t.bytes);
  return t;
}

testing::ReadResult ReadMapped(const std::string& path, size_t window_bytes) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  EXPECT_NE(file, nullptr);
  auto input = trace_internal::MakeMappedFileInput(file, window_bytes);
  EXPECT_TRUE(input);
  auto source = trace_internal::MakeBinaryTraceReader(std::move(input), path);
  return ReadAll(source.get());
}

TEST(MappedInput, SmallWindowsSlideOverEveryBlock) {
  const auto [records, bytes, path] = WriteRandomTrace(7, 5000, "mapped.sctrace");
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // Blocks of ~10 KB: one page (every block outgrows it, the window grows),
  // a few pages (blocks straddle windows), and the default window.
  for (size_t window : {page, 3 * page, trace_internal::kMappedWindowBytes}) {
    auto result = ReadMapped(path, window);
    ASSERT_EQ(result.end, TraceSource::Status::kEnd) << window << ": " << result.error;
    EXPECT_EQ(result.records, records) << window;
  }
}

TEST(MappedInput, DamageReadsLikeTheStreamReader) {
  testing::RandomRecords random(8);
  std::vector<TraceRecord> records;
  for (int i = 0; i < 2000; ++i) records.push_back(random.Make());
  std::string bytes = testing::WriteBinary(records, {10000});
  bytes.resize(bytes.size() - 5);  // the last block is cut short
  const std::string path = WriteTemp("mapped_cut.sctrace", bytes);
  auto mapped = ReadMapped(path, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
  auto streamed = ReadAll(bytes);
  EXPECT_EQ(mapped.end, TraceSource::Status::kError);
  EXPECT_EQ(mapped.records, streamed.records);
  EXPECT_EQ(mapped.error_offset, streamed.error_offset);
}

// Another process truncates the trace while its window is mapped: reading the
// lost pages would raise SIGBUS. The reader fails with a clear error instead,
// after the records it read before, and the process lives on.
TEST(MappedInput, FileThatShrinksWhileMappedGivesAnErrorNotSigbus) {
  const auto [records, bytes, path] = WriteRandomTrace(9, 20000, "mapped_shrinks.sctrace");
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  ASSERT_GT(bytes.size(), 64 * page);
  std::FILE* file = std::fopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr);
  auto source = trace_internal::MakeBinaryTraceReader(trace_internal::MakeMappedFileInput(file, 64 * page), path);
  TraceRecord record;
  ASSERT_EQ(source->Next(&record), TraceSource::Status::kRecord);  // the first window is mapped now
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(page)), 0);
  size_t read = 1;
  TraceSource::Status status;
  while ((status = source->Next(&record)) == TraceSource::Status::kRecord) ++read;
  EXPECT_EQ(status, TraceSource::Status::kError);
  EXPECT_NE(source->error().find("the file shrank while it was being read"), std::string::npos) << source->error();
  EXPECT_LT(read, records.size());
}

TEST(MappedInput, EmptyFilesAndPipesAreNotMapped) {
  const std::string path = WriteTemp("mapped_empty.sctrace", "");
  std::FILE* file = std::fopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr);
  EXPECT_FALSE(trace_internal::MakeMappedFileInput(file));
  std::fclose(file);
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::FILE* pipe_end = fdopen(fds[0], "rb");
  EXPECT_FALSE(trace_internal::MakeMappedFileInput(pipe_end));
  std::fclose(pipe_end);
  close(fds[1]);
}

}  // namespace
}  // namespace streamcheck
