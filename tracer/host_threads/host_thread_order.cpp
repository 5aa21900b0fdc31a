#include "tracer/host_threads/host_thread_order.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <algorithm>
#include <cstring>

#include "tracer/host_threads/static_cuda_runtime.h"
#include "tracer/host_threads/sync_call_rebinding.h"

namespace streamcheck::tracer {
namespace {

// Libraries whose synchronization is theirs, not the program's (the Compute
// Sanitizer API's, which --precise loads, dispatches every CUDA call). The
// unwinders too: the tracer unwinds the calling thread's stack in every CUDA
// call, and libunwind's caches (and libgcc_s's, behind C++ exceptions) are
// guarded by mutexes every thread takes: seen on an H200 ordering a consumer
// thread after its producer's synchronize in tests/gpu/scenarios/thread_handover.cu.
constexpr const char* kIgnoredLibraries[] = {"libcuda.so",     "libcupti.so",   "libcudart.so",
                                             "libsanitizer-",  "libnvidia-",    "libstreamcheck_tracer.so",
                                             "libstreamcheck_torch.so", "libunwind.so", "libgcc_s.so"};

struct Scan {
  std::vector<streamcheck_code_range> ranges;
  std::vector<const void*>* scanned;  // objects whose symbols were read (by their program headers)
  RealSyncFunction real;              // null: ignored objects' calls are not rebound
  std::vector<const void*>* rebound_objects;  // objects whose imports are all bound (by their program headers)
  int rebound = 0;                    // GOT entries rewritten
};

bool Ignored(const char* path) {
  const char* slash = std::strrchr(path, '/');
  const char* name = slash ? slash + 1 : path;
  for (const char* library : kIgnoredLibraries)
    if (std::strncmp(name, library, std::strlen(library)) == 0) return true;
  return false;
}

bool HasCode(const dl_phdr_info& info) {
  for (int i = 0; i < info.dlpi_phnum; ++i)
    if (info.dlpi_phdr[i].p_type == PT_LOAD && (info.dlpi_phdr[i].p_flags & PF_X) != 0) return true;
  return false;
}

// The program and every other object may link the CUDA runtime statically
// (nvcc's default): its functions, found by their symbols, are left out.
// Once per object: the tracer asks again after loading its plugins.
void AddStaticRuntime(const dl_phdr_info& info, Scan& scan) {
  const bool program = info.dlpi_name == nullptr || info.dlpi_name[0] == '\0';
  if (!program && info.dlpi_name[0] != '/') return;  // the vDSO: no file
  if (!HasCode(info)) return;
  std::vector<const void*>& scanned = *scan.scanned;
  if (std::find(scanned.begin(), scanned.end(), info.dlpi_phdr) != scanned.end()) return;
  scanned.push_back(info.dlpi_phdr);
  for (const streamcheck_code_range& r : StaticCudaRuntimeCode(program ? "/proc/self/exe" : info.dlpi_name,
                                                              info.dlpi_addr))
    scan.ranges.push_back(r);
}

int AddCode(dl_phdr_info* info, size_t, void* data) {
  Scan& scan = *static_cast<Scan*>(data);
  if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0' || !Ignored(info->dlpi_name)) {
    AddStaticRuntime(*info, scan);
    return 0;
  }
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_LOAD || (segment.p_flags & PF_X) == 0) continue;
    const uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
    scan.ranges.push_back({begin, begin + segment.p_memsz});
  }
  // Their calls need not pass the interposers' check at all. The ranges stay:
  // calls through function pointers still do. Once per object, unless it was
  // still being loaded (its entries left for the next scan).
  std::vector<const void*>& done = *scan.rebound_objects;
  if (scan.real == nullptr || std::find(done.begin(), done.end(), info->dlpi_phdr) != done.end()) return 0;
  bool left_some = false;
  scan.rebound += RebindSyncCalls(*info, scan.real, &left_some);
  if (!left_some) done.push_back(info->dlpi_phdr);
  return 0;
}

}  // namespace

bool HostThreadOrder::Start(bool rebind_sync_calls) {
  rebind_ = rebind_sync_calls;
  using Lookup = const streamcheck_thread_order_api* (*)();
  auto lookup = reinterpret_cast<Lookup>(dlsym(RTLD_DEFAULT, "streamcheck_thread_order_api"));
  if (lookup == nullptr) return false;
  const streamcheck_thread_order_api* api = lookup();
  if (api == nullptr || api->version != STREAMCHECK_THREAD_ORDER_VERSION) return false;
  api_ = api;
  on_ = true;
  IgnoreCudaAndOwnCode();
  return true;
}

void HostThreadOrder::IgnoreCudaAndOwnCode() {
  if (!on_) return;
  Scan scan;
  scan.scanned = &scanned_;
  scan.real = rebind_ ? api_->real_sync_function : nullptr;
  scan.rebound_objects = &rebound_objects_;
  dl_iterate_phdr(AddCode, &scan);
  api_->activate(scan.ranges.data(), static_cast<int>(scan.ranges.size()));
  rebound_calls_ += scan.rebound;
}

streamcheck_thread_order* HostThreadOrder::Name(ThreadId id) {
  if (!on_) return nullptr;
  streamcheck_thread_order* order = api_->self();
  return api_->name(order, id) ? order : nullptr;
}

void HostThreadOrder::GiveUp() {
  if (!on_) return;
  api_->deactivate();
  on_ = false;
}

TraceRecord HostThreadOrder::ModeRecord() const {
  TraceRecord r;
  r.op = OpCode::kHostThreadOrder;
  r.flags = on_ ? 1 : 0;
  return r;
}

}  // namespace streamcheck::tracer
