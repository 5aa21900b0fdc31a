#include "tracer/frameworks/torch_plugin_cache.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

namespace streamcheck::tracer::torch_plugin {
namespace {

namespace fs = std::filesystem;

// The builder's own words in its log (build_torch_plugin.py says them last).
constexpr std::string_view kBuilderError = "streamcheck-plugin-build: error: ";
constexpr std::string_view kBuilderFix = "streamcheck-plugin-build: fix: ";

std::string ReadWhole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// `name = 'value'` or `name: Optional[str] = 'value'` in version.py.
std::string PythonStringAssignment(const std::string& text, const std::string& name) {
  const std::regex assignment("(^|\\n)" + name + "\\s*(:[^=\\n]*)?=\\s*['\"]([^'\"\\n]*)['\"]");
  std::smatch match;
  return std::regex_search(text, match, assignment) ? match[3].str() : "";
}

std::string Sanitized(std::string_view part) {
  std::string out(part);
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '+' && c != '-') c = '_';
  return out;
}

// The plugin's .cpp files and every file of the tree they include, the way
// the compiler will see them (-I source_root).
std::vector<fs::path> PluginSourceFiles(const fs::path& root) {
  std::vector<fs::path> pending;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root / "tracer" / "frameworks" / "pytorch", ec))
    if (entry.path().extension() == ".cpp") pending.push_back(fs::relative(entry.path(), root, ec));
  const std::regex include("#\\s*include\\s+\"([^\"]+)\"");
  std::set<fs::path> seen;
  while (!pending.empty()) {
    const fs::path file = pending.back();
    pending.pop_back();
    if (!seen.insert(file).second) continue;
    const std::string text = ReadWhole(root / file);
    for (std::sregex_iterator it(text.begin(), text.end(), include), end; it != end; ++it)
      if (fs::exists(root / (*it)[1].str(), ec)) pending.push_back((*it)[1].str());
  }
  return {seen.begin(), seen.end()};
}

// The last line of the builder's log that starts with `prefix`, without it.
std::string LastLineStartingWith(const std::string& log, std::string_view prefix) {
  std::istringstream lines(log);
  std::string found;
  for (std::string line; std::getline(lines, line);)
    if (line.rfind(prefix, 0) == 0) found = line.substr(prefix.size());
  return found;
}

// The compiler's first error, where the builder's own reason is that the compiler failed.
std::string FirstCompilerError(const std::string& log) {
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);)
    if (line.find("error:") != std::string::npos && line.rfind(kBuilderError, 0) != 0) return line;
  return "";
}

bool IsElf(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::memcmp(magic, "\x7f" "ELF", 4) == 0;
}

// An open file locked with flock(2), unlocked and closed when it goes.
class FileLock {
 public:
  ~FileLock() {
    if (fd_ >= 0) close(fd_);  // closing drops the lock
  }
  bool Open(const std::string& path, std::string* error) {
    fd_ = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) *error = "cannot create the lock " + path + ": " + std::strerror(errno);
    return fd_ >= 0;
  }
  bool TryLock() { return flock(fd_, LOCK_EX | LOCK_NB) == 0; }
  bool Lock(std::string* error) {
    while (flock(fd_, LOCK_EX) != 0) {
      if (errno == EINTR) continue;
      *error = std::string("cannot lock the cache entry: ") + std::strerror(errno);
      return false;
    }
    return true;
  }

 private:
  int fd_ = -1;
};

// How the builder ended.
struct BuilderOutcome {
  enum Kind { kExited, kSignaled, kTimedOut, kStatusLost, kNotStarted } kind = kNotStarted;
  int code = 0;  // exit status, signal, or errno
};

BuilderOutcome RunBuilder(const BuildRequest& r, int log_fd) {
  const std::vector<std::string> args = {r.python,        r.sources.builder,  "--torch-dir",
                                         r.torch.torch_dir, "--source-root", r.sources.source_root,
                                         "--build-dir",   r.entry.build_dir(), "--output",
                                         r.entry.partial()};
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : r.environment) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, log_fd, 2);
  pid_t pid = -1;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return {BuilderOutcome::kNotStarted, spawned};
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(r.timeout_seconds);
  for (;;) {
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid && WIFEXITED(status)) return {BuilderOutcome::kExited, WEXITSTATUS(status)};
    if (done == pid && WIFSIGNALED(status)) return {BuilderOutcome::kSignaled, WTERMSIG(status)};
    // The program reaps its children itself (SIGCHLD ignored): what the builder left tells.
    if (done < 0 && errno != EINTR) return {BuilderOutcome::kStatusLost, 0};
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGTERM);
      waitpid(pid, &status, 0);
      return {BuilderOutcome::kTimedOut, 0};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// A failed build's reason and fix, from how the builder ended and what its log says.
