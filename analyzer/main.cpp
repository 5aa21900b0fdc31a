// streamcheck-lint: the static half of streamcheck (`streamcheck lint` execs
// it). Usage: docs/lint.md.
//
// Exit codes: 0 no findings, 1 findings, 2 usage errors, or a file that does
// not compile and of which no function could be analysed, 3 an incomplete
// analysis (lint_output.h's kExitIncomplete).
#include <unistd.h>

#include <csignal>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "analyzer/compile_db.h"
#include "analyzer/compile_flags.h"
#include "analyzer/lint_driver.h"
#include "analyzer/lint_output.h"
#include "analyzer/prelude/prelude_files.h"
#include "report/output_file.h"

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
    "  --busy-timeout MS   wait this long for another process's lock on --db (default 5000)\n"
    "  --format text|sarif output format on stdout (default: text)\n"
    "  --cuda-path DIR     CUDA toolkit (default: $CUDA_PATH, $CUDA_HOME, /usr/local/cuda)\n"
    "  --extra-arg FLAG    add FLAG to every compile command (repeatable)\n"
    "  --color             colored diagnostics\n"
    "  --print-commands    print the clang command of each file to stderr, quoted for the shell\n"
    "  --allow-partial     an analysis that left functions out (compile errors) is not a failure\n"
    "  --max-pending N     per function: operations tracked as pending at once (default 1024;\n"
    "                      older ones are taken as finished; 0: no limit)\n"
    "  --max-findings N    per function: findings reported (default 1000; 0: no limit)\n"
    "\n"
    "Silence one finding with `// streamcheck: ignore[rule-id]` on its line or alone on the line above.\n"
    "Exit codes: 0 no findings, 1 findings, 2 usage errors, a file of which nothing could be analysed,\n"
    "or output that could not be written (the database, a full disk, a closed pipe), 3 the analysis is\n"
    "incomplete: a function with a compile error in it, or code after a fatal error, was left out (each\n"
    "is named on stderr); --allow-partial makes 3 (and 2 for a file of which nothing was analysed) 0 or 1.\n";

// Output that did not reach its destination (/dev/full, a closed pipe) is a
// failure, not a success.
int FinishStandardOutput(int code) {
  std::string error;
  if (streamcheck::report::FlushStandardOutput(&error)) return code;
  std::fprintf(stderr, "streamcheck lint: %s\n", error.c_str());
  return 2;
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "streamcheck lint: %s\n\n%s", message.c_str(), kUsage);
  return 2;
}

// `arg` as one shell word: as it is when only safe characters make it up,
// else in single quotes.
std::string ShellQuote(const std::string& arg) {
  const bool safe = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                            "0123456789_-+=/.,:@%") == std::string::npos;
  if (safe) return arg;
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The prelude headers the lint serves from memory, kept on disk (in the
// user's cache, per version) so that a printed command finds them; empty
// when that cannot be written.
std::string WritePrelude() {
  namespace fs = std::filesystem;
  const char* cache = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::string root = cache != nullptr && *cache != '\0' ? cache : home != nullptr ? std::string(home) + "/.cache" : "";
  if (root.empty()) return {};
  const fs::path dir = fs::path(root) / "streamcheck-lint" / (std::string("prelude-") + STREAMCHECK_VERSION);
  std::error_code ec;
  for (const streamcheck::lint::PreludeFile& f : streamcheck::lint::PreludeFiles()) {
    const fs::path path = dir / f.path;
    fs::create_directories(path.parent_path(), ec);
    std::ifstream in(path);
    const std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (old == f.text) continue;
    std::ofstream out(path, std::ios::trunc);
    out << f.text;
    if (!out) return {};
  }
  return dir.string();
}

// Each command as the shell reads it back (`-DF(x)=x` quoted), run in its
// directory with the clang the lint was built with and the prelude on disk:
// the same parse the lint makes.
void PrintCommands(const std::vector<streamcheck::lint::LintJob>& jobs) {
  const std::string prelude = WritePrelude();
  const std::string virtual_prelude = streamcheck::lint::kPreludeDir;
  for (const streamcheck::lint::LintJob& j : jobs) {
    std::string line = "cd " + ShellQuote(j.directory) + " &&";
    std::vector<std::string> dropped;
    const std::vector<std::string> argv = streamcheck::lint::KnownFlags(j.argv, &dropped);  // as the lint parses
    for (size_t i = 0; i < argv.size(); ++i) {
      std::string a = i == 0 ? std::string(STREAMCHECK_CLANG_BIN_DIR) + "/" + argv[0] : argv[i];
      if (const size_t at = a.find(virtual_prelude); at != std::string::npos && !prelude.empty()) {
        a.replace(at, virtual_prelude.size(), prelude);
      }
      line += " " + ShellQuote(a);
    }
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

// Everything the command line says.
struct CommandLine {
  std::string build_dir;
  std::vector<std::string> files, flags, extra_args;
  streamcheck::lint::OutputOptions output;
  int jobs = static_cast<int>(std::thread::hardware_concurrency());
  bool print_commands = false;
  streamcheck::lint::LintLimits limits;
  streamcheck::lint::CudaSetup setup;
};

// Reads the options into `cl`; an exit code when the program is done
// (--help, --version, a usage error).
std::optional<int> ParseArguments(int argc, char** argv, CommandLine* cl) {
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
        for (++i; i < argc; ++i) cl->flags.push_back(argv[i]);
      } else if (arg == "-h" || arg == "--help") {
        std::fputs(kUsage, stdout);
        return FinishStandardOutput(0);
      } else if (arg == "--version") {
        std::printf("streamcheck-lint %s\n", STREAMCHECK_VERSION);
        return FinishStandardOutput(0);
      } else if (is("-p")) {
        cl->build_dir = value("-p");
      } else if (arg.rfind("-j", 0) == 0 && arg.size() > 2 && arg[2] != '=') {
        cl->jobs = std::atoi(arg.c_str() + 2);
      } else if (is("-j") || is("--jobs")) {
        cl->jobs = std::atoi(value(arg.rfind("--jobs", 0) == 0 ? "--jobs" : "-j").c_str());
      } else if (is("--db")) {
        cl->output.db_path = value("--db");
      } else if (is("--format")) {
        cl->output.format = value("--format");
        if (cl->output.format != "text" && cl->output.format != "sarif") return Usage("--format takes text or sarif");
      } else if (is("--suppressions")) {
        cl->output.suppressions_path = value("--suppressions");
      } else if (is("--busy-timeout")) {
        cl->output.busy_timeout_ms = std::atoi(value("--busy-timeout").c_str());
        if (cl->output.busy_timeout_ms < 0) return Usage("--busy-timeout takes milliseconds (0 or more)");
      } else if (is("--cuda-path")) {
        cl->setup.cuda_path = value("--cuda-path");
      } else if (is("--extra-arg")) {
        cl->extra_args.push_back(value("--extra-arg"));
      } else if (arg == "--color") {
        cl->output.color = true;
      } else if (arg == "--print-commands") {
        cl->print_commands = true;
      } else if (arg == "--allow-partial") {
        cl->output.allow_partial = true;
      } else if (is("--max-pending") || is("--max-findings")) {
        const bool pending = is("--max-pending");
        const std::string text = value(pending ? "--max-pending" : "--max-findings");
        char* end = nullptr;
        const long n = std::strtol(text.c_str(), &end, 10);
        if (text.empty() || *end != '\0' || n < 0) return Usage(arg + " takes a number, 0 or more");
        if (pending) {
          cl->limits.max_pending = static_cast<size_t>(n);
        } else {
          cl->limits.max_findings = static_cast<int>(n);
        }
      } else if (!arg.empty() && arg[0] == '-') {
        return Usage("unknown option " + arg);
      } else {
        cl->files.push_back(arg);
      }
    } catch (const std::string& message) {
      return Usage(message);
    }
  }
  if (cl->jobs < 1) return Usage("-j takes a positive number");
  if (cl->build_dir.empty() && cl->files.empty()) return Usage("give -p BUILD_DIR or source files");
  return std::nullopt;
}

