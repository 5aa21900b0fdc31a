// Where the parts of this installation are, found from the binary's own
// place, so that an installed tree works wherever it is moved or copied:
// bin/streamcheck finds lib/streamcheck/ beside bin/,
// and a build tree's cli/streamcheck finds tracer/ and analyzer/ beside cli/.
#pragma once

#include <string>

namespace streamcheck::cli {

// The folder of the running binary ("" when /proc/self/exe cannot be read).
std::string OwnDirectory();

// `file` in the installation's lib/streamcheck/, else in the build tree's
// `build_folder` (tracer, analyzer); "" when neither has it.
std::string FindInstalledPart(const std::string& file, const std::string& build_folder);

// The tracer library `run` injects: where STREAMCHECK_TRACER_LIB says, else
// FindInstalledPart's; "" when there is none.
std::string FindTracer();
// Whether STREAMCHECK_TRACER_LIB chose it (then what it was built with is
// not this binary's to know).
bool TracerChosenByEnvironment();

}  // namespace streamcheck::cli
