// The PyTorch plugin for the PyTorch in this process, from the per-user cache
// (torch_plugin_cache.h), built there first when it is not: with the
// program's own Python, PyTorch's extension builder, and one line on stderr.
#pragma once

#include <string>

namespace streamcheck::tracer {

// The plugin's path, or "" after one line on stderr saying why there is none
// and how to get it (the process is then traced at the CUDA level).
// `tracer_dir` holds the tracer, the builder and (installed) share/ above it.
std::string ProvideTorchPlugin(const std::string& tracer_dir);

}  // namespace streamcheck::tracer
