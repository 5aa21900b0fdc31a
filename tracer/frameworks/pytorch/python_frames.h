// A thread's Python frames read in place, from CPython's own structures, for
// the CPython versions whose layout is written down here (3.11, 3.12).
//
// Why: the public API (PyThreadState_GetFrame, PyFrame_GetBack) needs the
// GIL, which PyTorch releases around every op, and it makes a frame object
// for each frame it returns; the interpreter then has to free or take over
// each of those when the function returns, which slows the program's own
// Python code. Reading the frames in place needs neither: while the thread
// is inside a call from Python (an op, an allocation), its frames do not
// change and are alive, and only that thread writes them.
//
// The layout is internal to CPython and not guaranteed, so python_stack.cpp
// trusts a read only after comparing it with the public API's walk of the
// same stack under the GIL, and gives reading in place up when they disagree
// from the start (python_stack.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace streamcheck::pytorch {

// Offsets in bytes of the fields the walk reads.
struct PythonFrameLayout {
  size_t thread_cframe;         // PyThreadState::cframe
  size_t cframe_current_frame;  // _PyCFrame::current_frame
  size_t frame_code;            // _PyInterpreterFrame::f_code
  size_t frame_previous;        // _PyInterpreterFrame::previous
  size_t frame_instruction;     // _PyInterpreterFrame::prev_instr
  size_t frame_owner;           // _PyInterpreterFrame::owner (a char)
  // The owner value of the eval loop's entry frames, which the public API
  // skips (FRAME_OWNED_BY_CSTACK, 3.12); -1 where there are none (3.11).
  int owner_entry_frame;
};

// The layout of the CPython `major.minor`, or null where none is known.
const PythonFrameLayout* PythonFrameLayoutFor(int major, int minor);

// The version Py_GetVersion() reports ("3.12.3 (main, ...)"): false when it
// does not start with "<major>.<minor>".
bool ParsePythonVersion(const char* version, int* major, int* minor);

// One frame as the stack cache keys it: its code object, and where in it the
// frame is (here the address of its current instruction; from the public
// API, the instruction's offset).
struct PythonFrameKey {
  const void* code;
  uint64_t position;
  bool operator==(const PythonFrameKey&) const = default;
};

// Reads the frames of `thread_state` (a PyThreadState*), innermost first,
// into `out`, at most `capacity`; returns how many. Call only on the thread
// the state belongs to, while it is inside a call from Python or runs none.
size_t ReadPythonFrames(const PythonFrameLayout& layout, const void* thread_state, PythonFrameKey* out,
                        size_t capacity);

}  // namespace streamcheck::pytorch
