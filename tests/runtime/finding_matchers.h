#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/finding.h"

namespace streamcheck::testing {

inline size_t CountRule(const std::vector<Finding>& fs, const std::string& rule) {
  return std::count_if(fs.begin(), fs.end(), [&](const Finding& f) { return f.rule == rule; });
}

inline const Finding* FindRule(const std::vector<Finding>& fs, const std::string& rule) {
  for (const Finding& f : fs)
    if (f.rule == rule) return &f;
  return nullptr;
}

inline std::string Summary(const std::vector<Finding>& fs) {
  std::string out;
  for (const Finding& f : fs) out += f.rule + " " + std::string(FindingKindName(f.kind)) + ": " + f.message + "\n";
  return out;
}

}  // namespace streamcheck::testing
