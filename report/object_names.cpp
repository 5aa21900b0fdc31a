#include "report/object_names.h"

#include <fmt/format.h>

#include <array>
#include <string_view>

#include "report/kernel_names.h"

namespace streamcheck::report {
namespace {

constexpr uint32_t kNonBlocking = 0x1;  // cudaStreamNonBlocking

bool Contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

// Folders that hold libraries rather than the program: the system's, the
// CUDA toolkit's and Python's installed packages.
bool IsLibraryFile(const std::string& file) {
  static constexpr std::array<std::string_view, 6> kFragments = {
      "/site-packages/", "/dist-packages/", "/lib/python3", "/usr/local/cuda", "/targets/x86_64-linux/", "<frozen "};
  static constexpr std::array<std::string_view, 3> kPrefixes = {"/usr/include/", "/usr/lib/", "/usr/share/"};
  for (std::string_view f : kFragments)
    if (Contains(file, f)) return true;
  for (std::string_view p : kPrefixes)
    if (file.rfind(p, 0) == 0) return true;
  return false;
}

// The program's line that created a stream or event, or null (no stack, or a
// create call made inside a library: PyTorch's pool).
const ResolvedFrame* CreationLine(const ObjectOrigin& o) {
  const ResolvedFrame* created = ProgramFrame(o.created_at);
  return created && IsProgramFrame(*created) ? created : nullptr;
}

// The part of a stream's name that says where it came from, or "".
std::string StreamProvenance(const FindingAccess& a) {
  if (const ResolvedFrame* created = CreationLine(a.stream_origin)) return "created at " + ShortLocation(created);
  const std::string first = ShortLocation(ProgramFrame(a.stream_origin.first_used_at));
  return first.empty() ? "" : "first used at " + first;
}

// A stream the program made (or used without a create seen): its number and
// the line that created or first used it.
std::string CreatedStreamName(const FindingAccess& a, const std::string& device) {
  const std::string provenance = StreamProvenance(a);
  // A framework's stream, named by the line that first used it.
  if (!CreationLine(a.stream_origin) && FrameworkOf(a.stream_origin.first_op) == "PyTorch")
    return provenance.empty() ? "torch.cuda.Stream" : "torch.cuda.Stream " + provenance;
  const std::string number = a.stream_origin.ordinal ? fmt::format("stream {}", a.stream_origin.ordinal)
                                                     : fmt::format("stream {:#x}", a.stream_handle);
  return provenance.empty() ? number + device : number + " (" + provenance + ")";
}

// The stream a graph's nodes were launched on: the engine describes a graph
// lane as "graph exec X launched on <the launch stream's description>", and
// the access's origin is the launch stream's.
std::string GraphLaunchStreamName(const FindingAccess& a, const std::string& device) {
  if (Contains(a.stream, "launched on legacy default stream")) return "default stream" + device;
  if (Contains(a.stream, "launched on per-thread default stream")) return "per-thread default stream" + device;
  if (a.stream_handle == 0) return "default stream" + device;
  return CreatedStreamName(a, device);
}

}  // namespace

std::string Basename(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Functions of PyTorch and CPython, wherever their files are (a source build
// of PyTorch has its own paths).
bool IsLibraryFunction(const std::string& function) {
  for (std::string_view prefix : {"c10::", "at::", "torch::", "caffe2::", "pybind11::", "_Py"})
    if (function.rfind(prefix, 0) == 0) return true;
  return false;
}

bool IsProgramFrame(const ResolvedFrame& frame) {
  return !frame.file.empty() && !IsLibraryFile(frame.file) && !IsLibraryFunction(frame.function);
}

const ResolvedFrame* ProgramFrame(const std::vector<ResolvedFrame>& stack) {
  for (const ResolvedFrame& f : stack)
    if (IsProgramFrame(f)) return &f;
  for (const ResolvedFrame& f : stack)
    if (!f.file.empty()) return &f;
  return nullptr;
}

std::string ShortLocation(const ResolvedFrame* frame) {
  if (frame == nullptr || frame->file.empty()) return "";
  return frame->line == 0 ? Basename(frame->file) : fmt::format("{}:{}", Basename(frame->file), frame->line);
}

std::string FrameWhere(const ResolvedFrame& f) {
  if (!f.file.empty()) {
    if (f.line == 0) return f.file;
    return f.column == 0 ? fmt::format("{}:{}", f.file, f.line) : fmt::format("{}:{}:{}", f.file, f.line, f.column);
  }
  if (!f.module.empty()) return fmt::format("{}+{:#x}", Basename(f.module), f.module_offset);
  if (!f.function.empty()) return ShortFunctionName(f.function);
  if (f.pc != 0) return fmt::format("{:#x}", f.pc);
  return "<unknown>";
}

std::string FrameworkOf(const std::string& op) {
  for (std::string_view prefix : {"aten::", "c10d::", "torch::", "prim::", "_c10d_functional::", "cudnn::"})
    if (op.rfind(prefix, 0) == 0) return "PyTorch";
  return "";
}

bool IsSyncRole(const std::string& role) {
  return !role.empty() && role != "earlier" && role != "later" && role != "operation";
}

bool IsHostFunction(const FindingAccess& a) { return a.on_host && a.stream_kind == "host-function"; }

bool IsMpiCall(const std::string& op) { return op.rfind("MPI_", 0) == 0 || op.rfind("PMPI_", 0) == 0; }

std::string FrameworkOfAccess(const FindingAccess& a) {
  if (std::string framework = FrameworkOf(a.framework_op); !framework.empty()) return framework;
  if (a.op.rfind("cupy_", 0) == 0) return "CuPy";  // CuPy names its generated kernels cupy_<ufunc>
  // A package's folder in a Python frame's file, or its extension module in a
  // native frame's: the innermost frame that names one decides.
  static constexpr std::pair<std::string_view, std::string_view> kMarks[] = {
      {"/cupy/", "CuPy"},      {"/cupy_backends/", "CuPy"}, {"/jax/", "JAX"},         {"/jaxlib/", "JAX"},
      {"/jax_plugins/", "JAX"}, {"/numba/", "Numba"},       {"/numba_cuda/", "Numba"}, {"/torch/", "PyTorch"},
      {"libtorch", "PyTorch"},  {"xla_extension", "JAX"},   {"libcupy", "CuPy"}};
  for (const ResolvedFrame& frame : a.stack)
    for (const std::string* where : {&frame.file, &frame.module})
      for (const auto& [mark, framework] : kMarks)
        if (Contains(*where, mark)) return std::string(framework);
  return "";
}

bool IsDistributedOp(const std::string& op) {
  return op.rfind("c10d::", 0) == 0 || op.rfind("_c10d_functional::", 0) == 0 || Contains(op, "nccl:");
}

std::string DisplayOpName(const std::string& name) {
  return FrameworkOf(name).empty() ? ShortFunctionName(name) : name;
}

std::string OperationName(const FindingAccess& a) {
  if (!a.framework_op.empty()) return a.framework_op;
  if (a.on_host && !IsSyncRole(a.role)) return IsMpiCall(a.op) ? a.op : IsHostFunction(a) ? "a host function" : "the host";
  const std::string name = DisplayOpName(a.op.empty() ? a.api : a.op);
  return name.empty() ? "an operation" : name;
}

std::string KernelUnder(const FindingAccess& a) {
  if (a.framework_op.empty() || (a.on_host && !IsSyncRole(a.role))) return "";
  const std::string kernel = DisplayOpName(a.op.empty() ? a.api : a.op);
  return kernel == a.framework_op ? "" : kernel;
}

bool IsDefaultStream(const FindingAccess& a) {
  return a.stream_kind == "legacy" || a.stream_kind == "per-thread" ||
         (a.stream_kind.empty() && !a.on_host && a.stream_handle == 0);
}

std::string StreamName(const FindingAccess& a) {
  const std::string device = a.device > 0 ? fmt::format(" of device {}", a.device) : "";
  const std::string& kind = a.stream_kind;
  if (a.on_host && !IsSyncRole(a.role)) return fmt::format("host thread {}", a.thread);
  if (kind == "host") return fmt::format("host thread {}", a.thread);
  if (kind == "legacy") return "default stream" + device;
  if (kind == "per-thread") return "per-thread default stream" + device;
  if (kind == "graph") return "CUDA graph launched on " + StreamInSentence(GraphLaunchStreamName(a, device));
  if (kind == "created" || kind == "implicit") return CreatedStreamName(a, device);
  // No kind: a store from before schema 4, or a lint finding (whose stream
  // text names the program's variable, "stream `s1` (non-blocking)"). The
  // stored text, but the default streams by their short names.
  if (Contains(a.stream, "legacy default stream")) return "default stream" + device;
  if (Contains(a.stream, "per-thread default stream")) return "per-thread default stream" + device;
  if (!a.stream.empty()) return a.stream;
  if (a.stream_handle == 0 && !a.on_host) return "default stream" + device;
  return fmt::format("stream {:#x}", a.stream_handle);
}

std::string StreamInSentence(const std::string& name) {
  for (std::string_view needs_article : {"default stream", "per-thread default stream", "torch.cuda.Stream"})
    if (name.rfind(needs_article, 0) == 0) return "the " + name;
  if (name.rfind("CUDA graph", 0) == 0) return "a " + name;
  return name;
}

std::string StreamWithoutOrigin(const std::string& name) {
  for (std::string_view origin : {" (created at ", " (first used at ", " first used at "})
    if (const size_t at = name.find(origin); at != std::string::npos) return name.substr(0, at);
  return name;
}

std::string StreamDetail(const FindingAccess& a) {
  if ((a.on_host && !IsSyncRole(a.role)) || a.stream_kind == "host") return fmt::format("host thread {}", a.thread);
  if (a.stream_kind.empty()) return a.stream;  // before schema 4, or the lint's: what was stored
  std::string out = fmt::format("handle {:#x}", a.stream_handle);
  if (a.stream_kind == "legacy") out = "the legacy default stream (handle 0)";
  else if (a.stream_kind == "per-thread") out = "cudaStreamPerThread";
  if (a.stream_kind == "created" || a.stream_kind == "implicit")
    out += (a.stream_flags & kNonBlocking) ? ", non-blocking" : ", blocking";
  out += fmt::format(", device {}", a.device);
  const ObjectOrigin& o = a.stream_origin;
  if (a.stream_kind == "implicit") out += "; its creation was not traced (made before the tracer attached?)";
  if (!o.created_by.empty()) {
    const ResolvedFrame* created = ProgramFrame(o.created_at);
    out += "; created by " + o.created_by;
    out += created ? " at " + FrameWhere(*created) : " (no stack recorded)";
    if (o.ordinal) out += fmt::format(", the program's stream {}", o.ordinal);
  }
  if (!o.first_op.empty()) {
    const ResolvedFrame* first = ProgramFrame(o.first_used_at);
    out += "; first used by " + DisplayOpName(o.first_op) + (first ? " at " + FrameWhere(*first) : "");
  }
  if (FrameworkOf(o.first_op) == "PyTorch" && a.stream_kind == "created" && !CreationLine(o))
    out += "; PyTorch takes torch.cuda.Stream objects from a pool it creates all at once, so the line that made "
           "this one is not visible to CUDA: it is named by the first line that enqueued work on it";
  return out;
}

LaneNames NameLanes(const Finding& f) {
  LaneNames names;
  for (const FindingAccess& a : f.accesses) names.accesses.push_back(StreamName(a));
  for (const FindingAccess& a : f.syncs) names.syncs.push_back(a.on_host ? fmt::format("host thread {}", a.thread)
                                                                          : StreamName(a));
  // Two different streams with one name (per-thread default streams of two
  // threads, two pool streams first used on one line): tell them apart.
  // What makes a stream itself: its handle and device; a per-thread default
  // stream is also its thread's.
  auto identity = [](const FindingAccess& a) {
    return fmt::format("{}/{:#x}/{}/{}/{}", a.stream_kind, a.stream_handle, a.device, a.on_host,
                       a.stream_kind == "per-thread" ? a.thread : 0);
  };
  std::vector<std::pair<std::string*, const FindingAccess*>> all;
  for (size_t i = 0; i < f.accesses.size(); ++i) all.push_back({&names.accesses[i], &f.accesses[i]});
  for (size_t i = 0; i < f.syncs.size(); ++i)
    if (!f.syncs[i].on_host) all.push_back({&names.syncs[i], &f.syncs[i]});
  std::vector<bool> ambiguous(all.size(), false);
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = 0; j < all.size(); ++j)
      if (*all[i].first == *all[j].first && identity(*all[i].second) != identity(*all[j].second)) ambiguous[i] = true;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!ambiguous[i]) continue;
    const FindingAccess& a = *all[i].second;
    *all[i].first += a.stream_kind == "per-thread" ? fmt::format(" of thread {}", a.thread)
                                                   : fmt::format(" ({:#x})", a.stream_handle);
  }
  return names;
}

