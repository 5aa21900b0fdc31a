#include "cli/exit_code.h"

namespace streamcheck::cli {
namespace {
int g_exit_code = kExitOk;
}  // namespace

int ExitCode() { return g_exit_code; }
void SetExitCode(int code) { g_exit_code = code; }

}  // namespace streamcheck::cli
