// The names of streamcheck's environment variables (environment.def), for
// `streamcheck run`, which sets them, and the tracer, which reads them: one
// spelling of each, and a list for --help-debug and the tests. Header-only
// and free of the tracer's other parts, as debug/debug_flags.h is.
#pragma once

#include <string_view>

namespace streamcheck::environment {

#define STREAMCHECK_ENVIRONMENT(id, name, meaning, read_in) inline constexpr char id[] = name;
#include "tracer/environment.def"
#undef STREAMCHECK_ENVIRONMENT

struct VariableInfo {
  std::string_view name;
  std::string_view meaning;
  std::string_view read_in;  // the source file that reads it
};

inline constexpr VariableInfo kVariables[] = {
#define STREAMCHECK_ENVIRONMENT(id, name, meaning, read_in) {name, meaning, read_in},
#include "tracer/environment.def"
#undef STREAMCHECK_ENVIRONMENT
};

}  // namespace streamcheck::environment
