/* A full disk where a test cannot mount a small one (a container without the
 * right to mount): preloaded into the command under test, it fails writes to
 * files under $STREAMCHECK_TEST_FULL_DIR with ENOSPC once
 * $STREAMCHECK_TEST_FULL_AFTER bytes have been written there. SQLite (linked
 * into streamcheck) and the output files both write through these calls. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long long g_written = 0;

/* Whether this write goes to the full disk and no longer fits. */
static int Full(int fd, size_t bytes) {
  const char* dir = getenv("STREAMCHECK_TEST_FULL_DIR");
  const char* after = getenv("STREAMCHECK_TEST_FULL_AFTER");
  if (dir == NULL || after == NULL) return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  const ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = '\0';
  if (strncmp(path, dir, strlen(dir)) != 0) return 0;
  if (g_written + (long long)bytes > atoll(after)) return 1;
  g_written += (long long)bytes;
  return 0;
}

#define NEXT(name, type) ((type)dlsym(RTLD_NEXT, name))

ssize_t write(int fd, const void* data, size_t bytes) {
  if (Full(fd, bytes)) return errno = ENOSPC, -1;
  return NEXT("write", ssize_t (*)(int, const void*, size_t))(fd, data, bytes);
}
ssize_t pwrite(int fd, const void* data, size_t bytes, off_t at) {
  if (Full(fd, bytes)) return errno = ENOSPC, -1;
  return NEXT("pwrite", ssize_t (*)(int, const void*, size_t, off_t))(fd, data, bytes, at);
}
ssize_t pwrite64(int fd, const void* data, size_t bytes, off_t at) {
  if (Full(fd, bytes)) return errno = ENOSPC, -1;
  return NEXT("pwrite64", ssize_t (*)(int, const void*, size_t, off_t))(fd, data, bytes, at);
}
ssize_t writev(int fd, const struct iovec* parts, int count) {
  size_t bytes = 0;
  for (int i = 0; i < count; ++i) bytes += parts[i].iov_len;
  if (Full(fd, bytes)) return errno = ENOSPC, -1;
  return NEXT("writev", ssize_t (*)(int, const struct iovec*, int))(fd, parts, count);
}
