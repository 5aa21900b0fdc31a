// Opening trace files by path, format detection and conversion.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/trace/random_records.h"
#include "tests/trace/trace_test_util.h"

namespace streamcheck {
namespace {

using testing::ReadAll;

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/" + name; }

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}
std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(TraceFile, DetectsTheForm) {
  EXPECT_EQ(DetectTraceFormat(""), TraceFormat::kText);
  EXPECT_EQ(DetectTraceFormat("# hello"), TraceFormat::kText);
  EXPECT_EQ(DetectTraceFormat(kBinaryTraceMagic), TraceFormat::kBinary);
  EXPECT_EQ(DetectTraceFormat("\x89"), TraceFormat::kBinary);
  EXPECT_EQ(DetectTraceFormat("XSCTRC\r\n"), TraceFormat::kBinary);  // damaged first byte
  TraceFormat f;
  EXPECT_TRUE(TraceFormatFromName("text", &f));
  EXPECT_EQ(f, TraceFormat::kText);
  EXPECT_TRUE(TraceFormatFromName(TraceFormatName(TraceFormat::kBinary), &f));
  EXPECT_EQ(f, TraceFormat::kBinary);
  EXPECT_FALSE(TraceFormatFromName("json", &f));
}

TEST(TraceFile, EmptyFileIsAnEmptyTrace) {
  std::string path = TempPath("empty.trace");
  WriteFile(path, "");
  std::string error;
  auto source = OpenTrace(path, &error);
  ASSERT_TRUE(source) << error;
  TraceRecord r;
  EXPECT_EQ(source->Next(&r), TraceSource::Status::kEnd);
}

TEST(TraceFile, MissingFileFailsToOpen) {
  std::string error;
  EXPECT_EQ(OpenTrace(TempPath("does-not-exist"), &error), nullptr);
  EXPECT_NE(error.find("does-not-exist: cannot open"), std::string::npos) << error;
}

TEST(TraceFile, ConvertsBothWaysExactly) {
  testing::RandomRecords random(11);
  std::vector<TraceRecord> records;
  for (int i = 0; i < 3000; ++i) records.push_back(random.Make());
  std::string text = FormatTextTrace(records);
  std::string text_path = TempPath("convert.trace.txt");
  std::string binary_path = TempPath("convert.sctrace");
  std::string text_again_path = TempPath("convert-again.trace.txt");
  WriteFile(text_path, text);
  std::string error;
  ASSERT_TRUE(ConvertTrace(text_path, binary_path, TraceFormat::kBinary, &error)) << error;
  ASSERT_TRUE(ConvertTrace(binary_path, text_again_path, TraceFormat::kText, &error)) << error;
  EXPECT_EQ(ReadFile(text_again_path), text);
  EXPECT_LT(ReadFile(binary_path).size(), text.size());

  auto source = OpenTrace(binary_path, &error);
  ASSERT_TRUE(source) << error;
  EXPECT_EQ(source->format(), TraceFormat::kBinary);
  EXPECT_EQ(ReadAll(source.get()).records, records);
}

TEST(TraceFile, ConvertRefusesToOverwriteItsInput) {
  std::string path = TempPath("self.trace.txt");
  WriteFile(path, "device_synchronize\n");
  std::string error;
  EXPECT_FALSE(ConvertTrace(path, path, TraceFormat::kBinary, &error));
  EXPECT_NE(error.find("overwrite the input"), std::string::npos);
  EXPECT_EQ(ReadFile(path), "device_synchronize\n");
}

TEST(TraceFile, ConvertKeepsRecordsBeforeTheDamage) {
  std::string in = TempPath("damaged.trace.txt");
  std::string out = TempPath("damaged.sctrace");
  WriteFile(in, "device_synchronize\nset_device device=3\nnot_an_op\n");
  std::string error;
  EXPECT_FALSE(ConvertTrace(in, out, TraceFormat::kBinary, &error));
  EXPECT_EQ(error, in + ":3:1 (byte 39): unknown operation 'not_an_op'");
  auto result = ReadAll(ReadFile(out));
  EXPECT_EQ(result.end, TraceSource::Status::kEnd);
  ASSERT_EQ(result.records.size(), 2u);
  EXPECT_EQ(result.records[1].device, 3);
}

TEST(TraceFile, LargeTraceStreamsThroughTheFileReader) {
  // More than the reader's 256 KiB read chunk, with blocks straddling chunks.
  testing::RandomRecords random(12);
  std::vector<TraceRecord> records;
  for (int i = 0; i < 20000; ++i) records.push_back(random.Make());
  std::string path = TempPath("large.sctrace");
  WriteFile(path, testing::WriteBinary(records, {10000}));
  std::string error;
  auto source = OpenTrace(path, &error);
  ASSERT_TRUE(source) << error;
  auto result = ReadAll(source.get());
  ASSERT_EQ(result.end, TraceSource::Status::kEnd) << result.error;
  EXPECT_EQ(result.records, records);
  EXPECT_EQ(source->offset(), std::filesystem::file_size(path));
}

TEST(TraceFile, BundledExampleTracesParse) {
  std::string dir = std::string(STREAMCHECK_TRACE_CORPUS_DIR) + "/../../examples";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no " << dir;
  int parsed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::string file = entry.path().filename().string();
    bool is_trace = file.ends_with(".trace.txt") || file.ends_with(".sctrace");
    if (!is_trace) continue;  // expectations and notes live beside the traces
    std::string error;
    auto source = OpenTrace(entry.path().string(), &error);
    ASSERT_TRUE(source) << error;
    auto result = ReadAll(source.get());
    EXPECT_EQ(result.end, TraceSource::Status::kEnd) << result.error;
    EXPECT_FALSE(result.records.empty()) << entry.path();
    ++parsed;
  }
  EXPECT_GT(parsed, 0);
}

}  // namespace
}  // namespace streamcheck
