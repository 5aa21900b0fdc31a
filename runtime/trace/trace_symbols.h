// The strings and stacks a trace defines anywhere in it, and the process it
// came from (its first process_info record). The tracer writes a
// stack's raw program counters when it is first seen and, at exit, the same
// stack again with function, file and line; a replay reads these first so that
// findings made before the symbolized definition still get readable stacks.
#pragma once

#include <string>
#include <string_view>
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
  // The text of the trace's first process_info record ("" when it has none).
  const std::string& process_info() const { return process_info_; }

 private:
  std::string process_info_;
  std::unordered_map<StringId, std::string> strings_;
  std::unordered_map<StackId, std::vector<StackFrame>> stacks_;  // the last definition wins
};

// One field of a process_info text: the tracer writes "pid=N rank=R
// local_rank=L host=H command=...", the command last (it runs to the end:
// it has spaces). "" when the field is absent.
std::string ProcessInfoField(std::string_view text, std::string_view key);

// A process_info value with no spaces in it ('%' and ' ' as %25 and %20),
// and back.
std::string EncodeProcessInfoValue(std::string_view value);
std::string DecodeProcessInfoValue(std::string_view value);

// The field that says the traced run checked default-stream use
// (`run --forbid-default-stream=GLOB`): its pattern, "*" for every object.
inline constexpr char kForbidDefaultStreamField[] = "forbid_default_stream";

}  // namespace streamcheck
