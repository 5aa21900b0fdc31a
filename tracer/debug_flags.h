// STREAMCHECK_DEBUG: comma-separated switches for looking inside the tracer
// on a new CUDA version or library without reading traces.
//   launch          print how each kernel launch was decoded
//   callbacks-only  return from every callback at once, and load no framework
//                   plugin (what CUPTI itself costs)
//   profile         time spent by phase (callbacks, arguments, stacks, engine,
//                   PyTorch plugin), printed at exit
//   observer-floor  the PyTorch plugin's op observers return at once (what
//                   PyTorch's observation with inputs costs by itself)
//   inline-analysis the engine, store and trace file run inside each callback
//                   instead of on the analysis worker's thread
#pragma once

#include <cstdlib>
#include <cstring>

namespace streamcheck::tracer {

// Read once per flag; the environment does not change under a running program.
inline bool DebugFlag(const char* name) {
  const char* v = std::getenv("STREAMCHECK_DEBUG");
  return v != nullptr && std::strstr(v, name) != nullptr;
}

}  // namespace streamcheck::tracer
