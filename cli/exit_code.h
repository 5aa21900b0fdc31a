// Subcommands run inside CLI11 callbacks; they leave their exit code here.
#pragma once

namespace streamcheck::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitUsage = 2;

int ExitCode();
void SetExitCode(int code);

}  // namespace streamcheck::cli
