// Loads the plugins of frameworks found in the process (framework_plugin.cpp).
#pragma once

namespace streamcheck::tracer {

// Call once, after the tracer exists. STREAMCHECK_FRAMEWORKS=0 turns plugins off.
void LoadFrameworkPlugins();

}  // namespace streamcheck::tracer
