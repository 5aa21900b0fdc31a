// tracer/environment.def is the one list of streamcheck's environment
// variables: each is read where the list says, through its name there, and
// no other source spells one.
#include "tracer/environment.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace streamcheck::environment {
namespace {

struct Entry {
  std::string id;
  std::string name;
  std::string read_in;
};

const std::vector<Entry>& Entries() {
  static const std::vector<Entry> entries = {
#define STREAMCHECK_ENVIRONMENT(id, name, meaning, read_in) {#id, name, read_in},
#include "tracer/environment.def"
#undef STREAMCHECK_ENVIRONMENT
  };
  return entries;
}

std::string ReadSource(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(Environment, NamesAreUniqueAndExplained) {
  std::set<std::string_view> names;
  for (const VariableInfo& v : kVariables) {
    EXPECT_TRUE(names.insert(v.name).second) << v.name;
    EXPECT_TRUE(v.name.starts_with("STREAMCHECK_")) << v.name;
    EXPECT_FALSE(v.meaning.empty()) << v.name;
  }
}

// The list cannot keep a variable nothing reads any more.
TEST(Environment, EachIsReadInTheFileTheListNames) {
  for (const Entry& e : Entries()) {
    const std::string text = ReadSource(std::filesystem::path(STREAMCHECK_SOURCE_DIR) / e.read_in);
    ASSERT_FALSE(text.empty()) << e.read_in;
    EXPECT_NE(text.find("environment::" + e.id), std::string::npos) << e.read_in << " does not read " << e.name;
  }
}

// What `run` hands its traced processes is set through the same names.
TEST(Environment, RunSetsWhatTheTracerReads) {
  const std::string run = ReadSource(std::filesystem::path(STREAMCHECK_SOURCE_DIR) / "cli/cmd_run.cpp");
  for (const char* id : {"kDb", "kRunId", "kRootPid", "kRunHost", "kTrace", "kSuppressions", "kStacks",
                         "kBusyTimeoutMs", "kPrecise", "kHostGuards", "kForbidDefaultStream"})
    EXPECT_NE(run.find(std::string("setenv(environment::") + id), std::string::npos) << id;
}

// No source of streamcheck's own spells a name as a string: a second spelling
// is how a variable set in one place stops being read in another.
TEST(Environment, NoOtherSourceSpellsAName) {
  const std::regex literal("\"STREAMCHECK_[A-Z0-9_]+\"");
  for (const char* room : {"cli", "tracer", "runtime", "store", "report", "analyzer"}) {
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(std::filesystem::path(STREAMCHECK_SOURCE_DIR) / room)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".h" && ext != ".c") continue;
      const std::string text = ReadSource(entry.path());
      EXPECT_FALSE(std::regex_search(text, literal)) << entry.path() << " spells a STREAMCHECK_ name";
    }
  }
}

}  // namespace
}  // namespace streamcheck::environment
