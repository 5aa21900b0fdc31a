// nvcc-flags: -lcuda
// A module unloaded and another loaded in its place, as XLA's autotuner does
// for each candidate kernel: the driver may hand the new kernel the handle
// of the unloaded one, whose parameter layout (one pointer) is not the new
// kernel's (an int, then the pointer it writes, then a count). Decoded with
// the old layout the launch's pointer goes unseen (or, where the old kernel
// had more parameters, words are read past the new argument array: XLA's
// crash). Racy: another stream reads what the new kernel writes without
// waiting for it; fixed: it waits on an event. It prints whether the driver
// gave a handle out again: where it did not, the test shows nothing.
#include <cuda.h>

#include <set>

#include "common.cuh"

namespace {

// PTX the driver compiles for the device it runs on.
const char kOnePointer[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry kernel(.param .u64 p)
{
  ret;
}
)";

const char kPointerInTheMiddle[] = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry kernel(.param .u32 pad, .param .u64 out, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<6>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd4, %rd2, %rd3;
  mov.f32 %f1, 0f3F800000;
  st.global.f32 [%rd4], %f1;
DONE:
  ret;
}
)";

void Check(CUresult rc, const char* what) {
  if (rc == CUDA_SUCCESS) return;
  const char* name = nullptr;
  cuGetErrorName(rc, &name);
  std::fprintf(stderr, "%s: %s\n", what, name ? name : "?");
  std::exit(3);
}

CUfunction Load(const char* ptx, CUmodule* module) {
  Check(cuModuleLoadData(module, ptx), "cuModuleLoadData");
  CUfunction f;
  Check(cuModuleGetFunction(&f, *module, "kernel"), "cuModuleGetFunction");
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  CHECK(cudaFree(nullptr));  // the runtime's context, which the driver calls use
  cudaStream_t writer, reader;
  CHECK(cudaStreamCreateWithFlags(&writer, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&reader, cudaStreamNonBlocking));
  float *out, *copy;
  CHECK(cudaMalloc(&out, kN * sizeof(float)));
  CHECK(cudaMalloc(&copy, kN * sizeof(float)));
  CHECK(cudaMemset(out, 0, kN * sizeof(float)));
  CHECK(cudaDeviceSynchronize());

  // Modules with step's layout are loaded, launched and unloaded until a
  // module of the other kernel is given one of their handles (the driver
  // does not hand a freed one out again at once); that launch is the test's.
  std::set<CUfunction> one_pointer_handles;
  CUmodule module;
  CUfunction kernel = nullptr;
  int loads = 0;
  for (; loads < 200; ++loads) {
    CUfunction old_kernel = Load(kOnePointer, &module);
    void* old_args[] = {&copy};
    Check(cuLaunchKernel(old_kernel, 1, 1, 1, 1, 1, 1, 0, reinterpret_cast<CUstream>(writer), old_args, nullptr),
          "cuLaunchKernel (one pointer)");
    CHECK(cudaStreamSynchronize(writer));
    Check(cuModuleUnload(module), "cuModuleUnload");
    one_pointer_handles.insert(old_kernel);
    kernel = Load(kPointerInTheMiddle, &module);
    if (one_pointer_handles.count(kernel) != 0) break;
    Check(cuModuleUnload(module), "cuModuleUnload");
  }
  if (loads == 200) kernel = Load(kPointerInTheMiddle, &module);
  std::fprintf(stderr, "module_reload: %s\n",
               loads < 200 ? "the kernel was given an unloaded kernel's handle" : "no handle was given out again");
  int pad = 7, n = kN;
  void* args[] = {&pad, &out, &n};
  Check(cuLaunchKernel(kernel, (kN + 255) / 256, 1, 1, 256, 1, 1, 0, reinterpret_cast<CUstream>(writer), args, nullptr),
        "cuLaunchKernel (pointer in the middle)");
  if (!racy) {
    cudaEvent_t written;
    CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
    CHECK(cudaEventRecord(written, writer));
    CHECK(cudaStreamWaitEvent(reader, written, 0));
    CHECK(cudaEventDestroy(written));
  }
  scale<<<64, 256, 0, reader>>>(out, copy, kN);
  CHECK(cudaDeviceSynchronize());
  Check(cuModuleUnload(module), "cuModuleUnload");
  CHECK(cudaFree(out));
  CHECK(cudaFree(copy));
  return 0;
}
