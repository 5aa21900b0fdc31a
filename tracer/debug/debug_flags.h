// STREAMCHECK_DEBUG: comma-separated switches for looking inside the tracer
// on a new CUDA version or library without reading traces.
//   launch          print how each kernel launch was decoded
//   callbacks-only  return from every callback at once, and load no framework
//                   plugin (what CUPTI itself costs)
//   profile         time spent by phase (callbacks, arguments, stacks, engine,
//                   PyTorch plugin) and callbacks fired per CUDA call,
//                   printed at exit
//   subscribe-only  subscribe to CUPTI but enable no callback (what the
//                   subscription alone costs); nothing is traced
//   launch-callbacks-only  enable the driver's kernel launch callbacks alone;
//                   only launches are traced
//   observer-floor  the PyTorch plugin's op observers return at once (what
//                   PyTorch's observation with inputs costs by itself)
//   hide-nested-ops, pass-over-nested-ops  the PyTorch plugin's RecordFunction
//                   observer (STREAMCHECK_TORCH_OBSERVER=record-function)
//                   handles every outermost op's nested ops one way, instead
//                   of choosing per op (tracer/frameworks/pytorch/torch_plugin.cpp)
//   python-api-stacks  the PyTorch plugin walks Python stacks through
//                   CPython's API only, never reading frames in place
//                   (python_frames.h)
//   no-block-events the PyTorch plugin does not attach to the caching
//                   allocator (what block events cost; reuse goes unseen)
//   inline-analysis the engine, store and trace file run inside each callback
//                   instead of on the analysis worker's thread
//   drop-records    every record is made, then dropped: not queued, not
//                   analysed (what the program's side costs alone)
//   skip-analysis   records are queued; the worker takes them off unanalysed
//                   (what the worker's analysis costs the program's thread)
//   launch-timing   time-stamp counter spans of each kernel launch (its two
//                   callbacks, the driver between them, the program between
//                   launches), mean per launch printed at exit (launch_timing.h)
//   stack-cache-verify  every stack recognized as repeated (repeated_stacks.h)
//                   is unwound anyway and compared; mismatches are counted
//                   and printed at exit
#pragma once

#include <cstdlib>
#include <cstring>

namespace streamcheck::tracer {

// Whole comma-separated words only: "launch" must not match
// "launch-callbacks-only". Callers read each flag once; the environment does
// not change under a running program.
inline bool DebugFlag(const char* name) {
  const char* v = std::getenv("STREAMCHECK_DEBUG");
  if (v == nullptr) return false;
  const size_t n = std::strlen(name);
  for (const char* p = v; (p = std::strstr(p, name)) != nullptr; p += n) {
    const bool starts = p == v || p[-1] == ',';
    const bool ends = p[n] == '\0' || p[n] == ',';
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace streamcheck::tracer
