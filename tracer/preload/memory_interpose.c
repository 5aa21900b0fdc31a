/* The program's own changes to its mappings, for the tracer's guard pages
 * (preload_hooks.h): before mprotect(), pkey_mprotect(), munmap(), mremap()
 * or a MAP_FIXED mmap() runs, the tracer hears of the range, and leaves its
 * pages to the program from then on: it never guards them again, and never
 * gives back access the program took away. The CUDA driver's own calls
 * (cudaFreeHost unmaps) come this way too. Until a tracer attaches, each
 * call goes straight to libc. Not seen: the raw system calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <sys/mman.h>

#include "preload_hooks.h"

const StreamcheckPreloadHooks* streamcheck_preload_hooks(void);

static void Changing(void* addr, size_t len) {
  const StreamcheckPreloadHooks* hooks = streamcheck_preload_hooks();
  if (hooks && hooks->memory_changing) hooks->memory_changing(addr, len);
}

typedef int (*MprotectFn)(void*, size_t, int);
typedef int (*PkeyMprotectFn)(void*, size_t, int, int);
typedef int (*MunmapFn)(void*, size_t);
typedef void* (*MremapFn)(void*, size_t, size_t, int, ...);
typedef void* (*MmapFn)(void*, size_t, int, int, int, off_t);

/* libc's function, found on first use. */
#define REAL(name, type) \
  static type real_##name; \
  if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

__attribute__((visibility("default"))) int mprotect(void* addr, size_t len, int prot) {
  REAL(mprotect, MprotectFn);
  Changing(addr, len);
  return real_mprotect(addr, len, prot);
}

__attribute__((visibility("default"))) int pkey_mprotect(void* addr, size_t len, int prot, int pkey) {
  REAL(pkey_mprotect, PkeyMprotectFn);
  Changing(addr, len);
  return real_pkey_mprotect(addr, len, prot, pkey);
}

__attribute__((visibility("default"))) int munmap(void* addr, size_t len) {
  REAL(munmap, MunmapFn);
  Changing(addr, len);
  return real_munmap(addr, len);
}

__attribute__((visibility("default"))) void* mremap(void* old, size_t old_size, size_t new_size, int flags, ...) {
  REAL(mremap, MremapFn);
  void* new_address = NULL;
  if (flags & MREMAP_FIXED) {
    va_list args;
    va_start(args, flags);
    new_address = va_arg(args, void*);
    va_end(args);
    Changing(new_address, new_size);
  }
  Changing(old, old_size);
  return (flags & MREMAP_FIXED) ? real_mremap(old, old_size, new_size, flags, new_address)
                                : real_mremap(old, old_size, new_size, flags);
}

__attribute__((visibility("default"))) void* mmap(void* addr, size_t len, int prot, int flags, int fd, off_t offset) {
  REAL(mmap, MmapFn);
  if (flags & MAP_FIXED) Changing(addr, len);
  return real_mmap(addr, len, prot, flags, fd, offset);
}

__attribute__((visibility("default"))) void* mmap64(void* addr, size_t len, int prot, int flags, int fd, off_t offset) {
  return mmap(addr, len, prot, flags, fd, offset);
}
