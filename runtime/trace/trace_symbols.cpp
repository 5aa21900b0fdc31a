#include "runtime/trace/trace_symbols.h"

#include <algorithm>

namespace streamcheck {

void TraceSymbols::Collect(TraceSource& source) {
  TraceRecord r;
  while (source.Next(&r) == TraceSource::Status::kRecord) {
    if (r.op == OpCode::kDefineString) strings_[r.id] = r.text;
    else if (r.op == OpCode::kDefineStack) stacks_[r.id] = r.frames;
    else if (r.op == OpCode::kProcessInfo && process_info_.empty()) process_info_ = r.text;
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

std::string ProcessInfoField(std::string_view text, std::string_view key) {
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find(' ', at), text.size());
    const std::string_view field = text.substr(at, end - at);
    const bool command = field.starts_with("command=");  // the last field: it runs to the end
    if (field.size() > key.size() && field.starts_with(key) && field[key.size()] == '=') {
      const size_t value = at + key.size() + 1;
      return std::string(text.substr(value, command ? std::string_view::npos : end - value));
    }
    if (command) break;
    at = end + 1;
  }
  return {};
}

std::string EncodeProcessInfoValue(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '%') out += "%25";
    else if (c == ' ') out += "%20";
    else out += c;
  }
  return out;
}

std::string DecodeProcessInfoValue(std::string_view value) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    if (value.substr(i, 3) == "%25") out += '%', i += 2;
    else if (value.substr(i, 3) == "%20") out += ' ', i += 2;
    else out += value[i];
  }
  return out;
}

}  // namespace streamcheck
