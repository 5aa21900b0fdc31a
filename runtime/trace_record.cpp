#include "runtime/trace_record.h"

#include <array>

namespace streamcheck {
namespace {

// Names are written into text traces: never rename, only add.
constexpr std::array<std::string_view, static_cast<size_t>(OpCode::kMaxOpCode)> MakeOpCodeNames() {
  std::array<std::string_view, static_cast<size_t>(OpCode::kMaxOpCode)> n{};
  auto set = [&n](OpCode op, std::string_view name) { n[static_cast<size_t>(op)] = name; };
  set(OpCode::kDefineString, "define_string");
  set(OpCode::kDefineStack, "define_stack");
  set(OpCode::kProcessInfo, "process_info");
  set(OpCode::kThreadName, "thread_name");
  set(OpCode::kUnmodeledApi, "unmodeled_api");
  set(OpCode::kSetDevice, "set_device");
  set(OpCode::kDeviceReset, "device_reset");
  set(OpCode::kStreamCreate, "stream_create");
  set(OpCode::kStreamDestroy, "stream_destroy");
  set(OpCode::kEventCreate, "event_create");
  set(OpCode::kEventDestroy, "event_destroy");
  set(OpCode::kEventRecord, "event_record");
  set(OpCode::kStreamWaitEvent, "stream_wait_event");
  set(OpCode::kEventSynchronize, "event_synchronize");
  set(OpCode::kEventQuery, "event_query");
  set(OpCode::kStreamSynchronize, "stream_synchronize");
  set(OpCode::kStreamQuery, "stream_query");
  set(OpCode::kDeviceSynchronize, "device_synchronize");
  set(OpCode::kEventElapsedTime, "event_elapsed_time");
  set(OpCode::kMalloc, "malloc");
  set(OpCode::kFree, "free");
  set(OpCode::kMallocAsync, "malloc_async");
  set(OpCode::kFreeAsync, "free_async");
  set(OpCode::kPoolBlockAllocate, "pool_block_allocate");
  set(OpCode::kPoolBlockFree, "pool_block_free");
  set(OpCode::kHostRegister, "host_register");
  set(OpCode::kHostUnregister, "host_unregister");
  set(OpCode::kKernelLaunch, "kernel_launch");
  set(OpCode::kMemcpy, "memcpy");
  set(OpCode::kMemset, "memset");
  set(OpCode::kHostFunc, "host_func");
  set(OpCode::kHostAccess, "host_access");
  set(OpCode::kStreamBeginCapture, "stream_begin_capture");
  set(OpCode::kStreamEndCapture, "stream_end_capture");
  set(OpCode::kGraphCreate, "graph_create");
  set(OpCode::kGraphAddNode, "graph_add_node");
  set(OpCode::kGraphAddDependency, "graph_add_dependency");
  set(OpCode::kGraphInstantiate, "graph_instantiate");
  set(OpCode::kGraphExecUpdate, "graph_exec_update");
  set(OpCode::kGraphLaunch, "graph_launch");
  set(OpCode::kGraphDestroy, "graph_destroy");
  set(OpCode::kGraphExecDestroy, "graph_exec_destroy");
  set(OpCode::kHostThreadOrder, "host_thread_order");
  set(OpCode::kThreadRelease, "thread_release");
  set(OpCode::kThreadAcquire, "thread_acquire");
  set(OpCode::kHostFuncBegin, "host_func_begin");
  set(OpCode::kHostFuncEnd, "host_func_end");
  set(OpCode::kScopeBegin, "scope_begin");
  set(OpCode::kScopeEnd, "scope_end");
  set(OpCode::kMpiStart, "mpi_start");
  set(OpCode::kMpiComplete, "mpi_complete");
  return n;
}
constexpr auto kOpCodeNames = MakeOpCodeNames();

template <typename Enum, size_t N>
bool LookUp(const std::array<std::pair<Enum, std::string_view>, N>& table, std::string_view name,
            Enum* out) {
  for (const auto& [value, value_name] : table) {
    if (value_name == name) {
      *out = value;
      return true;
    }
  }
  return false;
}

template <typename Enum, size_t N>
std::string_view NameOf(const std::array<std::pair<Enum, std::string_view>, N>& table, Enum value) {
  for (const auto& [v, name] : table) {
    if (v == value) return name;
  }
  return {};
}

constexpr std::array<std::pair<AccessMode, std::string_view>, 4> kAccessModeNames{{
    {AccessMode::kRead, "read"},
    {AccessMode::kWrite, "write"},
    {AccessMode::kReadWrite, "readwrite"},
    {AccessMode::kUnknown, "unknown"},
}};

// The exact extent has no name: text traces write none for it.
constexpr std::array<std::pair<AccessCertainty, std::string_view>, 2> kAccessCertaintyNames{{
    {AccessCertainty::kFirstByte, "guessed"},
    {AccessCertainty::kNone, "guessed_whole"},
}};

constexpr std::array<std::pair<MemoryKind, std::string_view>, 6> kMemoryKindNames{{
    {MemoryKind::kDevice, "device"},
    {MemoryKind::kPinnedHost, "pinned_host"},
    {MemoryKind::kManaged, "managed"},
    {MemoryKind::kRegisteredHost, "registered_host"},
    {MemoryKind::kPageableHost, "pageable_host"},
    {MemoryKind::kAsyncPool, "async_pool"},
}};

constexpr std::array<std::pair<CopyKind, std::string_view>, 5> kCopyKindNames{{
    {CopyKind::kHostToHost, "host_to_host"},
    {CopyKind::kHostToDevice, "host_to_device"},
    {CopyKind::kDeviceToHost, "device_to_host"},
    {CopyKind::kDeviceToDevice, "device_to_device"},
    {CopyKind::kDefault, "default"},
}};

}  // namespace

std::string_view OpCodeName(OpCode op) {
  auto index = static_cast<size_t>(op);
  return index < kOpCodeNames.size() ? kOpCodeNames[index] : std::string_view{};
}

OpCode OpCodeFromName(std::string_view name) {
  if (name.empty()) return OpCode::kInvalid;
  for (size_t i = 0; i < kOpCodeNames.size(); ++i) {
    if (kOpCodeNames[i] == name) return static_cast<OpCode>(i);
  }
  return OpCode::kInvalid;
}

std::string_view AccessModeName(AccessMode mode) { return NameOf(kAccessModeNames, mode); }
bool AccessModeFromName(std::string_view name, AccessMode* mode) {
  return LookUp(kAccessModeNames, name, mode);
}

std::string_view AccessCertaintyName(AccessCertainty c) { return NameOf(kAccessCertaintyNames, c); }
bool AccessCertaintyFromName(std::string_view name, AccessCertainty* c) {
  return LookUp(kAccessCertaintyNames, name, c);
}

std::string_view MemoryKindName(MemoryKind kind) { return NameOf(kMemoryKindNames, kind); }
bool MemoryKindFromName(std::string_view name, MemoryKind* kind) {
  return LookUp(kMemoryKindNames, name, kind);
}

std::string_view CopyKindName(CopyKind kind) { return NameOf(kCopyKindNames, kind); }
bool CopyKindFromName(std::string_view name, CopyKind* kind) {
  return LookUp(kCopyKindNames, name, kind);
}

}  // namespace streamcheck
