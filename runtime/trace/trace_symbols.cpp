#include "runtime/trace/trace_symbols.h"

namespace streamcheck {

void TraceSymbols::Collect(TraceSource& source) {
  TraceRecord r;
  while (source.Next(&r) == TraceSource::Status::kRecord) {
    if (r.op == OpCode::kDefineString) strings_[r.id] = r.text;
    else if (r.op == OpCode::kDefineStack) stacks_[r.id] = r.frames;
  }
}

std::vector<ResolvedFrame> TraceSymbols::Resolve(StackId stack) {
  std::vector<ResolvedFrame> out;
  auto it = stacks_.find(stack);
  if (it == stacks_.end()) return out;
  auto text = [this](StringId id) {
    auto s = strings_.find(id);
    return s == strings_.end() ? std::string() : s->second;
  };
  for (const StackFrame& f : it->second) out.push_back({text(f.function), text(f.file), f.line, 0, f.pc, {}, 0});
  return out;
}

}  // namespace streamcheck
