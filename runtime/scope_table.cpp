#include "runtime/scope_table.h"

#include "runtime/symbol_table.h"

namespace streamcheck {

ScopeTable::Change ScopeTable::Begin(ThreadId thread, StringId name) {
  std::vector<uint32_t>& stack = open_[thread];
  const uint32_t parent = stack.empty() ? 0 : stack.back();
  Change change = Change::kDone;
  uint32_t scope = parent;
  if (stack.size() >= kMaxDepth) {
    change = Change::kTooDeep;
  } else {
    const uint64_t key = uint64_t{parent} << 32 | name;
    const auto it = ids_.find(key);
    if (it != ids_.end()) {
      scope = it->second;
    } else if (paths_.size() >= kMaxPaths) {
      change = Change::kTooMany;
    } else {
      scope = static_cast<uint32_t>(paths_.size());
      paths_.push_back({parent, name});
      ids_.emplace(key, scope);
    }
  }
  stack.push_back(scope);  // a scope refused still takes its place: its end closes it
  last_opener_ = thread;
  return change;
}

ScopeTable::Change ScopeTable::End(ThreadId thread) {
  const auto it = open_.find(thread);
  if (it == open_.end()) return Change::kNoneOpen;
  it->second.pop_back();
  if (it->second.empty()) open_.erase(it);
  return Change::kDone;
}

uint32_t ScopeTable::CurrentSlow(ThreadId thread) const {
  auto it = open_.find(thread);
  if (it == open_.end()) it = open_.find(last_opener_);
  return it == open_.end() ? 0 : it->second.back();
}

bool ScopeTable::Within(uint32_t scope, uint32_t outer) const {
  if (outer == 0) return true;
  for (uint32_t s = scope; s != 0 && s < paths_.size(); s = paths_[s].parent)
    if (s == outer) return true;
  return false;
}

std::string ScopeTable::Text(uint32_t scope, const SymbolTable& symbols) const {
  std::vector<uint32_t> chain;
  for (uint32_t s = scope; s != 0 && s < paths_.size(); s = paths_[s].parent) chain.push_back(s);
  std::string text;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!text.empty()) text += " > ";
    const std::string_view name = symbols.String(paths_[*it].name);
    text += name.empty() ? std::string_view("(unnamed scope)") : name;
  }
  return text;
}

size_t ScopeTable::OpenCount() const {
  size_t n = 0;
  for (const auto& [thread, stack] : open_) n += stack.size();
  return n;
}

}  // namespace streamcheck
