/* streamcheck's per-test scopes: mark which test (or phase, or request) the
 * calling thread is in, so that every finding names the scopes of both of
 * its sides (docs/SCOPES.md).
 *
 *   #include <streamcheck/scope.h>
 *
 *   streamcheck_scope_begin("Suite.Test");
 *   ... CUDA work: it belongs to the scope even when the device runs it later ...
 *   char text[4096];
 *   if (streamcheck_scope_errors(text, sizeof text) > 0) fail(text);
 *   streamcheck_scope_end();
 *
 * Header-only and safe everywhere: nothing to link (glibc 2.34 or later has
 * dlsym in libc; older ones need -ldl). Under `streamcheck run` the functions
 * reach the preloaded libstreamcheck_preload.so, which exports the same names;
 * anywhere else each call is a no-op returning STREAMCHECK_SCOPE_NOT_TRACED
 * (or 0 findings). The preloaded library is there from the program's first
 * line, so a scope opened before CUDA is initialized (and the tracer loaded)
 * still holds the work issued in it.
 *
 * Scopes nest as a stack per host thread: an operation belongs to the path of
 * the scopes open on its thread ("Suite.Test > warm-up"). Bad input is an
 * error code and a message on stderr, never a crash nor a lost finding: a
 * name that is not UTF-8 is escaped (each invalid byte as \xNN), an empty or
 * NULL one replaced, one over 1024 bytes shortened; an end with no scope open
 * closes nothing. */
#ifndef STREAMCHECK_SCOPE_H_
#define STREAMCHECK_SCOPE_H_

#include <stddef.h>

#define STREAMCHECK_SCOPE_OK 0
/* No streamcheck in this process (not run under `streamcheck run`): nothing done. */
#define STREAMCHECK_SCOPE_NOT_TRACED 1
/* streamcheck_scope_begin: opened, under an escaped, shortened or placeholder name. */
#define STREAMCHECK_SCOPE_NAME_ALTERED 2
/* streamcheck_scope_end: the calling thread had no scope open; nothing was closed. */
#define STREAMCHECK_SCOPE_NONE_OPEN (-1)

/* Longest scope name kept, in bytes (longer ones are cut at a character boundary). */
#define STREAMCHECK_SCOPE_MAX_NAME 1024

/* streamcheck_scope_traced: */
#define STREAMCHECK_SCOPE_UNTRACED 0     /* not under streamcheck */
#define STREAMCHECK_SCOPE_WAITING 1      /* under streamcheck, CUDA not initialized yet: scopes are kept */
#define STREAMCHECK_SCOPE_TRACING 2      /* the tracer is observing this process */

#ifdef STREAMCHECK_SCOPE_ABI_DEFINITION
/* The preloaded library's definitions (tracer/preload/scopes.c). */
#ifdef __cplusplus
extern "C" {
#endif
int streamcheck_scope_begin(const char* name);
int streamcheck_scope_end(void);
long streamcheck_scope_errors(char* text, size_t size);
int streamcheck_scope_traced(void);
#ifdef __cplusplus
}
#endif

#else /* the program's side */

#include <dlfcn.h>

/* The preloaded library's function `name`, looked up once per translation
 * unit (`*cache`); NULL without streamcheck. */
static inline void* streamcheck_scope_function_(const char* name, void** cache, int* looked) {
  if (!__atomic_load_n(looked, __ATOMIC_ACQUIRE)) {
    __atomic_store_n(cache, dlsym(RTLD_DEFAULT, name), __ATOMIC_RELAXED);
    __atomic_store_n(looked, 1, __ATOMIC_RELEASE);
  }
  return __atomic_load_n(cache, __ATOMIC_RELAXED);
}

#define STREAMCHECK_SCOPE_FUNCTION_(name) \
  static void* cache_ = 0;                \
  static int looked_ = 0;                 \
  void* const fn_ = streamcheck_scope_function_(name, &cache_, &looked_)

/* Opens the scope `name` (UTF-8) on the calling thread, inside the one it is in. */
static inline int streamcheck_scope_begin(const char* name) {
  STREAMCHECK_SCOPE_FUNCTION_("streamcheck_scope_begin");
  typedef int (*Begin)(const char*);
  return fn_ ? ((Begin)fn_)(name) : STREAMCHECK_SCOPE_NOT_TRACED;
}

/* Closes the calling thread's innermost scope. */
static inline int streamcheck_scope_end(void) {
  STREAMCHECK_SCOPE_FUNCTION_("streamcheck_scope_end");
  typedef int (*End)(void);
  return fn_ ? ((End)fn_)() : STREAMCHECK_SCOPE_NOT_TRACED;
}

/* Waits until the analysis has caught up with every CUDA call made so far,
 * then returns how many findings of severity error occurred inside the
 * calling thread's innermost scope (and scopes nested in it; with none open,
 * anywhere) since the last call that reported them: each occurrence is
 * reported once. `text` (when `size` > 0) gets their headlines, the scopes of
 * their sides and their fixes, NUL-terminated and cut to `size`. 0 when not
 * traced. A race is reported where its later side happens: a buffer left in
 * flight by one test and reused by the next fails the next, naming the first. */
static inline long streamcheck_scope_errors(char* text, size_t size) {
  STREAMCHECK_SCOPE_FUNCTION_("streamcheck_scope_errors");
  typedef long (*Errors)(char*, size_t);
  if (fn_) return ((Errors)fn_)(text, size);
  if (text && size) text[0] = '\0';
  return 0;
}

/* STREAMCHECK_SCOPE_UNTRACED, _WAITING or _TRACING. */
static inline int streamcheck_scope_traced(void) {
  STREAMCHECK_SCOPE_FUNCTION_("streamcheck_scope_traced");
  typedef int (*Traced)(void);
  return fn_ ? ((Traced)fn_)() : STREAMCHECK_SCOPE_UNTRACED;
}

#undef STREAMCHECK_SCOPE_FUNCTION_

#ifdef __cplusplus
#include <string>

namespace streamcheck {

// A scope for the lifetime of the object:
//   { streamcheck::Scope scope("Suite.Test"); ... }
class Scope {
 public:
  explicit Scope(const char* name) { streamcheck_scope_begin(name); }
  explicit Scope(const std::string& name) : Scope(name.c_str()) {}
  ~Scope() { streamcheck_scope_end(); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  // streamcheck_scope_errors: the error findings of this scope so far, in words; "" when none.
  static std::string Errors() {
    std::string text(64 * 1024, '\0');
    if (streamcheck_scope_errors(&text[0], text.size()) <= 0) return {};
    text.resize(text.find('\0'));
    return text;
  }
};

}  // namespace streamcheck
#endif /* __cplusplus */

#endif /* STREAMCHECK_SCOPE_ABI_DEFINITION */

#endif /* STREAMCHECK_SCOPE_H_ */
