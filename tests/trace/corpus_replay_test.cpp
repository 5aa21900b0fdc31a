// Replays the committed fuzz corpus (testdata/fuzz/trace_corpus) through the
// reader, as the fuzzer does (tests/trace/fuzz_input.h): every input must end in a record stream that stops with kEnd or a
// clean error naming an offset inside the input, never a crash.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/trace/fuzz_input.h"
#include "tests/trace/trace_test_util.h"

namespace streamcheck {
namespace {

TEST(TraceCorpus, EveryInputEndsCleanly) {
  const std::filesystem::path dir = STREAMCHECK_TRACE_CORPUS_DIR;
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  int inputs = 0, errors = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string raw = bytes.str();
    const std::string contents = testing::FuzzInputToTrace(
        reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
    SCOPED_TRACE(entry.path().string());
    auto source = OpenTraceFromString(contents, entry.path().filename().string());
    auto result = testing::ReadAll(source.get());
    if (result.end == TraceSource::Status::kError) {
      ++errors;
      EXPECT_FALSE(result.error.empty());
      EXPECT_LE(result.error_offset, contents.size());
      EXPECT_EQ(result.error.rfind(entry.path().filename().string() + ":", 0), 0u);
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 10);
  EXPECT_GT(errors, 0);
  EXPECT_LT(errors, inputs);
}

}  // namespace
}  // namespace streamcheck
