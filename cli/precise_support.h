// Whether `run --precise` can run with this installation on this machine: its
// tracer was built with the Compute Sanitizer API's headers (the precise
// front-end exists only then), and the API's library (libsanitizer-public.so,
// loaded at run time) is found. `run --precise` refuses to start without
// them rather than quietly running fast mode; `doctor` reports the same.
#pragma once

#include <string>

namespace streamcheck::cli {

struct PreciseSupport {
  bool ok = false;
  std::string detail;  // what there is, or why not
  std::string fix;     // empty when ok
};

PreciseSupport CheckPreciseSupport();

}  // namespace streamcheck::cli
