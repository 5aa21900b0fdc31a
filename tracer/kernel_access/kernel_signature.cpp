#include "tracer/kernel_access/kernel_signature.h"

#include <cxxabi.h>

#include <cstdlib>

namespace streamcheck::tracer {

std::vector<std::string> ParameterTypes(std::string_view s) {
  std::vector<std::string> out;
  // The parameter list is the last top-level parenthesised group.
  if (s.empty() || s.back() != ')') return out;
  int depth = 0;
  size_t open = std::string_view::npos;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    else if (s[i] == '(' && --depth == 0) {
      open = i;
      break;
    }
  }
  if (open == std::string_view::npos) return out;
  std::string_view params = s.substr(open + 1, s.size() - open - 2);
  if (params.empty() || params == "void") return out;
  int nesting = 0;
  size_t start = 0;
  for (size_t i = 0; i <= params.size(); ++i) {
    const char c = i < params.size() ? params[i] : ',';
    if (c == '<' || c == '(' || c == '[') ++nesting;
    else if (c == '>' || c == ')' || c == ']') --nesting;
    else if (c == ',' && nesting == 0) {
      std::string_view p = params.substr(start, i - start);
      while (!p.empty() && p.front() == ' ') p.remove_prefix(1);
      while (!p.empty() && p.back() == ' ') p.remove_suffix(1);
      out.emplace_back(p);
      start = i + 1;
    }
  }
  return out;
}

AccessMode ModeOfParameter(std::string_view type) {
  // Only the outermost pointer level matters: "float const*" and
  // "const float*" point to const; "float* const" is a const pointer to
  // writable memory; "float const* const*" points to writable pointers.
  if (type.empty() || type.back() != '*') return AccessMode::kUnknown;
  std::string_view pointee = type.substr(0, type.size() - 1);
  while (!pointee.empty() && pointee.back() == ' ') pointee.remove_suffix(1);
  if (pointee.ends_with("const")) return AccessMode::kRead;
  if (pointee.starts_with("const ") && pointee.find('*') == std::string_view::npos) return AccessMode::kRead;
  return AccessMode::kUnknown;
}

std::string Demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string out(demangled);
  std::free(demangled);
  return out;
}

}  // namespace streamcheck::tracer
