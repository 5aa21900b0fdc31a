/* Runs mpi_program.c's calls (run_mpi_program, or the function `argv[4]`
 * names), loaded as `argv[1]` says ("global" or "local", as Python loads
 * mpi4py), and prints what the interposers
 * (tracer/preload/mpi_interposers.c, when preloaded) tell hooks registered
 * here as the tracer would: with "unhooked" none are registered. */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tracer/preload/library_hooks.h"

static void OnNcclCall(const StreamcheckNcclCall* c) { (void)c; }

static void OnEnter(StreamcheckMpiCall* c) {
  printf("enter %s kind=%d", c->name, c->kind);
  for (int i = 0; i < c->buffer_count; ++i)
    printf(" buffer=%#" PRIx64 "+%" PRIu64 ":%d", c->buffers[i].address, c->buffers[i].size, c->buffers[i].mode);
  for (int i = 0; i < c->request_count; ++i) printf(" request=%#" PRIx64, c->requests[i]);
  printf("\n");
}
static void OnLeave(StreamcheckMpiCall* c) {
  printf("leave %s result=%d", c->name, c->result);
  if (c->new_request != 0) printf(" new_request=%#" PRIx64, c->new_request);
  for (int i = 0; c->completed != NULL && i < c->request_count; ++i) printf(" completed=%d", c->completed[i]);
  printf("\n");
}

static const StreamcheckLibraryHooks kHooks = {STREAMCHECK_LIBRARY_HOOKS_VERSION, OnNcclCall, OnNcclCall, OnEnter,
                                               OnLeave};

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) return 2;
  StreamcheckSetLibraryHooks set = (StreamcheckSetLibraryHooks)dlsym(RTLD_DEFAULT, "streamcheck_set_library_hooks");
  printf("preloaded: %s\n", set ? "yes" : "no");
  /* A process without MPI must not appear to have it. */
  printf("MPI_Init visible: %s\n", dlsym(RTLD_DEFAULT, "MPI_Init") ? "yes" : "no");
  if (set && strcmp(argv[3], "hooked") == 0) set(&kHooks);
  void* program = dlopen(argv[2], RTLD_NOW | (strcmp(argv[1], "global") == 0 ? RTLD_GLOBAL : RTLD_LOCAL));
  if (program == NULL) {
    printf("cannot load %s: %s\n", argv[2], dlerror());
    return 3;
  }
  int (*run)(void) = (int (*)(void))dlsym(program, argc == 5 ? argv[4] : "run_mpi_program");
  if (run == NULL) return 4;
  int (*calls)(void) = (int (*)(void))dlsym(program, "fake_mpi_calls");
  const int rc = run();
  printf("calls that reached mpi: %d\n", calls ? calls() : -1);
  return rc;
}
