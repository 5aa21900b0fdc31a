// Names, paths and messages in a store are bytes: a kernel name or a file
// name may hold control characters or invalid UTF-8. The human-readable
// outputs (text, summary, HTML, messages on stderr) show such bytes escaped
// as C does (`\n`, `\t`, `\r`, `\xNN`), so a name can neither move the
// cursor, colour the terminal nor fake a line, and the original bytes can be
// read back from the escapes. (JSON and SARIF replace invalid UTF-8 with
// U+FFFD and escape control characters as JSON does: json_stream.h; SARIF
// URIs percent-encode every byte: sarif_report.h.)
#pragma once

#include <string>
#include <string_view>

#include "runtime/finding.h"

namespace streamcheck::report {

// `text` with control characters and bytes that are not part of valid UTF-8
// escaped; valid UTF-8 passes unchanged.
std::string EscapeControl(std::string_view text);

// The same for every string of a finding (names, paths, messages).
Finding EscapedFinding(const Finding& finding);

}  // namespace streamcheck::report
