#include "cli/cmd_lint.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/exit_code.h"
#include "cli/install_paths.h"
#include "cli/lint_files.h"
#include "report/report_command.h"

namespace streamcheck::cli {
namespace {

// streamcheck-lint in the installation's lib/streamcheck/ or the build
// tree's analyzer/ (install_paths.h), else on PATH.
std::string FindLintTool() {
  const std::string found = FindInstalledPart("streamcheck-lint", "analyzer");
  return found.empty() ? "streamcheck-lint" : found;
}

std::vector<char*> Argv(const std::string& tool, std::vector<std::string>& args) {
  std::vector<char*> argv = {const_cast<char*>(tool.c_str())};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

[[noreturn]] void ExecLint(const std::string& tool, std::vector<std::string> args) {
  std::vector<char*> argv = Argv(tool, args);
  std::fflush(nullptr);
  execvp(argv[0], argv.data());
  std::fprintf(stderr,
               "streamcheck lint: cannot run %s: %s (it is built when Clang/LLVM 22 is found; `streamcheck doctor` "
               "says what this installation has)\n",
               tool.c_str(), std::strerror(errno));
  std::fflush(stderr);
  _exit(kExitUsage);
}

// --format codeclimate: streamcheck-lint writes its findings to a database
// (--db, or one of its own for the occasion), its text goes to stderr, and
// the run's findings come out as GitLab's code quality report.
int LintToCodeClimate(const std::string& tool, std::vector<std::string> args, std::string db) {
  std::string temporary_dir;
  if (db.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    temporary_dir = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") + "/streamcheck-lint-XXXXXX";
    if (mkdtemp(temporary_dir.data()) == nullptr) {
      std::fprintf(stderr, "streamcheck lint: cannot make a folder for the findings: %s\n", std::strerror(errno));
      return kExitUsage;
    }
    db = temporary_dir + "/findings.db";
    args.insert(args.begin(), {"--db", db});
  }
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) {
    dup2(STDERR_FILENO, STDOUT_FILENO);
    ExecLint(tool, args);
  }
  int status = 0;
  while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  const int lint_status = child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : kExitUsage;
  int code = lint_status;
  if (lint_status <= kExitFindings) {
    report::ReportRequest request;
    request.db_path = db;
    request.format = "codeclimate";
    request.run = report::kLatestRun;
    if (report::RunReport(request, std::cout, std::cerr) != kExitOk) code = kExitUsage;
  }
  if (!temporary_dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temporary_dir, ec);
  }
  return code;
}

// The files --changed-since or --skip-unlisted leave to lint; false when the
// command ends here (*code says how).
bool ChooseFiles(LintArguments* a, int* code) {
  std::string error;
  std::vector<std::string> candidates = a->files;
  if (!a->changed_since.empty()) {
    if (!a->files.empty()) {
      std::fprintf(stderr, "streamcheck lint: give FILES or --changed-since, not both\n");
      return *code = kExitUsage, false;
    }
    if (!ChangedFiles(a->changed_since, &candidates, &error)) {
      std::fprintf(stderr, "streamcheck lint: --changed-since %s: %s\n", a->changed_since.c_str(), error.c_str());
      return *code = kExitUsage, false;
    }
  }
  std::vector<std::string> skipped;
  a->files.clear();
  if (!LintableFiles(candidates, a->build_dir, &a->files, &skipped, &error)) {
    std::fprintf(stderr, "streamcheck lint: %s\n", error.c_str());
    return *code = kExitUsage, false;
  }
  const std::string unlisted = a->build_dir.empty() ? "not CUDA or C++ sources"
                                                    : "no compile command in " + a->build_dir + "; headers are "
                                                      "linted through the sources that include them";
  if (!a->changed_since.empty()) {
    std::fprintf(stderr, "streamcheck lint: %zu file%s changed since %s; %zu to lint (the others: %s)\n",
                 candidates.size(), candidates.size() == 1 ? "" : "s", a->changed_since.c_str(), a->files.size(),
                 unlisted.c_str());
  } else if (!skipped.empty()) {
    std::string names;
    for (const std::string& s : skipped) names += (names.empty() ? "" : ", ") + s;
    std::fprintf(stderr, "streamcheck lint: skipped %s (%s)\n", names.c_str(), unlisted.c_str());
  }
  if (a->files.empty()) {
    std::fprintf(stderr, "streamcheck lint: nothing to lint\n");
    return *code = kExitOk, false;
  }
  return true;
}

constexpr const char* kWrapperHelp =
    "\nstreamcheck lint also takes (the command handles them, then runs streamcheck-lint):\n"
    "  --changed-since REV  lint the files changed since REV's merge base with HEAD (committed or not,\n"
    "                       untracked ones too, deleted ones not) that the compile database has (-p),\n"
    "                       or the CUDA/C++ sources among them without -p; none: exit 0\n"
    "  --skip-unlisted      skip FILES without a compile command (headers) instead of failing\n"
    "                       (the pre-commit hook's, .pre-commit-hooks.yaml)\n"
    "  --format codeclimate GitLab's code quality report on stdout; the diagnostics go to stderr\n";

// streamcheck-lint's own help, then what the command adds.
int Help(const std::string& tool, std::vector<std::string> args) {
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child == 0) ExecLint(tool, args);
  int status = 0;
  while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  std::fputs(kWrapperHelp, stdout);
  return child > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : kExitUsage;
}

