/* The per-test scopes' C ABI (include/streamcheck/scope.h, docs/SCOPES.md),
 * exported by the preloaded library: it is there from the program's first
 * line, while the tracer arrives only when CUDA is initialized, often inside
 * the first test. Each thread's open scopes are kept here; the tracer, once
 * it registers its hooks (scope_hooks.h), hears of every call and asks for
 * what a thread opened before it came. Without a tracer the calls keep the
 * stack and do nothing else. Bad input never takes the program down: it is
 * answered with a code and a message on stderr. */
#define _GNU_SOURCE
#define STREAMCHECK_SCOPE_ABI_DEFINITION
#include "include/streamcheck/scope.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracer/preload/interpose.h"
#include "tracer/preload/scope_hooks.h"

/* A thread that opens scopes without closing them (a loop) keeps only this
 * many names; deeper ones are counted, so that their ends still balance. */
#define SCOPE_NAMES_KEPT 4096

typedef struct ScopeStack {
  size_t depth;    /* scopes open */
  size_t kept;     /* of those, the outermost whose names are in `names` (kept <= depth) */
  size_t capacity;
  char** names;
} ScopeStack;

static const StreamcheckScopeHooks* _Atomic g_hooks;
static __thread ScopeStack* t_scopes __attribute__((tls_model("initial-exec")));

/* The first few complaints: a test suite that ends every scope twice should
 * not bury its own output. */
