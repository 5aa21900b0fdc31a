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
  // `library`: the library whose code made the call the stack was taken at
  // (kDefineStack's library field; 0 for the program's own calls).
  // `object`: the path of the object (executable or shared library) whose
  // code made it (kDefineStack's name field; 0 when not known).
  void DefineStack(StackId id, std::vector<StackFrame> frames, StringId library = 0, StringId object = 0);
  StringId LibraryOfStack(StackId id) const;
  StringId ObjectOfStack(StackId id) const;
  // Empty when undefined.
  std::string_view String(StringId id) const;
  std::vector<ResolvedFrame> ResolveStack(StackId id) const;

 private:
  std::vector<std::string> strings_;
  std::unordered_map<StackId, std::vector<StackFrame>> stacks_;
  std::unordered_map<StackId, StringId> stack_library_;  // stacks taken in a library's code only
  std::unordered_map<StackId, StringId> stack_object_;   // stacks whose calling object is known
};

}  // namespace streamcheck
