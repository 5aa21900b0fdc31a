#include "tracer/frameworks/pytorch/python_stack.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "tracer/debug/debug_flags.h"
#include "tracer/frameworks/pytorch/python_frames.h"
#include "tracer/environment.h"

namespace streamcheck::pytorch {
namespace {

// CPython's API, as opaque pointers (Python 3.9+ stable signatures).
using PyObject = void;
struct CPython {
  int (*IsInitialized)();
  const char* (*GetVersion)();
  void* (*GILState_GetThisThreadState)();
  int (*GILState_Check)();
  int (*GILState_Ensure)();
  void (*GILState_Release)(int);
  void* (*ThreadState_Get)();
  PyObject* (*ThreadState_GetFrame)(void*);
  PyObject* (*Frame_GetBack)(PyObject*);
  PyObject* (*Frame_GetCode)(PyObject*);
  int (*Frame_GetLineNumber)(PyObject*);
  int (*Frame_GetLasti)(PyObject*);        // 3.11+; null before
  int (*Code_Addr2Line)(PyObject*, int);
  PyObject* (*Object_GetAttrString)(PyObject*, const char*);
  const char* (*Unicode_AsUTF8)(PyObject*);
  void (*DecRef)(PyObject*);
  void (*Err_Clear)();
  int (*IsFinalizing)();  // optional: _Py_IsFinalizing (3.12) or Py_IsFinalizing (3.13+)

  bool Load() {
    auto get = [](const char* name) { return dlsym(RTLD_DEFAULT, name); };
    bool ok = true;
    auto bind = [&](auto& fn, const char* name) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(get(name));
      ok = ok && fn != nullptr;
    };
    bind(IsInitialized, "Py_IsInitialized");
    bind(GetVersion, "Py_GetVersion");
    bind(GILState_GetThisThreadState, "PyGILState_GetThisThreadState");
    bind(GILState_Check, "PyGILState_Check");
    bind(GILState_Ensure, "PyGILState_Ensure");
    bind(GILState_Release, "PyGILState_Release");
    bind(ThreadState_Get, "PyThreadState_Get");
    bind(ThreadState_GetFrame, "PyThreadState_GetFrame");
    bind(Frame_GetBack, "PyFrame_GetBack");
    bind(Frame_GetCode, "PyFrame_GetCode");
    bind(Frame_GetLineNumber, "PyFrame_GetLineNumber");
    bind(Code_Addr2Line, "PyCode_Addr2Line");
    bind(Object_GetAttrString, "PyObject_GetAttrString");
    bind(Unicode_AsUTF8, "PyUnicode_AsUTF8");
    bind(DecRef, "Py_DecRef");
    bind(Err_Clear, "PyErr_Clear");
    Frame_GetLasti = reinterpret_cast<int (*)(PyObject*)>(get("PyFrame_GetLasti"));
    IsFinalizing = reinterpret_cast<int (*)()>(get("Py_IsFinalizing"));
    if (IsFinalizing == nullptr) IsFinalizing = reinterpret_cast<int (*)()>(get("_Py_IsFinalizing"));
    return ok;
  }
};

const CPython* Python() {
  static const CPython* python = [] {
    static CPython p;
    return p.Load() ? &p : nullptr;
  }();
  return python;
}

struct CodeNames {
  std::string function, file;
  bool framework = false;  // a frame of PyTorch's own Python code
};

std::string Attribute(const CPython& py, PyObject* code, const char* name) {
  PyObject* value = py.Object_GetAttrString(code, name);
  if (value == nullptr) {
    py.Err_Clear();
    return "";
  }
  const char* utf8 = py.Unicode_AsUTF8(value);
  std::string out = utf8 ? utf8 : "";
  if (utf8 == nullptr) py.Err_Clear();
  py.DecRef(value);
  return out;
}

constexpr size_t kMaxFrames = 32;

// A stack as the cache knows it: each frame's code object and where in it
// the frame is (python_frames.h). Turning positions into lines scans each
// code's line table, so it is done only for stacks not seen before.
struct FrameKeys {
  PythonFrameKey keys[kMaxFrames];
  size_t count = 0;
  bool operator==(const FrameKeys& o) const { return std::equal(keys, keys + count, o.keys, o.keys + o.count); }
  bool SameCode(const FrameKeys& o) const {
    return std::equal(keys, keys + count, o.keys, o.keys + o.count,
                      [](const PythonFrameKey& a, const PythonFrameKey& b) { return a.code == b.code; });
  }
};

uint64_t HashOf(const FrameKeys& at) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < at.count; ++i) {
    h = (h ^ reinterpret_cast<uint64_t>(at.keys[i].code)) * 0x100000001b3ull;
    h = (h ^ at.keys[i].position) * 0x100000001b3ull;
  }
  return h;
}

