#include "tracer/pytorch/python_stack.h"

#include <dlfcn.h>

#include <algorithm>

#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace streamcheck::pytorch {
namespace {

// CPython's API, as opaque pointers (Python 3.9+ stable signatures).
using PyObject = void;
struct CPython {
  int (*IsInitialized)();
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

// A frame as the cache knows it: its code object and where in it the frame
// is (the instruction's byte offset where CPython tells it cheaply, else the
// line). Turning offsets into lines scans the code's line table, so it is
// done only for stacks not seen before.
struct FrameKey {
  PyObject* code;
  int position;
  bool operator==(const FrameKey&) const = default;
};

constexpr size_t kMaxFrames = 32;

struct FrameKeys {
  FrameKey keys[kMaxFrames];
  size_t count = 0;
  bool operator==(const FrameKeys& o) const { return std::equal(keys, keys + count, o.keys, o.keys + o.count); }
};

uint64_t HashOf(const FrameKey* keys, size_t count) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < count; ++i) {
    h = (h ^ reinterpret_cast<uint64_t>(keys[i].code)) * 0x100000001b3ull;
    h = (h ^ static_cast<uint64_t>(keys[i].position)) * 0x100000001b3ull;
  }
  return h;
}

struct StackCache {
  std::mutex mutex;  // threads that run Python take turns under the GIL anyway
  // Code objects seen in a cached stack are kept alive (one reference each),
  // so their address never names another code object.
  std::unordered_map<PyObject*, CodeNames> code_names;
  // By frame positions, and by lines: one call site reached through other
  // instruction offsets is still one stack.
  std::unordered_map<uint64_t, std::vector<std::pair<FrameKeys, uint32_t>>> by_position;
  std::unordered_map<uint64_t, std::vector<std::pair<FrameKeys, uint32_t>>> by_line;
};
StackCache& Cache() {
  static auto* cache = new StackCache;  // lives past exit handlers
  return *cache;
}

// Takes over the reference to `code` the caller holds.
const CodeNames& NamesOf(const CPython& py, PyObject* code) {
  auto [it, inserted] = Cache().code_names.try_emplace(code);
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

uint32_t Find(const std::vector<std::pair<FrameKeys, uint32_t>>& candidates, const FrameKeys& keys) {
  for (const auto& [known, id] : candidates)
    if (known == keys) return id;
  return 0;
}

// A stack not seen at these positions: its lines, then its id (one per
// distinct list of lines), interned with the tracer.
uint32_t InternNewStack(const CPython& py, const StreamcheckFrameworkHooks& hooks, const FrameKeys& at) {
  FrameKeys lines = at;
  if (py.Frame_GetLasti != nullptr)
    for (size_t i = 0; i < lines.count; ++i) lines.keys[i].position = py.Code_Addr2Line(at.keys[i].code, at.keys[i].position);
  auto& same_lines = Cache().by_line[HashOf(lines.keys, lines.count)];
  if (const uint32_t id = Find(same_lines, lines)) return id;
  bool user_frames = false;
  for (size_t i = 0; i < lines.count; ++i) user_frames = user_frames || !Cache().code_names[lines.keys[i].code].framework;
  std::vector<StreamcheckFrame> frames;
  for (size_t i = 0; i < lines.count; ++i) {
    const CodeNames& names = Cache().code_names[lines.keys[i].code];
    if (user_frames && names.framework) continue;
    frames.push_back({names.function.c_str(), names.file.c_str(), static_cast<uint32_t>(lines.keys[i].position)});
  }
  const uint32_t id = hooks.intern_stack(frames.data(), frames.size());
  same_lines.emplace_back(lines, id);
  return id;
}

}  // namespace

uint32_t CurrentPythonStack(const StreamcheckFrameworkHooks& hooks, bool take_gil) {
  // `streamcheck run --no-stacks` (STREAMCHECK_STACKS=0) turns Python stacks off too.
  static const bool wanted = [] {
    const char* v = std::getenv("STREAMCHECK_STACKS");
    return v == nullptr || std::string(v) != "0";
  }();
  if (!wanted) return 0;
  const CPython* py = Python();
  if (py == nullptr || !py->IsInitialized() || py->GILState_GetThisThreadState() == nullptr) return 0;
  // Tensors freed while the interpreter shuts down: taking the GIL or walking
  // frames then is not safe.
  if (py->IsFinalizing != nullptr && py->IsFinalizing()) return 0;
  if (!take_gil && py->GILState_Check() != 1) return 0;
  // Walking frames may allocate, and so collect garbage, free tensors and
  // come back here through the allocator's hook: that inner walk gives up.
  thread_local bool walking = false;
  if (walking) return 0;
  walking = true;
  const int gil = py->GILState_Ensure();
  // Each op the program calls passes here: the walk reads positions only, and
  // holds a reference to each code object until the cache has decided.
  FrameKeys at;
  for (PyObject* frame = py->ThreadState_GetFrame(py->ThreadState_Get()); frame != nullptr;) {
    PyObject* back = nullptr;
    if (at.count < kMaxFrames) {
      const int position = py->Frame_GetLasti ? py->Frame_GetLasti(frame) : py->Frame_GetLineNumber(frame);
      at.keys[at.count++] = {py->Frame_GetCode(frame), position};
      if (at.count < kMaxFrames) back = py->Frame_GetBack(frame);
    }
    py->DecRef(frame);
    frame = back;
  }
  uint32_t id = 0;
  {
    std::lock_guard<std::mutex> lock(Cache().mutex);
    auto& candidates = Cache().by_position[HashOf(at.keys, at.count)];
    id = Find(candidates, at);
    if (id != 0) {
      for (size_t i = 0; i < at.count; ++i) py->DecRef(at.keys[i].code);  // the cache holds each already
    } else if (at.count > 0) {
      for (size_t i = 0; i < at.count; ++i) NamesOf(*py, at.keys[i].code);
      id = InternNewStack(*py, hooks, at);
      candidates.emplace_back(at, id);
    }
  }
  py->GILState_Release(gil);
  walking = false;
  return id;
}

}  // namespace streamcheck::pytorch
