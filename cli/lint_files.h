// The files `streamcheck lint` hands to streamcheck-lint, where the command
// chooses them itself: `--changed-since REV` takes them from git, and
// `--skip-unlisted` (the pre-commit hook's, which passes every changed file,
// headers too) keeps those that can be linted and names the rest. Every other
// argument passes through to streamcheck-lint unchanged.
#pragma once

#include <string>
#include <vector>

namespace streamcheck::cli {

struct LintArguments {
  std::vector<std::string> options;  // for streamcheck-lint, in order, without the files
  std::vector<std::string> files;    // FILES (before "--")
  std::vector<std::string> flags;    // "--" and what follows it
  std::string build_dir;             // -p
  std::string changed_since;         // --changed-since REV
  bool skip_unlisted = false;        // --skip-unlisted
};

// false with *error for a wrapper option without its value.
bool SplitLintArguments(const std::vector<std::string>& args, LintArguments* out, std::string* error);

// streamcheck-lint's options that take a value in the next argument: what
// tells a file from an option's value (tests hold it to `streamcheck-lint --help`).
const std::vector<std::string>& LintOptionsWithValue();

// What changed since REV, as a pull request shows it: the files that differ
// between the merge base of REV and HEAD and the working tree (committed,
// staged or not), and untracked files git does not ignore; deleted files are
// left out. Absolute paths. false with *error (git's own words) when git
// fails: no repository, an unknown REV.
bool ChangedFiles(const std::string& rev, std::vector<std::string>* files, std::string* error);

// The files streamcheck-lint can lint: with a compile database (build_dir),
// those it has a command for; without one, CUDA and C++ sources (.cu, .cpp,
// .cc, .cxx, .c++). The others go to *skipped. false with *error when the
// database cannot be read.
bool LintableFiles(const std::vector<std::string>& files, const std::string& build_dir,
                   std::vector<std::string>* lintable, std::vector<std::string>* skipped, std::string* error);

}  // namespace streamcheck::cli
