/* The interface between the tracer and a framework plugin (PyTorch's is
 * tracer/pytorch/). The tracer loads the plugin when the framework is in the
 * process and hands it these functions; the plugin calls them from the
 * framework's own hooks (op observers, its caching allocator). Plain C types,
 * so the two sides share no C++ ABI: the plugin is built against the
 * framework's toolchain, the tracer against ours. */
#ifndef STREAMCHECK_TRACER_FRAMEWORK_HOOKS_H_
#define STREAMCHECK_TRACER_FRAMEWORK_HOOKS_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define STREAMCHECK_FRAMEWORK_HOOKS_VERSION 3

/* A stack argument saying "none, and none worth capturing here": work on a
 * framework's own threads (autograd's engine) whose native frames are the
 * framework's alone. The tracer then takes no native stack for it, which
 * would cost microseconds per operation and tell the user nothing. */
#define STREAMCHECK_STACK_NONE 0xffffffffu

/* Bytes an op reads or writes through one tensor argument: [begin, end). */
typedef struct StreamcheckTensorRegion {
  uint64_t begin;
  uint64_t end;
  uint8_t writes; /* the op's schema marks the argument as written */
} StreamcheckTensorRegion;

/* One frame of a framework-level (Python) stack, innermost first. */
typedef struct StreamcheckFrame {
  const char* function;
  const char* file;
  uint32_t line;
} StreamcheckFrame;

typedef enum StreamcheckBlockEvent {
  STREAMCHECK_BLOCK_ALLOCATED = 1, /* the allocator handed a block to `stream` */
  STREAMCHECK_BLOCK_FREED = 2,     /* the block is back for reuse in `stream`'s order */
} StreamcheckBlockEvent;

typedef struct StreamcheckFrameworkHooks {
  uint32_t version;
  /* An id for `text` (op names); stable for the process. */
  uint32_t (*intern_string)(const char* text);
  /* An id for a stack of `count` frames; the same frames give the same id. */
  uint32_t (*intern_stack)(const StreamcheckFrame* frames, size_t count);
  /* An op starts / ends on the calling thread. Work the op issues (kernels,
   * copies) is attributed to the outermost open op, carries its stack (0:
   * none, the tracer captures a native one; STREAMCHECK_STACK_NONE), and
   * touches the regions' bytes instead of what pointer arguments suggest.
   * The regions are copied. */
  void (*op_begin)(uint32_t name, uint32_t stack, const StreamcheckTensorRegion* regions, size_t count);
  void (*op_end)(void);
  /* A block of the framework's caching allocator (inside memory it got from
   * cudaMalloc) changes hands. `stream` is a cudaStream_t; `stack` as for
   * op_begin (inside an op, the op's stack is used). */
  void (*block_event)(StreamcheckBlockEvent event, uint64_t address, uint64_t size, uint64_t stream, int device,
                      uint32_t stack);
  /* Nonzero when host bytes in [begin, end) may be guarded: pinned or
   * registered memory whose host accesses the tracer observes and names
   * after the open op. Lock-free; a plugin may call it for every op. */
  int (*may_guard_host)(uint64_t begin, uint64_t end);
} StreamcheckFrameworkHooks;

/* Exported by a plugin: returns 0 when attached, else nonzero with `why` set. */
typedef int (*StreamcheckFrameworkAttach)(const StreamcheckFrameworkHooks* hooks, const char** why);

#ifdef __cplusplus
}
#endif

#endif /* STREAMCHECK_TRACER_FRAMEWORK_HOOKS_H_ */
