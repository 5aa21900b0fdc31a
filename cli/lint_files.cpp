#include "cli/lint_files.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "cli/child_process.h"
#if STREAMCHECK_HAVE_COMPILE_DB
#include "analyzer/compile_db.h"
#endif

namespace streamcheck::cli {
namespace {

namespace fs = std::filesystem;

// Whether streamcheck-lint's option `arg` takes the next argument as its value.
bool TakesValue(const std::string& arg) {
  const std::vector<std::string>& with_value = LintOptionsWithValue();
  return std::find(with_value.begin(), with_value.end(), arg) != with_value.end();
}

// git's output split at NULs (-z), so that no file name is misread.
std::vector<std::string> SplitNul(const std::string& text) {
  std::vector<std::string> out;
  size_t begin = 0;
  for (size_t end; (end = text.find('\0', begin)) != std::string::npos; begin = end + 1)
    if (end > begin) out.push_back(text.substr(begin, end - begin));
  return out;
}

bool Git(const std::vector<std::string>& args, std::string* output, std::string* error) {
  std::vector<std::string> argv = {"git"};
  argv.insert(argv.end(), args.begin(), args.end());
  const ChildResult run = RunProgram(argv, 120, /*separate_errors=*/true);
  if (run.finished && run.exit_code == 0) {
    *output = run.output;
    return true;
  }
  std::string words = run.finished ? run.errors + run.output : run.failure;
  while (!words.empty() && (words.back() == '\n' || words.back() == '\0')) words.pop_back();
  *error = "git " + args.front() + " failed: " + words;
  return false;
}

bool IsSource(const std::string& file) {
  static const std::set<std::string> extensions = {".cu", ".cpp", ".cc", ".cxx", ".c++"};
  return extensions.count(fs::path(file).extension().string()) > 0;
}

}  // namespace

const std::vector<std::string>& LintOptionsWithValue() {
  static const std::vector<std::string> options = {"-p",         "-j",           "--jobs",        "--db",
                                                   "--suppressions", "--busy-timeout", "--format",  "--cuda-path",
                                                   "--extra-arg",    "--max-pending",  "--max-findings"};
  return options;
}

bool SplitLintArguments(const std::vector<std::string>& args, LintArguments* out, std::string* error) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      out->flags.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (arg == "--skip-unlisted") {
      out->skip_unlisted = true;
    } else if (arg == "--changed-since" || arg.rfind("--changed-since=", 0) == 0) {
      if (arg == "--changed-since" && i + 1 == args.size()) {
        *error = "--changed-since needs a revision (a branch, tag or commit)";
        return false;
      }
      out->changed_since = arg == "--changed-since" ? args[++i] : arg.substr(std::string("--changed-since=").size());
    } else if (TakesValue(arg) && i + 1 < args.size()) {
      out->options.push_back(arg);
      out->options.push_back(args[++i]);
      if (arg == "-p") out->build_dir = args[i];
    } else if (const size_t eq = arg.find('='); eq != std::string::npos && TakesValue(arg.substr(0, eq))) {
      // "--format=sarif" as "--format sarif": streamcheck-lint takes both.
      out->options.push_back(arg.substr(0, eq));
      out->options.push_back(arg.substr(eq + 1));
      if (arg.substr(0, eq) == "-p") out->build_dir = arg.substr(eq + 1);
    } else if (!arg.empty() && arg[0] == '-') {
      out->options.push_back(arg);
    } else {
      out->files.push_back(arg);
    }
  }
  return true;
}

bool ChangedFiles(const std::string& rev, std::vector<std::string>* files, std::string* error) {
  std::string top, base, changed, untracked;
  if (!Git({"rev-parse", "--show-toplevel"}, &top, error)) return false;
  while (!top.empty() && top.back() == '\n') top.pop_back();
  if (!Git({"merge-base", rev, "HEAD"}, &base, error)) return false;
  while (!base.empty() && base.back() == '\n') base.pop_back();
  if (!Git({"diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", base, "--"}, &changed, error) ||
      !Git({"ls-files", "-z", "--others", "--exclude-standard", "--full-name", ":/"}, &untracked, error))
    return false;
  std::set<std::string> all;
  for (const std::string& list : {changed, untracked})
    for (const std::string& file : SplitNul(list)) all.insert((fs::path(top) / file).lexically_normal().string());
  files->assign(all.begin(), all.end());
  return true;
}

bool LintableFiles(const std::vector<std::string>& files, const std::string& build_dir,
                   std::vector<std::string>* lintable, std::vector<std::string>* skipped, std::string* error) {
  if (build_dir.empty()) {
    for (const std::string& f : files) (IsSource(f) ? lintable : skipped)->push_back(f);
    return true;
  }
#if STREAMCHECK_HAVE_COMPILE_DB
  std::optional<lint::CompileDatabase> db = lint::LoadCompileDatabase(build_dir, error);
  if (!db) return false;
  for (const std::string& f : files) {
    std::vector<std::string> missing;
    lint::SelectEntries(*db, {f}, &missing);
    (missing.empty() ? lintable : skipped)->push_back(f);
  }
  return true;
#else
  *error = "this installation has no lint";
  return false;
#endif
}

}  // namespace streamcheck::cli
