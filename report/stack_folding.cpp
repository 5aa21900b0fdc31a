#include "report/stack_folding.h"

#include "report/object_names.h"

namespace streamcheck::report {

size_t FoldedStack::folded() const {
  size_t n = folded_after;
  for (const ShownFrame& f : shown) n += f.folded_before;
  return n;
}

FoldedStack FoldStack(const std::vector<ResolvedFrame>& stack, size_t max_shown) {
  FoldedStack out;
  bool any_program = false;
  for (const ResolvedFrame& f : stack) any_program = any_program || IsProgramFrame(f);
  size_t pending = 0;
  for (size_t i = 0; i < stack.size(); ++i) {
    const bool show = any_program ? IsProgramFrame(stack[i]) : true;
    if (!show || out.shown.size() == max_shown) {
      ++pending;
      continue;
    }
    out.shown.push_back({i, pending});
    pending = 0;
  }
  out.folded_after = pending;
  return out;
}

}  // namespace streamcheck::report
