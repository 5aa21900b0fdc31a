/* Runs nccl_program.c's calls, loaded as `argv[1]` says ("global": into the
 * global scope, "local": into a scope of its own, as Python extensions
 * are), and prints what the interposers (tracer/preload/nccl_interposers.c,
 * when preloaded) tell hooks registered here as the tracer would: with
 * "unhooked" none are registered. */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tracer/preload/library_hooks.h"

static void OnEnter(const StreamcheckNcclCall* c) {
  printf("enter %s function=%d", c->name, c->function);
  if (c->function != STREAMCHECK_NCCL_OTHER && c->function < STREAMCHECK_NCCL_GROUP_START)
    printf(" send=%#" PRIx64 " recv=%#" PRIx64 " count=%" PRIu64 " type=%d root=%d stream=%#" PRIx64
           " nranks=%d rank=%d device=%d",
           c->sendbuff, c->recvbuff, c->count, c->datatype, c->root, c->stream, c->nranks, c->rank, c->device);
  printf("\n");
}
static void OnLeave(const StreamcheckNcclCall* c) { printf("leave %s result=%d\n", c->name, c->result); }

static const StreamcheckLibraryHooks kHooks = {
    .version = STREAMCHECK_LIBRARY_HOOKS_VERSION, .nccl_enter = OnEnter, .nccl_leave = OnLeave};

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const char* scope = argv[1];
  const char* program_path = argv[2];
  const int hooked = strcmp(argv[3], "hooked") == 0;
  StreamcheckSetLibraryHooks set = (StreamcheckSetLibraryHooks)dlsym(RTLD_DEFAULT, "streamcheck_set_library_hooks");
  printf("preloaded: %s\n", set ? "yes" : "no");
  if (set && hooked) set(&kHooks);
  void* program = dlopen(program_path, RTLD_NOW | (strcmp(scope, "global") == 0 ? RTLD_GLOBAL : RTLD_LOCAL));
  if (program == NULL) {
    printf("cannot load %s: %s\n", program_path, dlerror());
    return 3;
  }
  int (*run)(void) = (int (*)(void))dlsym(program, "run_nccl_program");
  int (*calls)(void) = (int (*)(void))dlsym(program, "fake_nccl_calls");
  const int rc = run();
  printf("calls that reached nccl: %d\n", calls ? calls() : -1);
  return rc;
}
