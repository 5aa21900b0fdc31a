// A stack as a report shows it: the program's own frames (object_names.h:
// IsProgramFrame), with the library frames around them folded into counts,
// so a PyTorch stack shows the script's lines, not forty CPython frames.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/finding.h"

namespace streamcheck::report {

struct ShownFrame {
  size_t index = 0;          // in the original stack (#N)
  size_t folded_before = 0;  // library frames left out just before this one
};

struct FoldedStack {
  std::vector<ShownFrame> shown;
  size_t folded_after = 0;  // library frames (or frames past the limit) left out at the end
  size_t folded() const;    // all frames left out
};

// Keeps at most `max_shown` frames. A stack without any program frame shows
// its innermost frames (up to `max_shown`) so there is always something.
FoldedStack FoldStack(const std::vector<ResolvedFrame>& stack, size_t max_shown);

}  // namespace streamcheck::report
