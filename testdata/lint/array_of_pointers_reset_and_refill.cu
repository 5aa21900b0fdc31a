// An allocator resetting an array of chunk pointers (free each in a loop)
// and refilling it through a running count, as ggml's ggml-alloc.c does:
// reading a chunk after the refill is fine, even when the refill happens
// deeper in helpers than the lint follows (a call it does not follow may
// allocate again what its arguments lead to); reading one after a loop that
// only frees them uses freed memory.
#include <cuda_runtime.h>
#include <cstdlib>

struct Chunk { size_t max_size; };
struct Allocator {
  Chunk* chunks[16];
  int n_chunks;
};

static void reset(Allocator* alloc) {
  for (int i = 0; i < 16; i++) {
    free(alloc->chunks[i]);
    alloc->chunks[i] = NULL;
  }
  alloc->n_chunks = 0;
}

static int add_chunk(Allocator* alloc, size_t size) {
  Chunk* chunk = (Chunk*)calloc(1, sizeof(Chunk));
  chunk->max_size = size;
  alloc->chunks[alloc->n_chunks] = chunk;
  alloc->n_chunks++;
  return alloc->n_chunks - 1;
}

size_t fixed(Allocator* alloc) {
  reset(alloc);
  add_chunk(alloc, 4096);
  return alloc->chunks[0]->max_size;
}

static void grow3(Allocator* alloc) { add_chunk(alloc, 1024); }
static void grow2(Allocator* alloc) { grow3(alloc); }
static void grow1(Allocator* alloc) { grow2(alloc); }

size_t fixed_deep(Allocator* alloc) {
  reset(alloc);
  grow1(alloc);
  return alloc->chunks[0]->max_size;
}

static void release(Allocator* alloc) {
  for (int i = 0; i < alloc->n_chunks; i++) free(alloc->chunks[i]);
}

size_t racy(Allocator* alloc) {
  release(alloc);
  return alloc->chunks[0]->max_size;  // expected-warning:10{{use-after-free}}
}
