// Helpers defined in launchers.cu and called from main.cu: the lint sees their
// bodies only in launchers.cu, and applies what they do (their summaries) at
// the calls in main.cu.
#pragma once
#include <cuda_runtime.h>

void launch_produce(float* d, int n, cudaStream_t s);              // queues a kernel writing d on s
void copy_back(float* h, const float* d, int n, cudaStream_t s);   // queues a copy of d into h on s
void finish(cudaStream_t s);                                       // waits for s
void produce_and_wait(float* d, int n, cudaStream_t s);            // queues, then waits
// queues a kernel on rows [first, last) of out, atomically adding into *sum
void launch_rows(float* out, const float* in, float* sum, int first, int last, int nx, cudaStream_t s);
// -1 for host memory, else the device p lives on (cudaPointerGetAttributes only)
int device_of(const void* p);
// copies n floats of src into dst on a stream of its own: waits when dst is host
// memory, leaves the copy queued when it is device memory
void fetch_results(float* dst, const float* src, int n);

// Event wrappers (popsift's common/debug_macros.cu): a record and a wait the
// summaries carry to the caller.
void record_on(cudaEvent_t ev, cudaStream_t s);
void wait_on(cudaEvent_t ev, cudaStream_t s);

// Copies n floats of h to d on s (darknet's cuda_push_array shape): what h
// is, the caller knows.
void push_to(float* d, const float* h, int n, cudaStream_t s);

// One stream behind a getter of no arguments (darknet's get_cuda_stream),
// made on first use; a push and a pull on it, the pull waiting for it.
cudaStream_t shared_stream();
void push_on_shared(float* d, const float* h, int n);
void pull_on_shared(float* h, const float* d, int n);

// Allocators of another file (darknet's xcalloc, cuda_make_host_array): what
// they return is a fresh pageable or pinned buffer.
float* host_floats(int n);
float* pinned_floats(int n);
