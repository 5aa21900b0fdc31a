// What the process may do with the page at an address now, as
// /proc/self/maps says: its permissions ("r--p", "rw-p", ...), or "" where
// nothing is mapped. For tests that check protections the code under test
// changed.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace streamcheck::testing {

inline std::string MappedPermissions(uintptr_t address) {
  FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return "";
  char line[512];
  std::string found;
  while (found.empty() && std::fgets(line, sizeof line, maps) != nullptr) {
    unsigned long low = 0, high = 0;
    char perms[5] = {};
    if (std::sscanf(line, "%lx-%lx %4s", &low, &high, perms) == 3 && low <= address && address < high) found = perms;
  }
  std::fclose(maps);
  return found;
}

}  // namespace streamcheck::testing
