// Runs streamcheck-lint on testdata/lint inputs and compares its warnings
// with the expectations written in the inputs, clang -verify style:
// `// expected-warning{{rule-id}}` on each line that must be flagged (several
// on one line for several warnings), nothing on lines that must stay silent.
//
//   lint_expect STREAMCHECK_LINT INPUT [FLAGS...]
//   lint_expect STREAMCHECK_LINT --db BUILD_DIR INPUT...   (the files of a compile database, linted together)
#include <array>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <tuple>
#include <vector>

namespace {

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

using Key = std::tuple<std::string, int, std::string>;  // file name, line, rule

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: lint_expect STREAMCHECK_LINT INPUT [FLAGS...] | --db BUILD_DIR INPUT...\n");
    return 2;
  }
  const bool db = std::string(argv[2]) == "--db";
  if (db && argc < 5) {
    std::fprintf(stderr, "lint_expect: --db needs a build directory and inputs\n");
    return 2;
  }
  std::vector<std::string> inputs;
  if (db) {
    for (int i = 4; i < argc; ++i) inputs.push_back(argv[i]);
  } else {
    inputs.push_back(argv[2]);
  }
  std::map<Key, int> expected;
  const std::regex expectation(R"(expected-warning\{\{([a-z-]+)\}\})");
  bool expect_compile_error = false;
  for (const std::string& input : inputs) {
    std::ifstream in(input);
    if (!in) {
      std::fprintf(stderr, "cannot read %s\n", input.c_str());
      return 2;
    }
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      for (std::sregex_iterator it(line.begin(), line.end(), expectation), end; it != end; ++it) {
        ++expected[{Basename(input), n, (*it)[1].str()}];
      }
      if (line.find("expected-compile-error") != std::string::npos) expect_compile_error = true;
    }
  }
  std::string command = std::string("'") + argv[1] + "'";
  if (db) {
    command += std::string(" -p '") + argv[3] + "'";
  } else {
    command += " '" + inputs[0] + "'";
    if (argc > 3) {
      command += " --";
      for (int i = 3; i < argc; ++i) command += std::string(" '") + argv[i] + "'";
    }
  }
  command += " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 4096> buf;
  while (pipe != nullptr && std::fgets(buf.data(), buf.size(), pipe) != nullptr) output += buf.data();
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;

  std::map<Key, int> actual;
  const std::regex warning(R"(^([^:\s]+):(\d+):(\d+): warning: .* \[([a-z-]+)\]$)");
  std::istringstream out(output);
  std::string line;
  while (std::getline(out, line)) {
    std::smatch m;
    if (std::regex_match(line, m, warning)) ++actual[{Basename(m[1].str()), std::stoi(m[2].str()), m[4].str()}];
  }
  int errors = 0;
  for (const auto& [key, count] : expected) {
    const int got = actual.count(key) != 0 ? actual[key] : 0;
    if (got < count) {
      std::printf("%s:%d: expected warning [%s] not produced\n", std::get<0>(key).c_str(), std::get<1>(key),
                  std::get<2>(key).c_str());
      ++errors;
    }
  }
  for (const auto& [key, count] : actual) {
    const int want = expected.count(key) != 0 ? expected[key] : 0;
    if (count > want) {
      std::printf("%s:%d: unexpected warning [%s]\n", std::get<0>(key).c_str(), std::get<1>(key),
                  std::get<2>(key).c_str());
      ++errors;
    }
  }
  const int want_rc = expect_compile_error ? 2 : expected.empty() ? 0 : 1;
  if (rc != want_rc) {
    std::printf("exit status %d, expected %d\n", rc, want_rc);
    ++errors;
  }
  if (errors != 0) std::printf("--- streamcheck-lint output ---\n%s", output.c_str());
  return errors == 0 ? 0 : 1;
}