// Stacks by their frame keys: a hash, then the few stacks that share it.
class StackTable {
 public:
  uint32_t Find(const FrameKeys& at) const {
    auto it = by_hash_.find(HashOf(at));
    if (it == by_hash_.end()) return 0;
    for (const auto& [known, id] : it->second)
      if (known == at) return id;
    return 0;
  }
  void Add(const FrameKeys& at, uint32_t id) { by_hash_[HashOf(at)].emplace_back(at, id); }

 private:
  std::unordered_map<uint64_t, std::vector<std::pair<FrameKeys, uint32_t>>> by_hash_;
};

struct StackCache {
  std::mutex mutex;
  // Code objects seen in a cached stack are kept alive (one reference each),
  // so their address never names another code object.
  std::unordered_map<const PyObject*, CodeNames> code_names;
  // By the public API's positions (instruction offsets), by lines (one call
  // site reached through other offsets is still one stack), and by frames
  // read in place (instruction addresses).
  StackTable by_position, by_line, in_place;
  // Reading in place: the layout of the running CPython while it is trusted
  // (null: the public API alone), and how its reads compared with the API's.
  std::atomic<const PythonFrameLayout*> layout{nullptr};
  uint64_t agreed = 0, disagreed = 0;
  PythonStackCounts counts;
};
StackCache& Cache() {
  static auto* cache = [] {
    auto* c = new StackCache;  // lives past exit handlers
    int major = 0, minor = 0;
    const CPython* py = Python();
    if (py != nullptr && !tracer::DebugFlag(tracer::DebugSwitch::kPythonApiStacks) &&
        ParsePythonVersion(py->GetVersion(), &major, &minor))
      c->layout = PythonFrameLayoutFor(major, minor);
    return c;
  }();
  return *cache;
}

// Takes over the reference to `code` the caller holds.
const CodeNames& NamesOf(const CPython& py, const PyObject* key) {
  PyObject* code = const_cast<PyObject*>(key);  // the keys are const: the walk in place must not write
  auto [it, inserted] = Cache().code_names.try_emplace(key);
  if (inserted) {
    it->second.function = Attribute(py, code, "co_qualname");
    it->second.file = Attribute(py, code, "co_filename");
    const std::string& f = it->second.file;
    it->second.framework = f.find("/torch/") != std::string::npos &&
                           (f.find("-packages/") != std::string::npos || f.find("/torch/lib") != std::string::npos);
  } else {
    py.DecRef(code);  // the cache holds the reference taken by the first sight
  }
  return it->second;
}

// A stack not seen at these positions: its lines, then its id (one per
// distinct list of lines), interned with the tracer.
uint32_t InternNewStack(const CPython& py, const StreamcheckFrameworkHooks& hooks, const FrameKeys& at) {
  FrameKeys lines = at;
  if (py.Frame_GetLasti != nullptr)
    for (size_t i = 0; i < lines.count; ++i)
      lines.keys[i].position = static_cast<uint64_t>(
          py.Code_Addr2Line(const_cast<PyObject*>(at.keys[i].code), static_cast<int>(at.keys[i].position)));
  if (const uint32_t id = Cache().by_line.Find(lines)) return id;
  bool user_frames = false;
  for (size_t i = 0; i < lines.count; ++i) user_frames = user_frames || !Cache().code_names[lines.keys[i].code].framework;
  std::vector<StreamcheckFrame> frames;
  for (size_t i = 0; i < lines.count; ++i) {
    const CodeNames& names = Cache().code_names[lines.keys[i].code];
    if (user_frames && names.framework) continue;
    frames.push_back({names.function.c_str(), names.file.c_str(), static_cast<uint32_t>(lines.keys[i].position)});
  }
  const uint32_t id = hooks.intern_stack(frames.data(), frames.size());
  Cache().by_line.Add(lines, id);
  return id;
}

