// `doctor`'s lint line: streamcheck-lint lints a small CUDA file, which
// needs Clang 22's libraries, its resource headers and the CUDA headers; when
// it fails, its own words say which is missing.
#pragma once

#include "cli/doctor_checks.h"

namespace streamcheck::cli {

Capability CheckLint();

}  // namespace streamcheck::cli
