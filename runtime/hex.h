// "0x1f" formatting for addresses and handles in findings.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace streamcheck {

inline std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace streamcheck
