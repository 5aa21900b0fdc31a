#include "tracer/pytorch/python_stack.h"

#include <dlfcn.h>

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
    bind(Object_GetAttrString, "PyObject_GetAttrString");
    bind(Unicode_AsUTF8, "PyUnicode_AsUTF8");
    bind(DecRef, "Py_DecRef");
    bind(Err_Clear, "PyErr_Clear");
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

struct FrameKey {
  PyObject* code;
  int line;
  bool operator==(const FrameKey&) const = default;
};

struct StackCache {
  std::mutex mutex;  // threads that run Python take turns under the GIL anyway
  // Code objects seen are kept alive (one reference each), so their address
  // never names another code object.
  std::unordered_map<PyObject*, CodeNames> code_names;
  std::unordered_map<uint64_t, std::vector<std::pair<std::vector<FrameKey>, uint32_t>>> stacks;
};
StackCache& Cache() {
  static auto* cache = new StackCache;  // lives past exit handlers
  return *cache;
}

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

uint64_t Hash(const std::vector<FrameKey>& keys) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const FrameKey& k : keys) {
    h = (h ^ reinterpret_cast<uint64_t>(k.code)) * 0x100000001b3ull;
    h = (h ^ static_cast<uint64_t>(k.line)) * 0x100000001b3ull;
  }
  return h;
}

constexpr size_t kMaxFrames = 32;

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
  std::vector<FrameKey> keys;
  uint32_t id = 0;
  {
    std::lock_guard<std::mutex> lock(Cache().mutex);
    for (PyObject* frame = py->ThreadState_GetFrame(py->ThreadState_Get()); frame != nullptr;) {
      if (keys.size() < kMaxFrames) {
        PyObject* code = py->Frame_GetCode(frame);
        keys.push_back({code, py->Frame_GetLineNumber(frame)});
        NamesOf(*py, code);
      }
      PyObject* back = keys.size() < kMaxFrames ? py->Frame_GetBack(frame) : nullptr;
      py->DecRef(frame);
      frame = back;
    }
    auto& candidates = Cache().stacks[Hash(keys)];
    for (const auto& [known, known_id] : candidates)
      if (known == keys) id = known_id;
    if (id == 0 && !keys.empty()) {
      std::vector<StreamcheckFrame> frames;
      bool user_frames = false;
      for (const FrameKey& k : keys) user_frames = user_frames || !Cache().code_names[k.code].framework;
      for (const FrameKey& k : keys) {
        const CodeNames& names = Cache().code_names[k.code];
        if (user_frames && names.framework) continue;
        frames.push_back({names.function.c_str(), names.file.c_str(), static_cast<uint32_t>(k.line)});
      }
      id = hooks.intern_stack(frames.data(), frames.size());
      candidates.emplace_back(keys, id);
    }
  }
  py->GILState_Release(gil);
  walking = false;
  return id;
}

}  // namespace streamcheck::pytorch
