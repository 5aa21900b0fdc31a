// rules/rules.def is the one list of rules; this holds it against the rest,
// as clang-tidy's add_new_check.py keeps a check, its doc and its test in
// step: every rule has its page, and every rule a half finds has a racy input
// that expects it and a fixed twin that does not. A rule added to the list
// without them, or an input left behind by a renamed rule, fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "rules/catalogue.h"

namespace streamcheck::rules {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = STREAMCHECK_SOURCE_DIR;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool FoundDynamically(const Rule& r) { return r.halves != Halves::kStatic; }

// The rules a recorded or hand-written trace's .expect file lists (the first
// word of each line that is not a comment).
std::set<std::string> ExpectedRules(const fs::path& expect) {
  std::set<std::string> rules;
  std::istringstream lines(ReadFile(expect));
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    rules.insert(line.substr(0, line.find(' ')));
  }
  return rules;
}

// Every .expect of the dynamic half's inputs (the traces the replay tests
// replay with their expectations).
std::vector<fs::path> DynamicExpectations() {
  std::vector<fs::path> out;
  for (const char* dir : {"testdata/examples", "testdata/traces", "testdata/rules"})
    for (const auto& entry : fs::recursive_directory_iterator(kSource / dir))
      if (entry.path().extension() == ".expect") out.push_back(entry.path());
  return out;
}

// "x.racy.sctrace.expect" -> "x.fixed.sctrace.expect" (ranks too: "y.racy.rank0...").
fs::path FixedTwin(const fs::path& racy) {
  std::string name = racy.filename().string();
  const size_t at = name.find(".racy.");
  if (at == std::string::npos) return {};
  name.replace(at, 6, ".fixed.");
  return racy.parent_path() / name;
}

TEST(RuleCatalogue, EveryRuleHasItsPage) {
  for (const Rule& r : AllRules()) {
    const fs::path page = kSource / "rules/docs" / (std::string(r.id) + ".md");
    ASSERT_TRUE(fs::exists(page)) << r.id << ": no " << page;
    const std::string text = ReadFile(page);
    EXPECT_EQ(text.rfind("# " + std::string(r.id), 0), 0u) << page << " does not begin with its id";
    EXPECT_EQ(std::string(r.documentation), text) << r.id << ": the embedded page is not the file's";
  }
  // And no page for a rule the list does not have.
  for (const auto& entry : fs::directory_iterator(kSource / "rules/docs"))
    EXPECT_NE(Find(entry.path().stem().string()), nullptr) << entry.path() << " documents no rule of rules.def";
}

// The dynamic half: a racy input whose expectations name the rule, and its
// fixed twin, whose expectations do not.
TEST(RuleCatalogue, EveryDynamicRuleHasARacyAndAFixedTrace) {
  const std::vector<fs::path> expectations = DynamicExpectations();
  for (const Rule& r : AllRules()) {
    if (!FoundDynamically(r)) continue;
    const std::string id(r.id);
    std::vector<fs::path> racy, fixed;
    for (const fs::path& expect : expectations) {
      if (!ExpectedRules(expect).count(id)) continue;
      const fs::path twin = FixedTwin(expect);
      if (twin.empty()) continue;
      racy.push_back(expect);
      if (fs::exists(twin) && !ExpectedRules(twin).count(id)) fixed.push_back(twin);
    }
    EXPECT_FALSE(racy.empty()) << id << ": no racy trace (a .racy. input whose .expect names it)";
    EXPECT_FALSE(fixed.empty()) << id << ": no fixed twin of a racy trace that leaves it out";
  }
}

// Every rule an expectation names is in the list: a renamed rule leaves no
// input behind.
TEST(RuleCatalogue, InputsNameOnlyRulesOfTheList) {
  for (const fs::path& expect : DynamicExpectations())
    for (const std::string& id : ExpectedRules(expect)) EXPECT_NE(Find(id), nullptr) << expect << " expects " << id;
}

}  // namespace
}  // namespace streamcheck::rules
