#pragma once
#include <CLI/CLI.hpp>
namespace streamcheck::cli {
// `streamcheck plugin build`: the PyTorch plugin built ahead of time (a Docker
// image, a cluster's shared setup) into the cache the tracer loads it from.
void AddPluginCommand(CLI::App& app);
}  // namespace streamcheck::cli