BuildResult Failure(const BuildRequest& r, const BuilderOutcome& outcome) {
  const std::string log = ReadWhole(r.entry.log());
  const BuilderVerdict verdict = ReadBuilderVerdict(log);
  BuildResult result;
  result.reason = verdict.why;
  result.fix = verdict.fix;
  if (outcome.kind == BuilderOutcome::kNotStarted) {
    result.reason = "cannot run " + r.python + ": " + std::strerror(outcome.code);
    result.fix = "name the Python that has PyTorch: streamcheck plugin build --python PATH";
  } else if (outcome.kind == BuilderOutcome::kTimedOut) {
    result.reason = "the build took longer than " + std::to_string(r.timeout_seconds) + " s and was stopped";
  } else if (outcome.kind == BuilderOutcome::kSignaled) {
    result.reason = "the build was stopped by signal " + std::to_string(outcome.code);
  } else if (result.reason.empty()) {
    result.reason = outcome.kind == BuilderOutcome::kExited
                        ? "the builder failed (exit status " + std::to_string(outcome.code) + ")"
                        : "the builder left no plugin";
  }
  if (const std::string compiler = FirstCompilerError(log); !compiler.empty())
    result.reason += "; the compiler's first error: " + compiler;
  if (result.fix.empty()) result.fix = "see the build's log, " + r.entry.log();
  return result;
}

void RecordFailure(const CacheEntry& entry, const BuildResult& result) {
  std::ofstream out(entry.failure(), std::ios::trunc);
  out << result.reason << "\n" << result.fix << "\n";
}

// The build itself, with the entry's lock held.
BuildResult BuildLocked(const BuildRequest& r, const BuildMessages& messages) {
  const CacheEntry& e = r.entry;
  std::error_code ec;
  fs::create_directories(e.dir, ec);
  if (ec) return {false, false, "cannot create " + e.dir + ": " + ec.message(),
                  "make it writable, or point XDG_CACHE_HOME at a writable folder"};
  fs::remove(e.partial(), ec);
  fs::remove_all(e.build_dir(), ec);
  const int log_fd = open(e.log().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) return {false, false, "cannot write " + e.log() + ": " + std::strerror(errno),
                          "make " + e.dir + " writable, or point XDG_CACHE_HOME at a writable folder"};
  if (messages.building) messages.building();
  const BuilderOutcome outcome = RunBuilder(r, log_fd);
  close(log_fd);
  fs::remove_all(e.build_dir(), ec);  // the objects; the log stays
  const bool produced = (outcome.kind == BuilderOutcome::kExited && outcome.code == 0) ||
                        outcome.kind == BuilderOutcome::kStatusLost;
  if (produced && IsElf(e.partial())) {
    if (rename(e.partial().c_str(), e.plugin().c_str()) == 0) return {true, true, "", ""};
    BuildResult failed{false, false, "cannot put the plugin in place (" + e.plugin() + "): " + std::strerror(errno),
                       "free space in " + e.dir + " or point XDG_CACHE_HOME elsewhere"};
    fs::remove(e.partial(), ec);
    return failed;
  }
  fs::remove(e.partial(), ec);  // never loaded: only the renamed file is
  BuildResult failed = Failure(r, outcome);
  // Stopped from outside (Ctrl-C, a batch limit): no verdict on the build itself.
  if (outcome.kind != BuilderOutcome::kSignaled) RecordFailure(e, failed);
  return failed;
}

}  // namespace

BuilderVerdict ReadBuilderVerdict(const std::string& output) {
  return {LastLineStartingWith(output, kBuilderError), LastLineStartingWith(output, kBuilderFix)};
}

bool ReadTorchBuild(const std::string& torch_dir, TorchBuild* out, std::string* error) {
  const fs::path dir(torch_dir);
  const std::string version_py = ReadWhole(dir / "version.py");
  out->torch_dir = torch_dir;
  out->version = PythonStringAssignment(version_py, "__version__");
  if (out->version.empty()) {
    *error = "no version in " + (dir / "version.py").string();
    return false;
  }
  out->cuda = PythonStringAssignment(version_py, "cuda");
  const std::string config = ReadWhole(dir / "share" / "cmake" / "Torch" / "TorchConfig.cmake");
  std::smatch abi;
  out->cxx11_abi = std::regex_search(config, abi, std::regex("_GLIBCXX_USE_CXX11_ABI=([01])")) ? abi[1].str() : "";
  return true;
}

std::string TorchDirOfLibrary(const std::string& library_path) {
  return fs::path(library_path).parent_path().parent_path().string();
}

std::string Describe(const TorchBuild& torch) {
  std::string text = "PyTorch " + torch.version + " (";
  text += torch.cuda.empty() ? "no CUDA" : "CUDA " + torch.cuda;
  if (!torch.cxx11_abi.empty()) text += torch.cxx11_abi == "1" ? ", C++11 ABI" : ", pre-C++11 ABI";
  return text + ")";
}

