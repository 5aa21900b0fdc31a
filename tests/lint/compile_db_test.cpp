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

}  // namespace
}  // namespace streamcheck::lint
