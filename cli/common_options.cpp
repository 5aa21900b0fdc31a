#include "cli/common_options.h"

#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include <string>

namespace streamcheck::cli {

void AddErrorExitCodeOption(CLI::App* command, int* code, const char* otherwise) {
  // 0-255: a larger code is taken modulo 256 by the shell (300 became 44).
  // Not 2: that says a usage or input error, and CI could not tell the two.
  const CLI::Validator not_two(
      [](std::string& value) {
        return value == "2" ? std::string("2 means a usage or input error; use 1 or 3-255 for findings") : std::string();
      },
      "NOT 2");
  command
      ->add_option("--error-exitcode", *code,
                   std::string("exit with N (1 or 3-255, e.g. 1) when there are findings (default 0: ") + otherwise +
                       "; 2 is a usage or input error)")
      ->check(CLI::Range(0, 255) & not_two);
}

void AddBusyTimeoutOption(CLI::App* command, int* milliseconds) {
  command
      ->add_option("--busy-timeout", *milliseconds,
                   "milliseconds to wait for another process's lock on the database before giving up (the "
                   "message then says it was locked)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

void AddColorOption(CLI::App* command, std::string* mode) {
  command->add_option("--color", *mode,
                      "colour the text report: auto (a terminal, unless NO_COLOR is set), always or never")
      ->check(CLI::IsMember({"auto", "always", "never"}))
      ->capture_default_str();
}

bool ColorWanted(const std::string& mode, int fd) {
  if (mode == "always") return true;
  if (mode == "never") return false;
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color != nullptr && no_color[0] != '\0') return false;
  const char* term = std::getenv("TERM");
  if (term != nullptr && std::string_view(term) == "dumb") return false;
  return ::isatty(fd) == 1;
}

}  // namespace streamcheck::cli