bool FindPluginSources(const std::string& tracer_dir, PluginSources* out, std::string* error) {
  const fs::path dir(tracer_dir);
  std::error_code ec;
  out->builder = (dir / kBuilderFile).string();
  if (!fs::exists(out->builder, ec)) {
    *error = "no " + std::string(kBuilderFile) + " beside the tracer in " + tracer_dir;
    return false;
  }
  // Installed: lib/streamcheck/ and share/streamcheck/torch_plugin; a build
  // tree: tracer/ and its link to the source tree.
  for (const fs::path& root : {dir / ".." / ".." / "share" / "streamcheck" / "torch_plugin", dir / "torch_plugin_source"}) {
    if (fs::exists(root / "tracer" / "frameworks" / "pytorch" / "torch_plugin.cpp", ec)) {
      out->source_root = fs::canonical(root, ec).string();
      return true;
    }
  }
  *error = "the PyTorch plugin's sources are not installed (no share/streamcheck/torch_plugin beside " + tracer_dir + ")";
  return false;
}

std::string SourceDigest(const std::string& source_root) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a
  const auto mix = [&hash](std::string_view bytes) {
    for (unsigned char c : bytes) hash = (hash ^ c) * 1099511628211ull;
  };
  for (const fs::path& file : PluginSourceFiles(source_root)) {
    mix(file.string());
    mix(std::string(1, '\0'));
    mix(ReadWhole(fs::path(source_root) / file));
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return std::string(text, 12);
}

std::string CacheRoot(std::string* error) {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
    return std::string(xdg) + "/streamcheck";
  const char* home = std::getenv("HOME");
  if (home == nullptr || home[0] != '/') {
    const passwd* user = getpwuid(getuid());
    home = user != nullptr ? user->pw_dir : nullptr;
  }
  if (home == nullptr || home[0] != '/') {
    *error = "no cache folder: neither XDG_CACHE_HOME nor HOME is set";
    return "";
  }
  return std::string(home) + "/.cache/streamcheck";
}

std::string CacheKey(const TorchBuild& torch, std::string_view streamcheck_version, std::string_view source_digest) {
  return "torch-" + Sanitized(torch.version) + "-cuda" + (torch.cuda.empty() ? "none" : Sanitized(torch.cuda)) +
         "-abi" + (torch.cxx11_abi.empty() ? "unknown" : Sanitized(torch.cxx11_abi)) + "-streamcheck" +
         Sanitized(streamcheck_version) + "-" + Sanitized(source_digest);
}

EntryState StateOf(const CacheEntry& entry, std::string* failure) {
  std::error_code ec;
  if (fs::is_regular_file(entry.plugin(), ec) && fs::file_size(entry.plugin(), ec) > 0) return EntryState::kReady;
  if (!fs::exists(entry.failure(), ec)) return EntryState::kAbsent;
  std::ifstream in(entry.failure());
  std::getline(in, *failure);
  if (failure->empty()) *failure = "no reason was recorded";
  return EntryState::kFailedBefore;
}

BuildResult EnsurePlugin(const BuildRequest& request, const BuildMessages& messages) {
  const CacheEntry& e = request.entry;
  std::string failure;
  if (!request.force && StateOf(e, &failure) == EntryState::kReady) return {true, false, "", ""};
  std::error_code ec;
  const std::string root = fs::path(e.dir).parent_path().string();
  fs::create_directories(root, ec);
  if (ec) return {false, false, "cannot create the cache folder " + root + ": " + ec.message(),
                  "make it writable, or point XDG_CACHE_HOME at a writable folder"};
  FileLock lock;
  std::string error;
  if (!lock.Open(e.lock(), &error))
    return {false, false, error, "make " + root + " writable, or point XDG_CACHE_HOME at a writable folder"};
  if (!lock.TryLock()) {
    if (messages.waiting) messages.waiting();
    if (!lock.Lock(&error)) return {false, false, error, "remove " + e.lock() + " if no build is running"};
  }
  // Another process may have finished (or failed) while this one waited.
  switch (StateOf(e, &failure)) {
    case EntryState::kReady:
      if (!request.force) return {true, false, "", ""};
      break;
    case EntryState::kFailedBefore:
      if (!request.force)
        return {false, false, "its build failed before: " + failure,
                "fix that, then `streamcheck plugin build` builds it again (log: " + e.log() + ")"};
      break;
    case EntryState::kAbsent: break;
  }
  fs::remove(e.plugin(), ec);
  fs::remove(e.failure(), ec);
  return BuildLocked(request, messages);
}

}  // namespace streamcheck::tracer::torch_plugin