static void Complain(const char* format, ...) {
  static _Atomic int complaints;
  const int n = atomic_fetch_add(&complaints, 1);
  if (n >= 8) return;
  char line[512];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  fprintf(stderr, "streamcheck: %s%s\n", line, n == 7 ? " (further scope messages are not shown)" : "");
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 when invalid:
 * no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t Utf8Sequence(const unsigned char* s, size_t n) {
  const unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t len;
  uint32_t min, cp;
  if ((c & 0xe0) == 0xc0) len = 2, min = 0x80, cp = c & 0x1f;
  else if ((c & 0xf0) == 0xe0) len = 3, min = 0x800, cp = c & 0x0f;
  else if ((c & 0xf8) == 0xf0) len = 4, min = 0x10000, cp = c & 0x07;
  else return 0;
  if (n < len) return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

enum { kPlaceholder = 1, kEscaped = 2, kShortened = 4 };

/* A copy of `name` fit to name a scope: valid UTF-8 (an invalid byte becomes
 * the four characters \xNN), at most STREAMCHECK_SCOPE_MAX_NAME bytes (cut at
 * a character, ending in "..."), never empty. *altered gets what was done
 * (kPlaceholder, kEscaped, kShortened); NULL when memory is exhausted. */
static char* CheckedName(const char* name, int* altered) {
  *altered = 0;
  if (name == NULL || name[0] == '\0') {
    *altered = kPlaceholder;
    return strdup(name == NULL ? "(null scope name)" : "(empty scope name)");
  }
  const unsigned char* s = (const unsigned char*)name;
  /* Past twice the limit the name is cut anyway: a huge one costs no more. */
  const size_t n = strnlen(name, 2 * STREAMCHECK_SCOPE_MAX_NAME);
  char* out = malloc(4 * n + 1);  /* every byte escaped, at worst */
  if (out == NULL) return NULL;
  size_t used = 0;
  for (size_t at = 0; at < n;) {
    const size_t len = Utf8Sequence(s + at, n - at);
    if (len) {
      memcpy(out + used, s + at, len);
      used += len;
      at += len;
    } else {
      snprintf(out + used, 5, "\\x%02x", s[at++]);
      used += 4;
      *altered |= kEscaped;
    }
  }
  if (used > STREAMCHECK_SCOPE_MAX_NAME) {
    used = STREAMCHECK_SCOPE_MAX_NAME - 3;
    while (used > 0 && ((unsigned char)out[used] & 0xc0) == 0x80) --used;  /* at a character's first byte */
    memcpy(out + used, "...", 3);
    used += 3;
    *altered |= kShortened;
  }
  out[used] = '\0';
  return out;
}

static ScopeStack* ThisThreadScopes(void) {
  if (t_scopes == NULL) t_scopes = calloc(1, sizeof(ScopeStack));
  return t_scopes;
}

/* Room for one more name; false when memory is exhausted. */
static int Reserve(ScopeStack* stack) {
  if (stack->kept < stack->capacity) return 1;
  const size_t capacity = stack->capacity ? stack->capacity * 2 : 8;
  char** grown = realloc(stack->names, capacity * sizeof(char*));
  if (grown == NULL) return 0;
  stack->names = grown;
  stack->capacity = capacity;
  return 1;
}

STREAMCHECK_EXPORT int streamcheck_scope_begin(const char* name) {
  int altered = 0;
  char* checked = CheckedName(name, &altered);
  ScopeStack* stack = ThisThreadScopes();
  if (checked == NULL || stack == NULL) {
    Complain("out of memory: a scope was not opened");
    free(checked);
    return STREAMCHECK_SCOPE_NAME_ALTERED;
  }
  if (altered)
    Complain("scope name %s: opened as \"%.200s\"",
             (altered & kPlaceholder) ? (name == NULL ? "NULL" : "empty")
             : (altered & kEscaped)   ? "not valid UTF-8 (invalid bytes escaped)"
                                      : "longer than 1024 bytes (shortened)",
             checked);
  const StreamcheckScopeHooks* hooks = atomic_load_explicit(&g_hooks, memory_order_acquire);
  if (hooks) hooks->begin(checked);
  // The names stay a prefix of the open scopes: past SCOPE_NAMES_KEPT, or
  // once one could not be kept, deeper ones are only counted.
  if (stack->kept == stack->depth && stack->depth < SCOPE_NAMES_KEPT && Reserve(stack)) {
    stack->names[stack->kept++] = checked;
  } else {
    if (stack->kept == stack->depth && stack->depth < SCOPE_NAMES_KEPT)
      Complain("out of memory: scope \"%.200s\" is not kept for the tracer", checked);
    free(checked);
  }
  ++stack->depth;
  return altered ? STREAMCHECK_SCOPE_NAME_ALTERED : STREAMCHECK_SCOPE_OK;
}

STREAMCHECK_EXPORT int streamcheck_scope_end(void) {
  ScopeStack* stack = t_scopes;
  const int none_open = stack == NULL || stack->depth == 0;
  const StreamcheckScopeHooks* hooks = atomic_load_explicit(&g_hooks, memory_order_acquire);
  if (hooks) hooks->end();
  if (none_open) {
    Complain("streamcheck_scope_end() with no scope open on this thread (ended twice?): nothing closed");
    return STREAMCHECK_SCOPE_NONE_OPEN;
  }
  --stack->depth;
  if (stack->kept > stack->depth) free(stack->names[--stack->kept]);
  return STREAMCHECK_SCOPE_OK;
}

STREAMCHECK_EXPORT long streamcheck_scope_errors(char* text, size_t size) {
  const StreamcheckScopeHooks* hooks = atomic_load_explicit(&g_hooks, memory_order_acquire);
  if (hooks) return hooks->errors(text, size);
  if (text != NULL && size > 0) text[0] = '\0';
  return 0;  /* no tracer yet: no CUDA call, no finding */
}

STREAMCHECK_EXPORT int streamcheck_scope_traced(void) {
  return atomic_load_explicit(&g_hooks, memory_order_acquire) ? STREAMCHECK_SCOPE_TRACING : STREAMCHECK_SCOPE_WAITING;
}

STREAMCHECK_EXPORT void streamcheck_set_scope_hooks(const StreamcheckScopeHooks* hooks) {
  atomic_store_explicit(&g_hooks, hooks, memory_order_release);
}

STREAMCHECK_EXPORT size_t streamcheck_open_scopes(const char** names, size_t max) {
  const ScopeStack* stack = t_scopes;
  if (stack == NULL) return 0;
  for (size_t i = 0; i < stack->kept && i < max; ++i) names[i] = stack->names[i];
  return stack->kept;
}
