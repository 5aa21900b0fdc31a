// Runs streamcheck-lint on testdata/lint inputs and compares its warnings
// with the expectations written in the inputs, clang -verify style, checking
// the column and (when given) the message as clang-tidy's CHECK-MESSAGES does:
//
//   launch(...);  // expected-warning:3{{cross-stream-race}}
//   launch(...);  // expected-warning:3{{cross-stream-race}}{{reads `a` while kernel `produce`}}
//   launch(...);  // expected-warning-re:3{{cross-stream-race}}{{reads `a` while .* may still write}}
//   // expected-warning@+1:3{{host-device-race}}      (a warning on the next line)
//
// `:COL` is the warning's column (required); the second `{{...}}` is a part of
// the message (with -re, an ECMAScript regular expression searched in it).
// Several expectations on one line expect several warnings; a line with none
// must stay silent. Headers the input includes with quotes are read for
// expectations too. The exit status must be 1 with expected warnings, else 0;
// `expected-compile-error` in an input expects 2, `expected-incomplete` 3 (a
// function or file left out). A line `// lint-options: ...` passes options to
// the lint before the input (the CMake test passes `// lint-flags:` after --).
//
//   lint_expect STREAMCHECK_LINT INPUT [FLAGS...]
//   lint_expect STREAMCHECK_LINT --db BUILD_DIR INPUT...   (the files of a compile database, linted together)
#include <array>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace {

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string Directory(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

struct Expectation {
  std::string file;  // base name
  int line = 0;
  int column = 0;
  std::string rule;
  std::string message;  // a part of it; empty: any
  bool regex = false;
  int written_at = 0;  // the line the expectation is written on
};

struct Warning {
  std::string file;
  int line = 0;
  int column = 0;
  std::string rule;
  std::string message;
  bool matched = false;
};

struct Inputs {
  std::vector<Expectation> expected;
  std::vector<std::string> errors;  // malformed expectations
  std::vector<std::string> lint_options;
  int want_rc = -1;  // from expected-compile-error / expected-incomplete
};

bool Matches(const Expectation& e, const Warning& w) {
  if (e.file != w.file || e.line != w.line || e.column != w.column || e.rule != w.rule) return false;
  if (e.message.empty()) return true;
  if (!e.regex) return w.message.find(e.message) != std::string::npos;
  return std::regex_search(w.message, std::regex(e.message));
}

// Reads the expectations of `path` and of the headers it includes with quotes.
void ReadExpectations(const std::string& path, std::set<std::string>* seen, Inputs* in) {
  if (!seen->insert(path).second) return;
  std::ifstream file(path);
  if (!file) {
    in->errors.push_back("cannot read " + path);
    return;
  }
  // expected-warning[-re][@+N|@-N][:COL]{{rule}}[{{message}}]
  const std::regex expectation(
      R"(expected-warning(-re)?(@[+-]\d+)?(:(\d+))?\{\{([a-z-]+)\}\}(\{\{(.*?)\}\}(?!\}))?)");
  const std::regex include(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::string line;
  for (int n = 1; std::getline(file, line); ++n) {
    for (std::sregex_iterator it(line.begin(), line.end(), expectation), end; it != end; ++it) {
      const std::smatch& m = *it;
      Expectation e;
      e.file = Basename(path);
      e.written_at = n;
      e.line = n + (m[2].matched ? std::stoi(m[2].str().substr(1)) : 0);
      e.rule = m[5].str();
      e.regex = m[1].matched;
      e.message = m[7].str();
      if (!m[4].matched) {
        in->errors.push_back(e.file + ":" + std::to_string(n) + ": expectation without a column: " + m[0].str());
        continue;
      }
      e.column = std::stoi(m[4].str());
      if (e.regex) {
        try {
          std::regex check(e.message);
        } catch (const std::regex_error&) {
          in->errors.push_back(e.file + ":" + std::to_string(n) + ": not a regular expression: " + e.message);
          continue;
        }
      }
      in->expected.push_back(e);
    }
    if (line.find("expected-compile-error") != std::string::npos) in->want_rc = 2;
    if (line.find("expected-incomplete") != std::string::npos) in->want_rc = 3;
    if (line.rfind("// lint-options: ", 0) == 0) {
      std::istringstream words(line.substr(17));
      for (std::string w; words >> w;) in->lint_options.push_back(w);
    }
    // A header of the input's own directory tree (not one found on -I paths).
    std::smatch inc;
    if (std::regex_search(line, inc, include)) {
      const std::string header = Directory(path) + "/" + inc[1].str();
      if (std::ifstream(header)) ReadExpectations(header, seen, in);
    }
  }
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Run(const std::string& command, int* rc) {
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  std::array<char, 4096> buf;
  while (pipe != nullptr && std::fgets(buf.data(), buf.size(), pipe) != nullptr) output += buf.data();
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  *rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

std::vector<Warning> ParseWarnings(const std::string& output) {
  std::vector<Warning> out;
  const std::regex warning(R"(^(.+?):(\d+):(\d+): warning: (.*) \[([a-z-]+)\]$)");
  std::istringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, warning)) continue;
    out.push_back({Basename(m[1].str()), std::stoi(m[2].str()), std::stoi(m[3].str()), m[5].str(), m[4].str()});
  }
  return out;
}

// Each expectation takes one warning it matches; what is left over on
// either side is an error, with the near misses (same line and rule) named.
int Compare(const std::vector<Expectation>& expected, std::vector<Warning>& actual) {
  int errors = 0;
  std::vector<const Expectation*> missing;
  for (const Expectation& e : expected) {
    bool found = false;
    for (Warning& w : actual) {
      if (!w.matched && Matches(e, w)) {
        w.matched = found = true;
        break;
      }
    }
    if (!found) missing.push_back(&e);
  }
  for (const Expectation* e : missing) {
    std::printf("%s:%d: expected warning at column %d [%s]%s%s not produced\n", e->file.c_str(), e->line, e->column,
                e->rule.c_str(), e->message.empty() ? "" : e->regex ? " matching " : " saying ", e->message.c_str());
    for (const Warning& w : actual) {
      if (!w.matched && w.file == e->file && w.line == e->line && w.rule == e->rule) {
        std::printf("  got column %d: %s\n", w.column, w.message.c_str());
      }
    }
    ++errors;
  }
  for (const Warning& w : actual) {
    if (w.matched) continue;
    std::printf("%s:%d:%d: unexpected warning [%s]: %s\n", w.file.c_str(), w.line, w.column, w.rule.c_str(),
                w.message.c_str());
    ++errors;
  }
  return errors;
}

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
  for (int i = db ? 4 : 2; i < (db ? argc : 3); ++i) inputs.push_back(argv[i]);
  Inputs in;
  std::set<std::string> seen;
  for (const std::string& input : inputs) ReadExpectations(input, &seen, &in);
  for (const std::string& e : in.errors) std::printf("%s\n", e.c_str());
  if (!in.errors.empty()) return 1;

  std::string command = Quote(argv[1]);
  for (const std::string& o : in.lint_options) command += " " + Quote(o);
  if (db) {
    command += " -p " + Quote(argv[3]);
  } else {
    command += " " + Quote(inputs[0]);
    if (argc > 3) {
      command += " --";
      for (int i = 3; i < argc; ++i) command += " " + Quote(argv[i]);
    }
  }
  int rc = 0;
  const std::string output = Run(command + " 2>&1", &rc);
  std::vector<Warning> actual = ParseWarnings(output);
  int errors = Compare(in.expected, actual);
  const int want_rc = in.want_rc >= 0 ? in.want_rc : in.expected.empty() ? 0 : 1;
  if (rc != want_rc) {
    std::printf("exit status %d, expected %d\n", rc, want_rc);
    ++errors;
  }
  if (errors != 0) std::printf("--- streamcheck-lint output ---\n%s", output.c_str());
  return errors == 0 ? 0 : 1;
}