int Lint(std::vector<std::string> args) {
  for (const std::string& arg : args) {
    if (arg == "--") break;
    if (arg == "-h" || arg == "--help") return Help(FindLintTool(), {"--help"});
  }
  LintArguments a;
  std::string error;
  if (!SplitLintArguments(args, &a, &error)) {
    std::fprintf(stderr, "streamcheck lint: %s\n", error.c_str());
    return kExitUsage;
  }
  std::string format, db;
  for (size_t i = 0; i + 1 < a.options.size(); ++i) {
    if (a.options[i] == "--format") format = a.options[i + 1];
    if (a.options[i] == "--db") db = a.options[i + 1];
  }
  int code = kExitOk;
  if ((!a.changed_since.empty() || a.skip_unlisted) && !ChooseFiles(&a, &code)) {
    if (code == kExitOk && format == "codeclimate") std::puts("[]");  // no file, no issue: still a report
    return code;
  }
  // What streamcheck-lint is given: its options, the chosen files, the flags after "--".
  std::vector<std::string> forwarded = a.options;
  forwarded.insert(forwarded.end(), a.files.begin(), a.files.end());
  forwarded.insert(forwarded.end(), a.flags.begin(), a.flags.end());
  const std::string tool = FindLintTool();
  if (format != "codeclimate") ExecLint(tool, forwarded);
  for (size_t i = 0; i + 1 < forwarded.size(); ++i)
    if (forwarded[i] == "--format") forwarded[i + 1] = "text";
  return LintToCodeClimate(tool, forwarded, db);
}

}  // namespace

void AddLintCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "lint",
      "Static analysis of CUDA/C++ sources for stream-ordering bugs (runs streamcheck-lint; "
      "`streamcheck lint --help` for its options, docs/lint.md). The command itself adds: --changed-since REV "
      "(lint the files changed since REV's merge base with HEAD, untracked ones too, that the compile database "
      "has), --skip-unlisted (skip FILES with no compile command, e.g. headers, instead of failing: the "
      "pre-commit hook's), and --format codeclimate (GitLab's code quality report on stdout)");
  // Every argument, options included, belongs to streamcheck-lint.
  cmd->prefix_command();
  cmd->set_help_flag();
  cmd->callback([cmd] { SetExitCode(Lint(cmd->remaining())); });
}

}  // namespace streamcheck::cli
