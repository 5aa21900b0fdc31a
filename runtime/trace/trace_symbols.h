// The strings and stacks a trace defines anywhere in it. The tracer writes a
// stack's raw program counters when it is first seen and, at exit, the same
// stack again with function, file and line; a replay reads these first so that
// findings made before the symbolized definition still get readable stacks.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/engine.h"
#include "runtime/trace/trace_io.h"

namespace streamcheck {

class TraceSymbols : public StackResolver {
 public:
  // Reads every definition in `source` (to the end or the first error).
  void Collect(TraceSource& source);
  std::vector<ResolvedFrame> Resolve(StackId stack) override;

 private:
  std::unordered_map<StringId, std::string> strings_;
  std::unordered_map<StackId, std::vector<StackFrame>> stacks_;  // the last definition wins
};

}  // namespace streamcheck
