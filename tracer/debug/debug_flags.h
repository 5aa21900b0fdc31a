// STREAMCHECK_DEBUG: the switches of debug_switches.def, read from the
// environment. Header-only and free of the tracer's other parts, so the
// PyTorch plugin and `streamcheck run --help-debug` use the same list.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "tracer/environment.h"

namespace streamcheck::tracer {

enum class DebugSwitch : uint8_t {
#define STREAMCHECK_DEBUG_SWITCH(id, name, meaning, read_in) id,
#include "tracer/debug/debug_switches.def"
#undef STREAMCHECK_DEBUG_SWITCH
};

struct DebugSwitchInfo {
  DebugSwitch id;
  std::string_view name;
  std::string_view meaning;
  std::string_view read_in;  // the source file that reads it
};

inline constexpr DebugSwitchInfo kDebugSwitches[] = {
#define STREAMCHECK_DEBUG_SWITCH(id, name, meaning, read_in) {DebugSwitch::id, name, meaning, read_in},
#include "tracer/debug/debug_switches.def"
#undef STREAMCHECK_DEBUG_SWITCH
};

// Whether the comma-separated `value` holds the switch's name as a whole
// word: "launch" must not match "launch-callbacks-only".
inline bool DebugSwitchListed(std::string_view value, DebugSwitch s) {
  const std::string_view name = kDebugSwitches[static_cast<size_t>(s)].name;
  for (size_t start = 0; start <= value.size();) {
    size_t end = value.find(',', start);
    if (end == std::string_view::npos) end = value.size();
    if (value.substr(start, end - start) == name) return true;
    start = end + 1;
  }
  return false;
}

// The words of `value` that name no switch (empty words are ignored), for a
// warning: a misspelt switch would otherwise measure nothing, silently.
inline std::vector<std::string> UnknownDebugSwitches(std::string_view value) {
  std::vector<std::string> unknown;
  for (size_t start = 0; start <= value.size();) {
    size_t end = value.find(',', start);
    if (end == std::string_view::npos) end = value.size();
    const std::string_view word = value.substr(start, end - start);
    bool known = word.empty();
    for (const DebugSwitchInfo& info : kDebugSwitches) known = known || info.name == word;
    if (!known) unknown.emplace_back(word);
    start = end + 1;
  }
  return unknown;
}

// Callers read each switch once; the environment does not change under a
// running program.
inline bool DebugFlag(DebugSwitch s) {
  const char* v = std::getenv(environment::kDebug);
  return v != nullptr && DebugSwitchListed(v, s);
}

}  // namespace streamcheck::tracer
