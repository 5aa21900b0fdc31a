#include "cli/torch_plugin_setup.h"

#include <filesystem>
#include <sstream>

#include "cli/child_process.h"
#include "cli/install_paths.h"

namespace streamcheck::cli {
namespace {

namespace fs = std::filesystem;
using namespace tracer::torch_plugin;

// Where the torch package is, without importing it (which takes seconds).
constexpr const char* kFindTorch =
    "import importlib.util, os, sys\n"
    "spec = importlib.util.find_spec('torch')\n"
    "print(sys.executable)\n"
    "print(os.path.dirname(spec.origin) if spec and spec.origin else '')\n";

}  // namespace

#ifndef STREAMCHECK_HAVE_PLUGIN_CACHE  // built without tracer/ (STREAMCHECK_BUILD_TRACER=OFF)

bool FindTorchPluginSetup(const std::string&, TorchPluginSetup*, SetupProblem* problem) {
  problem->why = "this installation was built without the tracer";
  problem->fix = "build streamcheck with the CUDA toolkit";
  return false;
}

bool CheckPluginBuildable(const TorchPluginSetup&, SetupProblem*) { return false; }

#else

bool FindTorchPluginSetup(const std::string& python, TorchPluginSetup* out, SetupProblem* problem) {
  out->python = python;
  const ChildResult found = RunProgram({python, "-c", kFindTorch}, 60);
  std::istringstream lines(found.output);
  std::string torch_dir;
  std::getline(lines, out->python_executable);
  std::getline(lines, torch_dir);
  if (!found.finished || found.exit_code != 0) {
    problem->why = "cannot run " + python + " (" + (found.finished ? found.output : found.failure) + ")";
    if (!problem->why.empty() && problem->why.back() == '\n') problem->why.pop_back();
    problem->fix = "name the Python that runs your PyTorch programs with --python PATH";
    return false;
  }
  if (torch_dir.empty()) {
    problem->why = python + " (" + out->python_executable + ") has no PyTorch";
    problem->fix = "name the Python that runs your PyTorch programs with --python PATH";
    problem->no_torch = true;
    return false;
  }
  std::string error;
  if (!ReadTorchBuild(torch_dir, &out->torch, &error)) {
    problem->why = "cannot tell which PyTorch " + torch_dir + " is: " + error;
    problem->fix = "build the plugin beside the tracer with scripts/build-torch-plugin.sh";
    return false;
  }
  const std::string tracer = FindTracer();
  if (tracer.empty()) {
    problem->why = "this installation has no tracer (libstreamcheck_tracer.so)";
    problem->fix = "install streamcheck built with the CUDA toolkit";
    return false;
  }
  out->tracer_dir = fs::path(tracer).parent_path().string();
  std::error_code ec;
  if (fs::exists(fs::path(out->tracer_dir) / kPluginFile, ec))
    out->plugin_beside_tracer = (fs::path(out->tracer_dir) / kPluginFile).string();
  const std::string root = CacheRoot(&error);
  if (!FindPluginSources(out->tracer_dir, &out->sources, &error) || root.empty()) {
    problem->why = error;
    problem->fix = root.empty() ? "set XDG_CACHE_HOME or HOME" : "reinstall streamcheck";
    return false;
  }
  out->entry.dir = root + "/" + CacheKey(out->torch, STREAMCHECK_VERSION, SourceDigest(out->sources.source_root));
  return true;
}

bool CheckPluginBuildable(const TorchPluginSetup& setup, SetupProblem* problem) {
  const ChildResult check = RunProgram({setup.python, setup.sources.builder, "--check", "--torch-dir",
                                        setup.torch.torch_dir, "--source-root", setup.sources.source_root},
                                       120);
  if (check.finished && check.exit_code == 0) return true;
  const BuilderVerdict verdict = ReadBuilderVerdict(check.output);
  problem->why = verdict.why;
  problem->fix = verdict.fix;
  if (problem->why.empty())
    problem->why = "the builder's check failed (" + (check.finished ? "exit status " + std::to_string(check.exit_code)
                                                                     : check.failure) + ")";
  if (problem->fix.empty()) problem->fix = "run " + setup.sources.builder + " --check with " + setup.python;
  return false;
}

#endif

}  // namespace streamcheck::cli
