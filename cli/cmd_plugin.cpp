#include "cli/cmd_plugin.h"

#include <fmt/core.h>

#include <memory>

#include "cli/exit_code.h"
#include "cli/torch_plugin_setup.h"

extern char** environ;

namespace streamcheck::cli {
namespace {

struct PluginOptions {
  std::string python = "python3";
  bool force = false;
};

int BuildPlugin(const PluginOptions& o) {
#ifndef STREAMCHECK_HAVE_PLUGIN_CACHE
  fmt::print(stderr, "streamcheck plugin build: this installation was built without the tracer\n");
  return kExitUsage;
#else
  using namespace tracer::torch_plugin;
  TorchPluginSetup setup;
  SetupProblem problem;
  if (!FindTorchPluginSetup(o.python, &setup, &problem)) {
    fmt::print(stderr, "streamcheck plugin build: {}. Fix: {}\n", problem.why, problem.fix);
    return kExitUsage;
  }
  if (!setup.plugin_beside_tracer.empty())
    fmt::print(stderr, "streamcheck plugin build: note: the tracer loads {} (built with streamcheck) before the "
               "cache's plugin\n", setup.plugin_beside_tracer);
  BuildRequest request;
  request.entry = setup.entry;
  request.torch = setup.torch;
  request.sources = setup.sources;
  request.python = setup.python_executable;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) request.environment.emplace_back(*e);
  request.force = o.force;
  BuildMessages messages;
  messages.building = [&] {
    fmt::print(stderr, "streamcheck plugin build: building the PyTorch plugin for {} into {} (a minute or two)\n",
               Describe(setup.torch), setup.entry.dir);
  };
  messages.waiting = [&] {
    fmt::print(stderr, "streamcheck plugin build: waiting for another process building into {}\n", setup.entry.dir);
  };
  const BuildResult result = EnsurePlugin(request, messages);
  if (!result.ok) {
    fmt::print(stderr, "streamcheck plugin build: no plugin for {}: {}. Fix: {}\n", Describe(setup.torch),
               result.reason, result.fix);
    return kExitUsage;
  }
  fmt::print("{}\n", setup.entry.plugin());
  fmt::print(stderr, "streamcheck plugin build: {} for {}{}\n", result.built ? "built" : "already built",
             Describe(setup.torch), result.built || o.force ? "" : " (--force builds it again)");
  return kExitOk;
#endif
}

}  // namespace

void AddPluginCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "plugin",
      "The PyTorch plugin (op names, Python stacks): `streamcheck run` builds it on first use, for the PyTorch "
      "the program has, into ${XDG_CACHE_HOME:-~/.cache}/streamcheck; `plugin build` does it ahead of time");
  cmd->require_subcommand(1);
  auto o = std::make_shared<PluginOptions>();
  auto* build = cmd->add_subcommand("build", "Build the plugin for the PyTorch of a Python; prints its path");
  build->add_option("--python", o->python, "the Python whose PyTorch to build for")->capture_default_str();
  build->add_flag("--force", o->force, "build again over a plugin or a failed build in the cache");
  build->callback([o] { SetExitCode(BuildPlugin(*o)); });
}

}  // namespace streamcheck::cli
