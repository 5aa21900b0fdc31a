/* A library that imports pthread's locks as the CUDA driver does, for
 * sync_call_rebinding_test.cpp: built twice, with its GOT read-only after
 * relocation (-z relro -z now) and writable with lazy binding (-z norelro). */
#include <pthread.h>

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Takes and gives back its lock once. */
__attribute__((visibility("default"))) int rebind_target_lock_once(void) {
  if (pthread_mutex_lock(&g_mutex) != 0) return -1;
  return pthread_mutex_unlock(&g_mutex);
}

/* The address it would call for pthread_mutex_lock (a GOT entry of its own). */
__attribute__((visibility("default"))) void* rebind_target_lock_address(void) {
  return (void*)&pthread_mutex_lock;
}
