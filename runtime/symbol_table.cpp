#include "runtime/symbol_table.h"

namespace streamcheck {

namespace {
// Ids come from the trace; a corrupt one must not make us allocate gigabytes.
constexpr StringId kMaxStringId = 1u << 24;
}  // namespace

void SymbolTable::DefineString(StringId id, std::string text) {
  if (id == 0 || id >= kMaxStringId) return;
  if (strings_.size() <= id) strings_.resize(id + 1);
  strings_[id] = std::move(text);
}

void SymbolTable::DefineStack(StackId id, std::vector<StackFrame> frames, StringId library, StringId object) {
  if (id == 0) return;
  stacks_[id] = std::move(frames);
  if (library != 0) stack_library_[id] = library;
  else stack_library_.erase(id);
  if (object != 0) stack_object_[id] = object;
  else stack_object_.erase(id);
}

StringId SymbolTable::ObjectOfStack(StackId id) const {
  const auto it = stack_object_.find(id);
  return it == stack_object_.end() ? 0 : it->second;
}

StringId SymbolTable::LibraryOfStack(StackId id) const {
  const auto it = stack_library_.find(id);
  return it == stack_library_.end() ? 0 : it->second;
}

std::string_view SymbolTable::String(StringId id) const {
  return id < strings_.size() ? std::string_view(strings_[id]) : std::string_view();
}

std::vector<ResolvedFrame> SymbolTable::ResolveStack(StackId id) const {
  std::vector<ResolvedFrame> out;
  auto it = stacks_.find(id);
  if (it == stacks_.end()) return out;
  for (const StackFrame& f : it->second) {
    out.push_back({std::string(String(f.function)), std::string(String(f.file)), f.line, 0, f.pc, {}, 0});
  }
  return out;
}

}  // namespace streamcheck
