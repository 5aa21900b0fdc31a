#include "cli/common_options.h"

#include <string>

namespace streamcheck::cli {

void AddErrorExitCodeOption(CLI::App* command, int* code, const char* otherwise) {
  // 0-255: a larger code is taken modulo 256 by the shell (300 became 44).
  command
      ->add_option("--error-exitcode", *code,
                   std::string("exit with N (1-255, e.g. 1) when there are findings (default 0: ") + otherwise + ")")
      ->check(CLI::Range(0, 255));
}

void AddBusyTimeoutOption(CLI::App* command, int* milliseconds) {
  command
      ->add_option("--busy-timeout", *milliseconds,
                   "milliseconds to wait for another process's lock on the database before giving up (the "
                   "message then says it was locked)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

}  // namespace streamcheck::cli
