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

namespace {

// Whether the memory a pointer of this type points to is `qualifier` (const,
// volatile). Only the outermost pointer level matters: "float const*" and
// "const float*" point to const; "float* const" is a const pointer to
// writable memory; "float const* const*" points to writable pointers.
bool PointeeIs(std::string_view type, std::string_view qualifier) {
  if (type.empty() || type.back() != '*') return false;
  std::string_view pointee = type.substr(0, type.size() - 1);
  // Qualifiers written after the pointee's type, in any order ("float const volatile").
  for (;;) {
    while (!pointee.empty() && pointee.back() == ' ') pointee.remove_suffix(1);
    const size_t space = pointee.rfind(' ');
    const std::string_view last = space == std::string_view::npos ? pointee : pointee.substr(space + 1);
    if (last != "const" && last != "volatile") break;
    if (last == qualifier) return true;
    pointee.remove_suffix(last.size());
  }
  // Qualifiers written before it ("const volatile float"), with no pointer level between.
  if (pointee.find('*') != std::string_view::npos) return false;
  while (!pointee.empty()) {
    const size_t space = pointee.find(' ');
    const std::string_view first = pointee.substr(0, space);
    if (first == qualifier) return true;
    if (first != "const" && first != "volatile") return false;
    pointee = space == std::string_view::npos ? std::string_view() : pointee.substr(space + 1);
  }
  return false;
}

}  // namespace

AccessMode ModeOfParameter(std::string_view type) {
  return PointeeIs(type, "const") ? AccessMode::kRead : AccessMode::kUnknown;
}

bool PointsToVolatile(std::string_view type) { return PointeeIs(type, "volatile"); }

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
