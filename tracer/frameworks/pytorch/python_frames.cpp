#include "tracer/frameworks/pytorch/python_frames.h"

#include <cstdlib>

namespace streamcheck::pytorch {
namespace {

// From CPython's Include/cpython/pystate.h and Include/internal/pycore_frame.h
// of each version (x86-64 and aarch64 alike: pointers 8 bytes, ints 4).
// 3.11: the frame starts with f_func, f_globals, f_builtins, f_locals, f_code,
// frame_obj, previous, prev_instr, stacktop, is_entry, owner; _PyCFrame
// starts with use_tracing.
constexpr PythonFrameLayout kPython311 = {56, 8, 32, 48, 56, 69, -1};
// 3.12: the frame starts with f_code, previous, f_funcobj, f_globals,
// f_builtins, f_locals, frame_obj, prev_instr, stacktop, return_offset,
// owner; _PyCFrame starts with current_frame.
constexpr PythonFrameLayout kPython312 = {56, 0, 0, 8, 56, 70, 3};
// 3.13 moved the current frame into the thread state and made f_code
// f_executable; it publishes its offsets (_Py_DebugOffsets), which a later
// version of this reader could use. Until then: the public API.

const void* PointerAt(const void* base, size_t offset) {
  return *reinterpret_cast<const void* const*>(static_cast<const char*>(base) + offset);
}

}  // namespace

const PythonFrameLayout* PythonFrameLayoutFor(int major, int minor) {
  if (major != 3) return nullptr;
  if (minor == 11) return &kPython311;
  if (minor == 12) return &kPython312;
  return nullptr;
}

bool ParsePythonVersion(const char* version, int* major, int* minor) {
  if (version == nullptr) return false;
  char* end = nullptr;
  const long a = std::strtol(version, &end, 10);
  if (end == version || *end != '.') return false;
  const char* second = end + 1;
  const long b = std::strtol(second, &end, 10);
  if (end == second) return false;
  *major = static_cast<int>(a);
  *minor = static_cast<int>(b);
  return true;
}

size_t ReadPythonFrames(const PythonFrameLayout& layout, const void* thread_state, PythonFrameKey* out,
                        size_t capacity) {
  const void* cframe = PointerAt(thread_state, layout.thread_cframe);
  if (cframe == nullptr) return 0;
  size_t count = 0;
  for (const void* frame = PointerAt(cframe, layout.cframe_current_frame); frame != nullptr && count < capacity;
       frame = PointerAt(frame, layout.frame_previous)) {
    const char owner = *(static_cast<const char*>(frame) + layout.frame_owner);
    if (owner == layout.owner_entry_frame) continue;
    out[count++] = {PointerAt(frame, layout.frame_code),
                    reinterpret_cast<uint64_t>(PointerAt(frame, layout.frame_instruction))};
  }
  return count;
}

}  // namespace streamcheck::pytorch
