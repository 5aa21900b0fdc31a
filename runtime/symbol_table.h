// Strings and stacks defined by kDefineString / kDefineStack records.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/finding.h"
#include "runtime/trace_record.h"

namespace streamcheck {

class SymbolTable {
 public:
  void DefineString(StringId id, std::string text);
  void DefineStack(StackId id, std::vector<StackFrame> frames);
  // Empty when undefined.
  std::string_view String(StringId id) const;
  std::vector<ResolvedFrame> ResolveStack(StackId id) const;

 private:
  std::vector<std::string> strings_;
  std::unordered_map<StackId, std::vector<StackFrame>> stacks_;
};

}  // namespace streamcheck