// One job per file: its compile database entry's command, or the flags
// given after `--`. An exit code when the database cannot be used.
std::optional<int> MakeJobs(const CommandLine& cl, std::vector<streamcheck::lint::LintJob>* jobs) {
  using namespace streamcheck::lint;
  if (cl.build_dir.empty()) {
    char cwd[4096];
    const std::string dir = getcwd(cwd, sizeof cwd) != nullptr ? cwd : ".";
    for (const std::string& f : cl.files) {
      std::vector<std::string> all = cl.flags;
      all.insert(all.end(), cl.extra_args.begin(), cl.extra_args.end());
      jobs->push_back({f, dir, PrepareClangCommand(DefaultCommand(f, all), f, cl.setup)});
    }
    return std::nullopt;
  }
  std::string error;
  std::optional<CompileDatabase> db = LoadCompileDatabase(cl.build_dir, &error);
  if (!db) {
    std::fprintf(stderr, "streamcheck lint: %s\n", error.c_str());
    return 2;
  }
  std::vector<std::string> missing;
  for (const CompileEntry& e : SelectEntries(*db, cl.files, &missing)) {
    std::vector<std::string> argv_in = ExpandResponseFiles(e.argv, e.directory);
    argv_in.insert(argv_in.end(), cl.flags.begin(), cl.flags.end());
    std::vector<std::string> command = PrepareClangCommand(argv_in, e.file, cl.setup);
    command.insert(command.end(), cl.extra_args.begin(), cl.extra_args.end());
    jobs->push_back({e.file, e.directory, command});
  }
  for (const std::string& m : missing) {
    std::fprintf(stderr, "streamcheck lint: %s: no entry in %s\n", m.c_str(), db->path.c_str());
  }
  return missing.empty() ? std::nullopt : std::optional<int>(2);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace streamcheck::lint;
  std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is a write error (exit 2)
  CommandLine cl;
  cl.setup.resource_dir = STREAMCHECK_CLANG_RESOURCE_DIR;
  if (std::optional<int> done = ParseArguments(argc, argv, &cl)) return *done;
  // The run's command as the user would type it: the tool's name, not the
  // path of the build or installation it ran from (reports show it).
  cl.output.command = std::filesystem::path(argv[0]).filename().string();
  for (int i = 1; i < argc; ++i) cl.output.command += " " + std::string(argv[i]);
  std::vector<LintJob> lint_jobs;
  if (std::optional<int> failed = MakeJobs(cl, &lint_jobs)) return *failed;
  if (cl.print_commands) PrintCommands(lint_jobs);
  // Suppressions and database before the analysis: a bad one fails at once.
  std::string output_error;
  std::unique_ptr<LintOutput> lint_output = LintOutput::Open(cl.output, &output_error);
  if (!lint_output) {
    std::fprintf(stderr, "streamcheck lint: %s\n", output_error.c_str());
    return 2;
  }
  return lint_output->Write(RunLint(lint_jobs, cl.jobs, cl.limits));
}
