// The PyTorch plugin as the command sees it, for `plugin build` and `doctor`:
// the PyTorch of a Python (found without importing it), the plugin's sources
// beside the installation's tracer, and the cache entry the tracer would
// load it from (tracer/frameworks/torch_plugin_cache.h).
#pragma once

#include <string>

#include "tracer/frameworks/torch_plugin_cache.h"

namespace streamcheck::cli {

struct TorchPluginSetup {
  std::string python;  // as given, and as it resolved (sys.executable)
  std::string python_executable;
  std::string tracer_dir;
  tracer::torch_plugin::TorchBuild torch;
  tracer::torch_plugin::PluginSources sources;
  tracer::torch_plugin::CacheEntry entry;
  std::string plugin_beside_tracer;  // one built with the tracer, which the tracer loads first; "" if none
};

struct SetupProblem {
  std::string why;
  std::string fix;
  bool no_torch = false;  // the Python has no PyTorch (nothing to build a plugin for)
};

// false with *problem set when the Python, its PyTorch, the tracer or the
// plugin's sources are missing.
bool FindTorchPluginSetup(const std::string& python, TorchPluginSetup* out, SetupProblem* problem);

// The builder's own checks (it imports torch: seconds): whether the plugin
// can be built here. false with *problem set when not.
bool CheckPluginBuildable(const TorchPluginSetup& setup, SetupProblem* problem);

}  // namespace streamcheck::cli
