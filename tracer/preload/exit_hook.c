/* Preloaded by `streamcheck run` (LD_PRELOAD) into the programs it starts.
 * A program that ends with _exit() or _Exit() (Python's os._exit, a forked
 * worker, a test harness) runs no exit handler, and the tracer analyses CUDA
 * calls on a thread of its own: records queued since the program's last
 * synchronization would be lost. The tracer, loaded later by CUDA, registers
 * a hook here that finishes that work first. C and tiny: it is loaded into
 * every process the program starts, CUDA or not, and does nothing until a
 * tracer registers. */
#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>

static void (*volatile g_before_exit)(void);

__attribute__((visibility("default"))) void streamcheck_set_exit_hook(void (*hook)(void)) { g_before_exit = hook; }

static _Noreturn void ExitNow(int status) {
  void (*hook)(void) = g_before_exit;
  if (hook) hook();
  for (;;) syscall(SYS_exit_group, status);
}

__attribute__((visibility("default"))) void _exit(int status) { ExitNow(status); }
__attribute__((visibility("default"))) void _Exit(int status) { ExitNow(status); }