std::string EventName(const FindingAccess& sync) {
  const ObjectOrigin& o = sync.event_origin;
  if (const ResolvedFrame* created = CreationLine(o); o.ordinal && created)
    return fmt::format("event {} (created at {})", o.ordinal, ShortLocation(created));
  if (o.ordinal) return fmt::format("event {}", o.ordinal);
  return fmt::format("event {:#x}", sync.event);
}

std::string DescribeSync(const FindingAccess& s) {
  const std::string at = ShortLocation(ProgramFrame(s.stack));
  const std::string call = OperationName(s) + (at.empty() ? "" : " at " + at);
  const std::string host = fmt::format("host thread {}", s.thread);
  if (s.role == "event record")
    return fmt::format("{} recorded {} on {}", call, EventName(s), StreamInSentence(StreamName(s)));
  if (s.role == "stream wait")
    return fmt::format("{} made {} wait for {}", call, StreamInSentence(StreamName(s)), EventName(s));
  if (s.role == "stream synchronize" || s.role == "stream query")
    return fmt::format("{}: {} waited for {}", call, host, StreamInSentence(StreamName(s)));
  if (s.role == "event synchronize" || s.role == "event query")
    return fmt::format("{}: {} waited for {}", call, host, EventName(s));
  if (s.role == "device synchronize") return fmt::format("{}: {} waited for the whole device", call, host);
  return call;
}

