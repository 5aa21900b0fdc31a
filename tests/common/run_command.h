// Runs a shell command for a test and keeps what it printed and how it ended.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace streamcheck::testing {

struct CommandResult {
  int exit_code = -1;  // -1: it did not exit normally (a signal), or did not start
  std::string output;  // stdout (append 2>&1 to the command for stderr too)
};

inline CommandResult RunCommand(const std::string& command) {
  CommandResult r;
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace streamcheck::testing