// The public API's walk, with the GIL held: each frame's code object (a
// reference the caller owns) and instruction offset (or line, before 3.11).
FrameKeys WalkFramesThroughApi(const CPython& py) {
  FrameKeys at;
  for (PyObject* frame = py.ThreadState_GetFrame(py.ThreadState_Get()); frame != nullptr;) {
    PyObject* back = nullptr;
    if (at.count < kMaxFrames) {
      const int position = py.Frame_GetLasti ? py.Frame_GetLasti(frame) : py.Frame_GetLineNumber(frame);
      at.keys[at.count++] = {py.Frame_GetCode(frame), static_cast<uint64_t>(position)};
      if (at.count < kMaxFrames) back = py.Frame_GetBack(frame);
    }
    py.DecRef(frame);
    frame = back;
  }
  return at;
}

// With the cache's mutex held: the id of the stack the API walked (taking
// over its references), noted under the frames read in place where the two
// walks saw the same code objects.
uint32_t StackOfApiWalk(const CPython& py, const StreamcheckFrameworkHooks& hooks, const FrameKeys& at,
                        const FrameKeys* in_place) {
  StackCache& cache = Cache();
  ++cache.counts.through_api;
  uint32_t id = cache.by_position.Find(at);
  if (id != 0) {
    for (size_t i = 0; i < at.count; ++i) py.DecRef(const_cast<PyObject*>(at.keys[i].code));  // held already
  } else if (at.count > 0) {
    for (size_t i = 0; i < at.count; ++i) NamesOf(py, at.keys[i].code);
    id = InternNewStack(py, hooks, at);
    cache.by_position.Add(at, id);
  }
  if (in_place == nullptr) return id;
  if (in_place->count == at.count && in_place->SameCode(at)) {
    if (id == 0) return 0;  // no frames: nothing to learn
    ++cache.agreed;
    cache.in_place.Add(*in_place, id);  // its code objects are the ones the cache holds
  } else if (++cache.disagreed >= 4 && cache.agreed == 0) {
    // A layout that never matched is not this CPython's (a patched build):
    // the public API alone from now on. Later disagreements (a frame caught
    // mid-setup, which the API skips) just go uncached.
    cache.layout = nullptr;
  }
  return id;
}

}  // namespace

uint32_t CurrentPythonStack(const StreamcheckFrameworkHooks& hooks, bool take_gil) {
  // `streamcheck run --no-stacks` (STREAMCHECK_STACKS=0) turns Python stacks off too.
  static const bool wanted = [] {
    const char* v = std::getenv(environment::kStacks);
    return v == nullptr || std::string(v) != "0";
  }();
  if (!wanted) return 0;
  const CPython* py = Python();
  if (py == nullptr || !py->IsInitialized()) return 0;
  void* thread_state = py->GILState_GetThisThreadState();
  if (thread_state == nullptr) return 0;
  // Tensors freed while the interpreter shuts down: taking the GIL or walking
  // frames then is not safe.
  if (py->IsFinalizing != nullptr && py->IsFinalizing()) return 0;
  // Walking frames through the API may allocate, and so collect garbage, free
  // tensors and come back here through the allocator's hook: that inner call
  // gives up (the cache's mutex is held).
  thread_local bool walking = false;
  if (walking) return 0;
  StackCache& cache = Cache();
  // Each op the program calls passes here. A stack seen before is found from
  // its frames read in place, without the GIL.
  FrameKeys in_place;
  const PythonFrameLayout* layout = cache.layout.load(std::memory_order_relaxed);
  if (layout != nullptr) {
    in_place.count = ReadPythonFrames(*layout, thread_state, in_place.keys, kMaxFrames);
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (const uint32_t id = cache.in_place.Find(in_place)) {
      ++cache.counts.in_place;
      return id;
    }
    if (in_place.count == 0 && cache.agreed > 0) return 0;  // no Python running on this thread
  }
  if (!take_gil && py->GILState_Check() != 1) return 0;
  walking = true;
  const int gil = py->GILState_Ensure();
  const FrameKeys at = WalkFramesThroughApi(*py);
  uint32_t id = 0;
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    id = StackOfApiWalk(*py, hooks, at, layout != nullptr ? &in_place : nullptr);
  }
  py->GILState_Release(gil);
  walking = false;
  return id;
}

PythonStackCounts CurrentPythonStackCounts() {
  std::lock_guard<std::mutex> lock(Cache().mutex);
  return Cache().counts;
}

}  // namespace streamcheck::pytorch