const ModeWords& WordsFor(AccessMode mode) {
  static constexpr ModeWords kRead{"reads", "read", "read"};
  static constexpr ModeWords kWrite{"writes", "write", "write"};
  static constexpr ModeWords kReadWrite{"reads and writes", "write", "read and write"};
  static constexpr ModeWords kUnknown{"uses", "use", "use (read or write not known)"};
  switch (mode) {
    case AccessMode::kRead: return kRead;
    case AccessMode::kWrite: return kWrite;
    case AccessMode::kReadWrite: return kReadWrite;
    case AccessMode::kUnknown: return kUnknown;
  }
  return kUnknown;
}

std::string HumanSize(uint64_t bytes) {
  constexpr uint64_t kKiB = 1024, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
  auto exact = [&](uint64_t unit, const char* name) -> std::string {
    if (bytes % unit == 0) return fmt::format("{} {}", bytes / unit, name);
    return fmt::format("{:.1f} {}", static_cast<double>(bytes) / static_cast<double>(unit), name);
  };
  if (bytes >= kGiB) return exact(kGiB, "GiB");
  if (bytes >= kMiB) return exact(kMiB, "MiB");
  if (bytes >= 10 * kKiB || (bytes >= kKiB && bytes % kKiB == 0)) return exact(kKiB, "KiB");
  return fmt::format("{} byte{}", bytes, bytes == 1 ? "" : "s");
}

}  // namespace streamcheck::report
