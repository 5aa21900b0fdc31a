#include "cli/doctor_checks.h"

#include <dlfcn.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "cli/child_process.h"
#include "cli/doctor_lint_check.h"
#include "cli/elf_dependencies.h"
#include "cli/install_paths.h"
#include "cli/precise_support.h"
#include "cli/torch_plugin_setup.h"
#include "tracer/environment.h"

namespace streamcheck::cli {
namespace {

namespace fs = std::filesystem;

#ifdef STREAMCHECK_TRACER_CUDA_VERSION
constexpr const char* kTracerCuda = STREAMCHECK_TRACER_CUDA_VERSION;
#else
constexpr const char* kTracerCuda = "";
#endif

Capability Ok(const std::string& name, const std::string& detail) { return {name, true, detail, ""}; }
Capability Missing(const std::string& name, const std::string& why, const std::string& fix) {
  return {name, false, why, fix};
}

// "key=value" lines, as the probes write them.
std::map<std::string, std::string> KeyValues(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (const size_t eq = line.find('='); eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  return out;
}

std::string CudaVersionText(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// In a child: the driver's CUDA version and its GPUs, through libcuda.so.1.
int DriverProbe(std::string* out) {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (cuda == nullptr) {
    *out = std::string("error=") + dlerror() + "\n";
    return 0;
  }
  const auto get_version = reinterpret_cast<int (*)(int*)>(dlsym(cuda, "cuDriverGetVersion"));
  const auto init = reinterpret_cast<int (*)(unsigned)>(dlsym(cuda, "cuInit"));
  const auto count = reinterpret_cast<int (*)(int*)>(dlsym(cuda, "cuDeviceGetCount"));
  const auto name = reinterpret_cast<int (*)(char*, int, int)>(dlsym(cuda, "cuDeviceGetName"));
  const auto error_name = reinterpret_cast<int (*)(int, const char**)>(dlsym(cuda, "cuGetErrorName"));
  if (!get_version || !init || !count || !name || !error_name) {
    *out = "error=libcuda.so.1 lacks the driver API's functions\n";
    return 0;
  }
  int version = 0;
  get_version(&version);
  *out += "version=" + std::to_string(version) + "\n";
  if (const int result = init(0); result != 0) {
    const char* text = "an unknown error";
    error_name(result, &text);
    *out += std::string("init=") + text + "\n";
    return 0;
  }
  int devices = 0;
  count(&devices);
  char first[256] = {};
  if (devices > 0) name(first, sizeof first, 0);
  *out += "devices=" + std::to_string(devices) + "\nname=" + first + "\n";
  return 0;
}

std::string KernelDriverVersion() {
  std::ifstream in("/proc/driver/nvidia/version");
  std::string line;
  std::getline(in, line);
  std::smatch match;
  return std::regex_search(line, match, std::regex("Kernel Module\\s+([0-9.]+)")) ? match[1].str() : "";
}

Capability CheckDriver() {
  const std::string name = "driver";
  const std::string anywhere = "run on a machine with an NVIDIA GPU and its driver (replay, report and lint need neither)";
  const ChildResult probe = ProbeInChild(DriverProbe, 60);
  if (!probe.finished) return Missing(name, "loading the NVIDIA driver's libcuda.so.1 " + probe.failure, anywhere);
  std::map<std::string, std::string> found = KeyValues(probe.output);
  if (found.count("error")) return Missing(name, "no NVIDIA driver (" + found["error"] + ")", anywhere);
  const int version = std::atoi(found["version"].c_str());
  const std::string kernel = KernelDriverVersion();
  std::string driver = "NVIDIA driver" + (kernel.empty() ? "" : " " + kernel) + " for CUDA " + CudaVersionText(version);
  const int built_major = std::atoi(kTracerCuda);
  if (built_major > 0 && version / 1000 < built_major)
    return Missing(name, driver + ", older than the CUDA " + kTracerCuda + " the tracer was built with",
                   "install a driver for CUDA " + std::to_string(built_major) + " or newer, or build streamcheck "
                   "with the CUDA toolkit this driver supports");
  if (found.count("init"))
    return Missing(name, driver + ", but it sees no usable GPU (cuInit: " + found["init"] + ")",
                   "check nvidia-smi, and CUDA_VISIBLE_DEVICES if it is set");
  const int devices = std::atoi(found["devices"].c_str());
  return Ok(name, driver + (*kTracerCuda ? std::string(" (the tracer was built with CUDA ") + kTracerCuda + ")" : "") +
                      "; " + std::to_string(devices) + " GPU" + (devices == 1 ? "" : "s") +
                      (found["name"].empty() ? "" : ": " + found["name"]));
}

// The Debian package that has a library the installed files need.
std::string PackageOf(const std::string& library) {
  static const std::map<std::string, std::string> packages = {
      {"libsqlite3.so.0", "libsqlite3-0"}, {"liblzma.so.5", "liblzma5"},  {"libclang-cpp.so.22.1", "libclang-cpp22"},
      {"libLLVM.so.22.1", "libllvm22"},    {"libstdc++.so.6", "libstdc++6"}, {"libgcc_s.so.1", "libgcc-s1"}};
  const auto it = packages.find(library);
  return it != packages.end() ? "install " + it->second + " (Debian/Ubuntu: apt-get install " + it->second + ")"
                              : "install the package that has " + library;
}

// The tracer and every library it needs but the driver's and CUPTI's (their own lines).
Capability CheckTracer(std::string* path, ElfDependencies* deps) {
  const std::string name = "tracer";
  *path = FindTracer();
  if (path->empty()) {
#ifdef STREAMCHECK_TRACER_CUDA_VERSION
    return Missing(name, "libstreamcheck_tracer.so is not in this installation's lib/streamcheck/",
                   std::string("reinstall streamcheck, or set ") + environment::kTracerLib + " to the tracer");
#else
    return Missing(name, "this installation was built without the CUDA toolkit, so it has no tracer (`run`)",
                   "build streamcheck where the CUDA toolkit with CUPTI is (/usr/local/cuda)");
#endif
  }
  std::string error;
  if (!ReadElfDependencies(*path, deps, &error)) return Missing(name, error, "reinstall streamcheck");
  for (const std::string& needed : deps->needed) {
    if (needed == "libcuda.so.1" || needed.rfind("libcupti.so", 0) == 0) continue;
    if (ResolveNeeded(needed, *deps).empty())
      return Missing(name, *path + " needs " + needed + ", which the loader does not find", PackageOf(needed));
  }
  return Ok(name, *path);
}

Capability CheckCupti(const std::string& tracer, const ElfDependencies& deps) {
  const std::string name = "cupti";
  if (tracer.empty()) return Missing(name, "no tracer to load it", "see the tracer's line");
  std::string needed;
  for (const std::string& n : deps.needed)
    if (n.rfind("libcupti.so", 0) == 0) needed = n;
  if (needed.empty()) return Missing(name, tracer + " does not link CUPTI", "reinstall streamcheck");
  const std::string path = ResolveNeeded(needed, deps);
  if (path.empty()) {
    std::string where;
    for (const std::string& dir : deps.run_path) where += (where.empty() ? "" : ", ") + dir;
    return Missing(name, "the tracer needs " + needed + ", which is not in " + where + " or the loader's path",
                   "install the CUDA toolkit's CUPTI (CUDA " + std::string(kTracerCuda) +
                       "), or add its folder to LD_LIBRARY_PATH");
  }
  const ChildResult version = ProbeInChild(
      [&path](std::string* out) {
        void* cupti = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        const auto get = cupti ? reinterpret_cast<int (*)(uint32_t*)>(dlsym(cupti, "cuptiGetVersion")) : nullptr;
        uint32_t v = 0;
        if (get == nullptr || get(&v) != 0) return 1;
        *out = std::to_string(v);
        return 0;
      },
      20);
  if (!version.finished || version.exit_code != 0)
    return Missing(name, path + " does not load (" + (version.finished ? "no cuptiGetVersion" : version.failure) + ")",
                   "reinstall the CUDA toolkit's CUPTI");
  return Ok(name, path + " (CUPTI API version " + version.output + ")");
}

Capability CheckPreload(const std::string& tracer) {
  const std::string name = "preload";
  const std::string without = "without it host threads are ordered as traced, NCCL's calls go unseen and "
                              "host accesses are not guarded";
  if (tracer.empty()) return Missing(name, "no tracer beside it", "see the tracer's line");
  const std::string path = (fs::path(tracer).parent_path() / "libstreamcheck_preload.so").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return Missing(name, path + " is missing: " + without, "reinstall streamcheck");
  // Preloaded as `run` preloads it (its thread-locals are for that, not dlopen).
  const ChildResult loads = RunProgram({"env", "LD_PRELOAD=" + path, "true"}, 20);
  if (!loads.finished || loads.exit_code != 0 || !loads.output.empty()) {
    std::string why = loads.finished ? loads.output : loads.failure;
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return Missing(name, path + " does not preload (" + why + "): " + without, "reinstall streamcheck");
  }
  return Ok(name, path);
}

// The guard pages' mechanism in a child: a protected page faults into a
// SIGSEGV handler, which opens it, and the access completes.
volatile char* g_guarded_page = nullptr;
volatile sig_atomic_t g_guard_faults = 0;
long g_page_size = 0;

void OpenGuardedPage(int, siginfo_t*, void*) {
  g_guard_faults = g_guard_faults + 1;
  mprotect(const_cast<char*>(g_guarded_page), static_cast<size_t>(g_page_size), PROT_READ | PROT_WRITE);
}

int GuardProbe(std::string* out) {
  g_page_size = sysconf(_SC_PAGESIZE);
  void* page = mmap(nullptr, static_cast<size_t>(g_page_size), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return *out = "mmap failed", 1;
  g_guarded_page = static_cast<char*>(page);
  g_guarded_page[0] = 42;
  struct sigaction action = {};
  action.sa_sigaction = OpenGuardedPage;
  action.sa_flags = SA_SIGINFO;
  if (sigaction(SIGSEGV, &action, nullptr) != 0) return *out = "sigaction(SIGSEGV) failed", 1;
  if (mprotect(page, static_cast<size_t>(g_page_size), PROT_NONE) != 0) return *out = "mprotect(PROT_NONE) failed", 1;
  const char seen = g_guarded_page[0];
  if (seen != 42 || g_guard_faults != 1) return *out = "the protected page's access did not come back right", 1;
  return 0;
}

Capability CheckGuards(const Capability& preload) {
  const std::string name = "guards";
  if (!preload.ok)
    return Missing(name, "guard pages need the preloaded library (it keeps their SIGSEGV handler first)",
                   "see the preload line");
  const ChildResult probe = ProbeInChild(GuardProbe, 20);
  if (!probe.finished || probe.exit_code != 0)
    return Missing(name, "a protected page does not fault into a handler here (" +
                             (probe.finished ? probe.output : probe.failure) + ")",
                   "run outside the sandbox that forbids it; `run --no-host-guards` says host accesses go unseen");
  return Ok(name, "protected pages fault into a handler that opens them: host reads and writes of pinned and "
                  "managed memory are observed");
}

Capability CheckPrecise() {
  const PreciseSupport support = CheckPreciseSupport();
  return support.ok ? Ok("precise", support.detail) : Missing("precise", support.detail, support.fix);
}

Capability CheckPyTorch(const DoctorOptions& options) {
  const std::string name = "pytorch";
  TorchPluginSetup setup;
  SetupProblem problem;
  if (!FindTorchPluginSetup(options.python, &setup, &problem)) return Missing(name, problem.why, problem.fix);
  using tracer::torch_plugin::EntryState;
  const std::string torch = tracer::torch_plugin::Describe(setup.torch);
  if (!setup.plugin_beside_tracer.empty())
    return Ok(name, "the plugin built with streamcheck, " + setup.plugin_beside_tracer + ", for " + torch +
                        " of " + setup.python_executable + " (built elsewhere? remove it to use one built for this "
                        "PyTorch)");
  std::string failure;
  switch (tracer::torch_plugin::StateOf(setup.entry, &failure)) {
    case EntryState::kReady:
      return Ok(name, "plugin for " + torch + " of " + setup.python_executable + ": " + setup.entry.plugin());
    case EntryState::kFailedBefore:
      return Missing(name, "the plugin's build for " + torch + " failed: " + failure + " (log: " + setup.entry.log() + ")",
                     "fix that, then `streamcheck plugin build --python " + setup.python_executable + "`");
    case EntryState::kAbsent: break;
  }
  if (!CheckPluginBuildable(setup, &problem))
    return Missing(name, "no plugin for " + torch + " of " + setup.python_executable + ", and it cannot be built: " +
                             problem.why, problem.fix);
  return Ok(name, "no plugin for " + torch + " of " + setup.python_executable + " yet: the first traced PyTorch "
                  "program builds it into " + setup.entry.dir + " (a minute or two), or `streamcheck plugin build` now");
}

}  // namespace

const std::vector<std::string>& CapabilityNames() {
  static const std::vector<std::string> names = {"driver", "tracer",  "cupti",   "preload",
                                                 "guards", "precise", "pytorch", "lint"};
  return names;
}

const std::vector<std::string>& CoreCapabilities() {
  static const std::vector<std::string> names = {"driver", "tracer", "cupti", "preload"};
  return names;
}

std::vector<Capability> CheckEverything(const DoctorOptions& options) {
  std::vector<Capability> out;
  out.push_back(CheckDriver());
  std::string tracer;
  ElfDependencies deps;
  out.push_back(CheckTracer(&tracer, &deps));
  out.push_back(CheckCupti(tracer, deps));
  out.push_back(CheckPreload(tracer));
  out.push_back(CheckGuards(out.back()));
  out.push_back(CheckPrecise());
  out.push_back(CheckPyTorch(options));
  out.push_back(CheckLint());
  return out;
}

}  // namespace streamcheck::cli
