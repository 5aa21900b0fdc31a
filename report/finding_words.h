// A finding in the user's words, composed from its structured fields (ops,
// framework ops, source lines, stream origins, why no edge exists) rather
// than from the engine's prose, so every report says the same thing in the
// same order: what happened, why nothing ordered it, what to write where.
//
//   headline: aten::sum (train.py:7) reads the 16 MiB buffer from aten::empty while
//             aten::normal_ (train.py:4) on the default stream may still write it
//   why:      torch.cuda.Stream first used at train.py:7 never waited for the default
//             stream: it is non-blocking, ...
//   fix:      before train.py:7, inside `with torch.cuda.stream(...)`:
//             `torch.cuda.current_stream().wait_stream(torch.cuda.default_stream())` ...
//
// Text, HTML, SARIF, the summary and the lines `run`/`replay` print all use it.
#pragma once

#include <string>
#include <utility>

#include "runtime/finding.h"

namespace streamcheck::report {

struct FindingWords {
  std::string headline;  // one sentence, no trailing period
  std::string why;       // why no happens-before edge exists
  std::string fix;       // what to add, in the framework's API when one issued the ops, and where
};

// Strings are used as stored: escape them for the output afterwards.
FindingWords DescribeFinding(const Finding& finding);

// The racing operations: the accesses with role "earlier" and "later", or the
// first and last access when roles say otherwise.
std::pair<size_t, size_t> RacingPair(const Finding& finding);

}  // namespace streamcheck::report
