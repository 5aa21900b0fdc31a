/* Between the preloaded library's scope ABI (scopes.c, the functions of
 * include/streamcheck/scope.h) and the tracer (tracer/scopes/): the library
 * keeps each thread's open scopes from the program's first line; the tracer,
 * loaded by CUDA later, registers these hooks and from then on hears of every
 * begin, end and query, and asks a thread it meets for the first time which
 * scopes it opened before (streamcheck_open_scopes). Plain C, as the rest of
 * the preloaded library. */
#ifndef STREAMCHECK_TRACER_PRELOAD_SCOPE_HOOKS_H_
#define STREAMCHECK_TRACER_PRELOAD_SCOPE_HOOKS_H_

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct StreamcheckScopeHooks {
  /* The calling thread opens `name` (valid UTF-8, checked by the library),
   * before the library adds it to the thread's stack. */
  void (*begin)(const char* name);
  /* The calling thread closes its innermost scope, before the library drops
   * it (one with none open too: the engine counts it as an anomaly). */
  void (*end)(void);
  /* streamcheck_scope_errors. */
  long (*errors)(char* text, size_t size);
} StreamcheckScopeHooks;

/* Exported by the preloaded library; found with dlsym(RTLD_DEFAULT, ...).
 * `hooks` must outlive the process (null: none from now on). */
void streamcheck_set_scope_hooks(const StreamcheckScopeHooks* hooks);
/* The calling thread's open scopes, outermost first: fills up to `max` of
 * `names` (valid until the thread closes them) and returns how many it has. */
size_t streamcheck_open_scopes(const char** names, size_t max);

#ifdef __cplusplus
}
#endif

#endif /* STREAMCHECK_TRACER_PRELOAD_SCOPE_HOOKS_H_ */
