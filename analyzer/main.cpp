// streamcheck-lint: the static half of streamcheck (`streamcheck lint` execs
// it). Usage: docs/lint.md.
//
// Exit codes: 0 no findings, 1 findings, 2 usage errors, or a file that does
// not compile and of which no function could be analysed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/compile_db.h"
#include "analyzer/compile_flags.h"
#include "analyzer/lint_driver.h"
#include "analyzer/lint_output.h"
#include "store/suppressions.h"

namespace {

constexpr const char* kUsage =
    "usage: streamcheck lint [-p BUILD_DIR] [options] [FILES...] [-- FLAGS...]\n"
    "\n"
    "Finds stream-ordering bugs in CUDA/C++ sources before they run.\n"
    "\n"
    "  -p BUILD_DIR        read compile commands from BUILD_DIR/compile_commands.json\n"
    "                      (nvcc commands are translated); FILES select entries (default: all)\n"
    "  -- FLAGS            without -p: lint FILES with these compiler flags\n"
    "  -j N                translation units in parallel (default: number of cores)\n"
    "  --db FILE           write findings to the streamcheck database FILE\n"
    "  --suppressions FILE drop findings matched by FILE (docs/SUPPRESSIONS.md)\n"
    "  --format text|sarif output format on stdout (default: text)\n"
    "  --cuda-path DIR     CUDA toolkit (default: $CUDA_PATH, $CUDA_HOME, /usr/local/cuda)\n"
    "  --extra-arg FLAG    add FLAG to every compile command (repeatable)\n"
    "  --color             colored diagnostics\n"
    "  --print-commands    print the clang command of each file to stderr\n"
    "  --max-pending N     per function: operations tracked as pending at once (default 1024;\n"
    "                      older ones are taken as finished; 0: no limit)\n"
    "  --max-findings N    per function: findings reported (default 1000; 0: no limit)\n"
    "\n"
    "Silence one finding with `// streamcheck: ignore[rule-id]` on its line or alone on the line above.\n"
    "Exit codes: 0 no findings, 1 findings, 2 usage errors or a file of which nothing could be analysed.\n";

// What could not be parsed and what was analysed anyway.
void ReportParse(const streamcheck::lint::LintResult& r) {
  const char* file = r.file.c_str();
  if (!r.dropped_flags.empty()) {
    std::string flags;
    for (const std::string& f : r.dropped_flags) flags += " " + f;
    std::fprintf(stderr, "streamcheck lint: %s: flags clang does not know, left out:%s\n", file, flags.c_str());
  }
  if (r.compiled) return;
  std::string first = r.first_error_message.empty() ? std::string("the compiler failed") : r.first_error_message;
  if (!r.first_error.file.empty()) first = r.first_error.file + ":" + std::to_string(r.first_error.line) + ": " + first;
  if (r.functions_analysed == 0) {
    std::fprintf(stderr, "streamcheck lint: %s: does not compile (%s); nothing analysed\n", file, first.c_str());
    return;
  }
  std::fprintf(stderr, "streamcheck lint: %s: does not compile as a whole (%s); analysed %d of %d functions\n", file,
               first.c_str(), r.functions_analysed, r.functions_total);
  for (const streamcheck::lint::SkippedFunction& f : r.skipped) {
    std::fprintf(stderr, "streamcheck lint: %s:%u: `%s` not analysed: %s\n", f.at.file.c_str(), f.at.line,
                 f.name.c_str(), f.error.c_str());
  }
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "streamcheck lint: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace streamcheck::lint;
  std::string build_dir;
  std::vector<std::string> files, flags, extra_args;
  OutputOptions output;
  int jobs = static_cast<int>(std::thread::hardware_concurrency());
  bool have_flags = false;
  bool print_commands = false;
  std::string suppressions_path;
  LintLimits limits;
  CudaSetup setup;
  setup.resource_dir = STREAMCHECK_CLANG_RESOURCE_DIR;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&](const char* name) -> std::string {
      const std::string prefix = std::string(name) + "=";
      if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
      if (i + 1 >= argc) throw std::string(name) + " needs a value";
      return argv[++i];
    };
    const auto is = [&](const char* name) {
      return arg == name || arg.rfind(std::string(name) + "=", 0) == 0;
    };
    try {
      if (arg == "--") {
        have_flags = true;
        for (++i; i < argc; ++i) flags.push_back(argv[i]);
      } else if (arg == "-h" || arg == "--help") {
        std::fputs(kUsage, stdout);
        return 0;
      } else if (arg == "--version") {
        std::printf("streamcheck-lint %s\n", STREAMCHECK_VERSION);
        return 0;
      } else if (is("-p")) {
        build_dir = value("-p");
      } else if (arg.rfind("-j", 0) == 0 && arg.size() > 2 && arg[2] != '=') {
        jobs = std::atoi(arg.c_str() + 2);
      } else if (is("-j") || is("--jobs")) {
        jobs = std::atoi(value(arg.rfind("--jobs", 0) == 0 ? "--jobs" : "-j").c_str());
      } else if (is("--db")) {
        output.db_path = value("--db");
      } else if (is("--format")) {
        output.format = value("--format");
        if (output.format != "text" && output.format != "sarif") return Usage("--format takes text or sarif");
      } else if (is("--suppressions")) {
        suppressions_path = value("--suppressions");
      } else if (is("--cuda-path")) {
        setup.cuda_path = value("--cuda-path");
      } else if (is("--extra-arg")) {
        extra_args.push_back(value("--extra-arg"));
      } else if (arg == "--color") {
        output.color = true;
      } else if (arg == "--print-commands") {
        print_commands = true;
      } else if (is("--max-pending") || is("--max-findings")) {
        const bool pending = is("--max-pending");
        const std::string text = value(pending ? "--max-pending" : "--max-findings");
        char* end = nullptr;
        const long n = std::strtol(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || n < 0) return Usage(arg + " takes a number, 0 or more");
        if (pending) {
          limits.max_pending = static_cast<size_t>(n);
        } else {
          limits.max_findings = static_cast<int>(n);
        }
      } else if (!arg.empty() && arg[0] == '-') {
        return Usage("unknown option " + arg);
      } else {
        files.push_back(arg);
      }
    } catch (const std::string& message) {
      return Usage(message);
    }
  }
  if (jobs < 1) return Usage("-j takes a positive number");
  std::optional<streamcheck::SuppressionList> suppressions;
  if (!suppressions_path.empty()) {
    std::string error;
    suppressions = streamcheck::SuppressionList::Load(suppressions_path, &error);
    if (!suppressions) {
      std::fprintf(stderr, "streamcheck lint: %s\n", error.c_str());
      return 2;
    }
  }
  for (int i = 0; i < argc; ++i) output.command += (i == 0 ? "" : " ") + std::string(argv[i]);

  std::vector<LintJob> lint_jobs;
  if (!build_dir.empty()) {
    std::string error;
    std::optional<CompileDatabase> db = LoadCompileDatabase(build_dir, &error);
    if (!db) {
      std::fprintf(stderr, "streamcheck lint: %s\n", error.c_str());
      return 2;
    }
    std::vector<std::string> missing;
    for (const CompileEntry& e : SelectEntries(*db, files, &missing)) {
      std::vector<std::string> argv_in = e.argv;
      argv_in.insert(argv_in.end(), flags.begin(), flags.end());
      std::vector<std::string> command = PrepareClangCommand(argv_in, e.file, setup);
      command.insert(command.end(), extra_args.begin(), extra_args.end());
      lint_jobs.push_back({e.file, e.directory, command});
    }
    if (!missing.empty()) {
      for (const std::string& m : missing) {
        std::fprintf(stderr, "streamcheck lint: %s: no entry in %s\n", m.c_str(), db->path.c_str());
      }
      return 2;
    }
  } else {
    if (files.empty()) return Usage("give -p BUILD_DIR or source files");
    (void)have_flags;
    char cwd[4096];
    const std::string dir = getcwd(cwd, sizeof cwd) != nullptr ? cwd : ".";
    for (const std::string& f : files) {
      std::vector<std::string> all = flags;
      all.insert(all.end(), extra_args.begin(), extra_args.end());
      lint_jobs.push_back({f, dir, PrepareClangCommand(DefaultCommand(f, all), f, setup)});
    }
  }
  if (print_commands) {
    for (const LintJob& j : lint_jobs) {
      std::string line;
      for (const std::string& a : j.argv) line += a + " ";
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }

  std::vector<LintResult> results = RunLint(lint_jobs, jobs, limits);
  size_t suppressed = 0;
  if (suppressions) {
    for (LintResult& r : results) {
      suppressed += std::erase_if(r.diagnostics,
                                  [&](const LintDiagnostic& d) { return suppressions->Suppressed(d.finding); });
    }
  }
  if (suppressed) std::fprintf(stderr, "streamcheck lint: %zu finding(s) suppressed by %s\n", suppressed,
                               suppressions_path.c_str());
  bool compile_error = false;
  size_t findings = 0;
  for (const LintResult& r : results) {
    if (!r.compiler_output.empty()) std::fputs(r.compiler_output.c_str(), stderr);
    ReportParse(r);
    for (const streamcheck::lint::LintNote& n : r.budget_notes) {
      std::fprintf(stderr, "%s:%u:%u: note: %s\n", n.at.file.c_str(), n.at.line, n.at.column, n.message.c_str());
    }
    // A file is a failure only when nothing in it could be analysed.
    if (!r.compiled && r.functions_analysed == 0) compile_error = true;
    findings += r.diagnostics.size();
  }
  const int status = compile_error ? 2 : findings != 0 ? 1 : 0;
  if (!WriteResults(results, output, status)) return 2;
  return status;
}
