// The HTML report quotes source lines only from regular text files under the
// run's source roots: never /proc, /sys, /dev, never through a symlink that
// leads elsewhere, never a huge or binary file.
#include "report/source_snippets.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/store/store_fixtures.h"

namespace streamcheck::report {
namespace {

using testing::ScratchDir;
using testing::WriteAll;

TEST(SourceSnippets, QuotesFilesUnderARootOnly) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.File("src"));
  WriteAll(dir.File("src/a.cu"), "line one\nline two\n");
  WriteAll(dir.File("outside.cu"), "secret\n");
  SourceSnippets snippets({dir.File("src")});
  EXPECT_EQ(snippets.Line(dir.File("src/a.cu"), 2), "line two");
  EXPECT_EQ(snippets.Line("a.cu", 1), "line one") << "relative paths resolve against the roots";
  EXPECT_EQ(snippets.Line(dir.File("outside.cu"), 1), "");
  EXPECT_EQ(snippets.Line(dir.File("src/../outside.cu"), 1), "") << "no climbing out";
}

TEST(SourceSnippets, NeverSystemFilesNorSymlinksLeadingElsewhere) {
  ScratchDir dir;
  WriteAll(dir.File("outside.cu"), "secret\n");
  std::filesystem::create_directories(dir.File("src"));
  std::filesystem::create_symlink(dir.File("outside.cu"), dir.File("src/link.cu"));
  std::filesystem::create_symlink("/proc/self/environ", dir.File("src/environ"));
  SourceSnippets snippets({dir.File("src"), "/proc/self", "/"});
  EXPECT_EQ(snippets.Line(dir.File("src/link.cu"), 1), "");
  EXPECT_EQ(snippets.Line(dir.File("src/environ"), 1), "");
  EXPECT_EQ(snippets.Line("/proc/self/environ", 1), "") << "/proc is never a root";
  EXPECT_EQ(snippets.Line("/etc/passwd", 1), "") << "'/' is never a root";
}

TEST(SourceSnippets, NeverHugeOrBinaryFiles) {
  ScratchDir dir;
  WriteAll(dir.File("big.cu"), "x\n" + std::string(kMaxSourceFileBytes, 'y'));
  WriteAll(dir.File("binary.cu"), std::string("x\n\0\x01", 4));
  SourceSnippets snippets({dir.File(".")});
  EXPECT_EQ(snippets.Line(dir.File("big.cu"), 1), "");
  EXPECT_EQ(snippets.Line(dir.File("binary.cu"), 1), "");
}

// Issue 44: a frame naming `.env` under the run's working directory put its
// API key into the page. Only source files, by extension; never a hidden
// file or a file in a hidden folder, under any name.
TEST(SourceSnippets, OnlySourceFilesAndNeverHiddenOnes) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.File("src/.git"));
  WriteAll(dir.File("src/.env"), "API_KEY=x\n");
  WriteAll(dir.File("src/.git/hook.py"), "hidden folder\n");
  WriteAll(dir.File("src/.hidden.cu"), "hidden file\n");
  WriteAll(dir.File("src/notes.txt"), "not source\n");
  WriteAll(dir.File("src/Makefile"), "not source\n");
  WriteAll(dir.File("src/kernel.CU"), "upper case\n");
  WriteAll(dir.File("src/train.py"), "python\n");
  std::filesystem::create_symlink(dir.File("src/.env"), dir.File("src/env.cu"));
  SourceSnippets snippets({dir.File("src")});
  for (const char* hidden : {".env", ".git/hook.py", ".hidden.cu", "notes.txt", "Makefile", "env.cu"}) {
    EXPECT_EQ(snippets.Line(hidden, 1), "") << hidden;
    EXPECT_EQ(snippets.Line(dir.File("src/") + hidden, 1), "") << hidden;
  }
  EXPECT_EQ(snippets.Line("kernel.CU", 1), "upper case");
  EXPECT_EQ(snippets.Line("train.py", 1), "python");
  EXPECT_EQ(snippets.Line("./train.py", 1), "python") << "'.' is no hidden folder";
  std::filesystem::create_directories(dir.File("src/sub"));
  EXPECT_EQ(snippets.Line(dir.File("src/sub/../train.py"), 1), "python");
}

}  // namespace
}  // namespace streamcheck::report
