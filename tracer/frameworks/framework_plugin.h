// Loads the plugins of frameworks found in the process (framework_plugin.cpp).
#pragma once

#include <cstdint>

namespace streamcheck::tracer {

// Call once, after the tracer exists. STREAMCHECK_FRAMEWORKS=0 turns plugins off.
void LoadFrameworkPlugins();
// The calling thread makes its first CUDA call the tracer records: plugins
// that watch threads of their own accord (streamcheck_framework_thread_started)
// are told.
void NoteThreadToFrameworks();
// The calling thread's framework-level stack (Python's), for a host access
// seen outside any framework op; 0 when no plugin gives one. Call without
// the tracer's lock (the plugin interns the stack under it). Called from
// the guard pages' fault handler: the PyTorch plugin reads known stacks in
// place and walks a new one under the GIL (torch_plugin.cpp says why that is
// safe there).
uint32_t FrameworkStackOfThisThread();

}  // namespace streamcheck::tracer
