// Loads the plugins of frameworks found in the process (framework_plugin.cpp).
#pragma once

namespace streamcheck::tracer {

// Call once, after the tracer exists. STREAMCHECK_FRAMEWORKS=0 turns plugins off.
void LoadFrameworkPlugins();
// The calling thread makes its first CUDA call the tracer records: plugins
// that watch threads of their own accord (streamcheck_framework_thread_started)
// are told.
void NoteThreadToFrameworks();

}  // namespace streamcheck::tracer
