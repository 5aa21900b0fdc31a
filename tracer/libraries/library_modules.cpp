#include "tracer/libraries/library_modules.h"

#include <link.h>
#include <unistd.h>

#include <string>

#include "tracer/stacks/native_unwinder.h"

namespace streamcheck::tracer {
namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool StartsWithAny(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view prefix : prefixes)
    if (name.starts_with(prefix)) return true;
  return false;
}

// Frames between a library's code and the call the tracer sees: CUDA's
// runtime and driver (with its libnvidia-* parts), the front-end's library
// (CUPTI's, or the Compute Sanitizer API's and its injection under
// --precise), the tracer and its preloaded library, the unwinder, and the C
// and C++ runtimes.
bool IsPlumbing(std::string_view name) {
  return StartsWithAny(name, {"libcuda.", "libcudart.", "libnvidia-", "libcupti.", "libsanitizer-", "libTreeLauncher",
                              "libstreamcheck_", "libunwind.", "libc.so", "libc-", "ld-linux", "libstdc++.",
                              "libgcc_s.", "libpthread."});
}

bool IsCRuntime(std::string_view name) {
  return StartsWithAny(name, {"libc.so", "libc-", "ld-linux", "libstdc++.", "libgcc_s.", "libpthread."});
}

// Where a thread's stack begins before the code that started it: the C
// runtime's start, and the preloaded library's ThreadStart
// (tracer/preload/thread_interposers.c), which runs every start routine.
bool IsThreadStart(std::string_view name) { return IsCRuntime(name) || name.starts_with("libstreamcheck_preload."); }

// The file of the loaded object holding `pc` ("<program>" for the main
// executable), or "" for none. Through dl_iterate_phdr, not dladdr: the
// tracer asks under its lock, and dladdr takes the loader's lock, which a
// dlopen holds while constructors run that may make CUDA calls (and wait
// for the tracer's lock); dl_iterate_phdr's lock is held only while the
// list of objects changes, as unwinding a stack already relies on.
std::string_view ModuleOf(uint64_t pc) {
  struct Search {
    uint64_t pc;
    const char* name = nullptr;
  } search{pc};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& ph = info->dlpi_phdr[i];
          const uint64_t begin = info->dlpi_addr + ph.p_vaddr;
          if (ph.p_type == PT_LOAD && s->pc >= begin && s->pc - begin < ph.p_memsz) {
            s->name = info->dlpi_name != nullptr && info->dlpi_name[0] != '\0' ? info->dlpi_name : "<program>";
            return 1;
          }
        }
        return 0;
      },
      &search);
  return search.name != nullptr ? search.name : std::string_view();
}

// The executable's path, read once ("<program>" when /proc is not there).
std::string_view ExecutablePath() {
  static const std::string path = [] {
    char buffer[4096];
    const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string("<program>");
  }();
  return path;
}

// The loaded object (ModuleOf) of the first of `pcs` outside the plumbing.
std::string_view CallingModulePath(const uint64_t* pcs, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const std::string_view path = ModuleOf(pcs[i]);
    const std::string_view module = BaseName(path);
    if (module.empty() || IsPlumbing(module)) continue;
    return path;
  }
  return {};
}

}  // namespace

std::string_view LibraryOfModule(std::string_view path) {
  struct Library {
    std::string_view prefix;
    std::string_view name;
  };
  static constexpr Library kLibraries[] = {
      {"libnccl.", "nccl"},       {"libnccl-", "nccl"},         {"libcublasLt.", "cublas"},
      {"libcublas.", "cublas"},   {"libcudnn", "cudnn"},        {"libcufft", "cufft"},
      {"libcusparse", "cusparse"}, {"libcusolver", "cusolver"}, {"libcurand", "curand"},
      // JAX's XLA: its PJRT CUDA plugin (jax_plugins/xla_cuda13/), and the
      // older jaxlib that held the GPU client itself. Every CUDA buffer and
      // staging buffer of a JAX program is XLA's, ordered by XLA on its own
      // threads through absl's synchronization, which streamcheck does not
      // see (docs/internals/nccl.md, "A library's own work").
      {"xla_cuda_plugin", "xla"}, {"xla_extension", "xla"},
  };
  const std::string_view name = BaseName(path);
  for (const Library& library : kLibraries)
    if (name.starts_with(library.prefix)) return library.name;
  return {};
}

std::string_view CallingModule(const uint64_t* pcs, size_t count) { return BaseName(CallingModulePath(pcs, count)); }

std::string_view CallingObject(const uint64_t* pcs, size_t count) {
  const std::string_view path = CallingModulePath(pcs, count);
  return path == "<program>" ? ExecutablePath() : path;
}

std::string_view LibraryOfCaller(const uint64_t* pcs, size_t count) {
  return LibraryOfModule(CallingModule(pcs, count));
}

std::string_view CallingModuleOfThisThread() {
  constexpr int kFrames = 64;  // the tracer's, the front-end's and CUDA's frames, then the caller's
  uint64_t pcs[kFrames];
  const int n = NativeUnwinder::Get().Backtrace(pcs, kFrames, 0);
  return n > 0 ? CallingModule(pcs, static_cast<size_t>(n)) : std::string_view();
}

std::string_view LibraryThatStartedThisThread() {
  constexpr int kMostFrames = 250;  // below the unwinder's capacity: a full result means a deeper stack
  uint64_t pcs[kMostFrames + 1];
  const int n = NativeUnwinder::Get().Backtrace(pcs, kMostFrames + 1, 0);
  if (n <= 0 || n > kMostFrames) return {};
  for (int i = n - 1; i >= 0; --i) {
    const std::string_view module = BaseName(ModuleOf(pcs[i]));
    if (module.empty() || IsThreadStart(module)) continue;
    return LibraryOfModule(module);
  }
  return {};
}

}  // namespace streamcheck::tracer
