// Run by exit_hook_test.cpp: registers an exit hook the way the tracer does
// (streamcheck_set_exit_hook, found when tracer/preload/exit_hook.c is preloaded),
// then ends with _exit(5), or _Exit(6) when its argument says so.
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  using SetExitHook = void (*)(void (*)());
  auto set = reinterpret_cast<SetExitHook>(dlsym(RTLD_DEFAULT, "streamcheck_set_exit_hook"));
  if (set == nullptr) {
    const char message[] = "no hook\n";
    (void)!write(1, message, sizeof message - 1);
    _exit(2);
  }
  set([] {
    const char message[] = "hook ran\n";
    (void)!write(1, message, sizeof message - 1);
  });
  if (argc > 1 && std::strcmp(argv[1], "_Exit") == 0) _Exit(6);
  _exit(5);
}
