#include "analyzer/compile_db.h"

#include <gtest/gtest.h>

namespace streamcheck::lint {
namespace {

TEST(CompileDb, ParsesCommandAndArguments) {
  std::string error;
  auto db = ParseCompileDatabase(R"([
    {"directory": "/b", "file": "src/a.cu", "command": "nvcc -c ../src/a.cu"},
    {"directory": "/b", "file": "/s/b.cpp", "arguments": ["g++", "-c", "/s/b.cpp"]}])",
                                 "cc.json", &error);
  ASSERT_TRUE(db) << error;
  ASSERT_EQ(db->entries.size(), 2u);
  EXPECT_EQ(db->entries[0].file, "/b/src/a.cu");
  EXPECT_EQ(db->entries[0].argv.size(), 3u);
  EXPECT_EQ(db->entries[1].argv[0], "g++");
  std::vector<std::string> missing;
  EXPECT_EQ(SelectEntries(*db, {"src/a.cu"}, &missing).size(), 1u);
  EXPECT_TRUE(missing.empty());
  EXPECT_TRUE(SelectEntries(*db, {"nope.cu"}, &missing).empty());
  EXPECT_EQ(missing.size(), 1u);
}

TEST(CompileDb, BrokenJsonNamesFile) {
  std::string error;
  EXPECT_FALSE(ParseCompileDatabase("[{\"directory\": ", "build/compile_commands.json", &error));
  EXPECT_NE(error.find("build/compile_commands.json: not valid JSON"), std::string::npos) << error;
}

TEST(CompileDb, MissingFieldsNameEntry) {
  std::string error;
  EXPECT_FALSE(ParseCompileDatabase(R"([{"directory": "/b", "command": "cc a.c"}])", "cc.json", &error));
  EXPECT_NE(error.find("entry 1"), std::string::npos) << error;
  EXPECT_FALSE(ParseCompileDatabase(R"([{"directory": "/b", "file": "a.c"}])", "cc.json", &error));
  EXPECT_NE(error.find("\"command\""), std::string::npos) << error;
  EXPECT_FALSE(ParseCompileDatabase(R"({"a": 1})", "cc.json", &error));
}

TEST(CompileDb, MissingFileIsClear) {
  std::string error;
  EXPECT_FALSE(LoadCompileDatabase("/nonexistent-dir-streamcheck", &error));
  EXPECT_NE(error.find("cannot read the compile database"), std::string::npos);
}

// CMake writes one entry per target that compiles a file (nccl-tests' common.cu in all eleven).
TEST(CompileDb, AFileSeveralTargetsCompileIsLintedOnce) {
  std::string error;
  auto db = ParseCompileDatabase(R"([
    {"directory": "/b", "command": "nvcc -DT1 -c /s/common.cu", "file": "/s/common.cu"},
    {"directory": "/b", "command": "nvcc -c /s/a.cu", "file": "/s/a.cu"},
    {"directory": "/b", "command": "nvcc -DT2 -c /s/common.cu", "file": "/s/common.cu"}])",
                                 "cc.json", &error);
  ASSERT_TRUE(db) << error;
  std::vector<std::string> missing;
  const std::vector<CompileEntry> all = SelectEntries(*db, {}, &missing);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].file, "/s/common.cu");
  EXPECT_EQ(all[0].argv[1], "-DT1");
  EXPECT_EQ(all[1].file, "/s/a.cu");
}

}  // namespace
}  // namespace streamcheck::lint
