// The unwinders behind host stacks. A fast one takes return addresses only
// (libunwind's unw_backtrace, which caches each return address's frame
// layout, or glibc's backtrace() where libunwind is missing). A slow one
// (libunwind's unw_step, some 500 ns a frame) also says which stack words
// the result was computed from: the "witnesses" that let RepeatedStacks
// (repeated_stacks.h) recognize the same stack later without unwinding.
//
// Why witnesses suffice: on x86-64 an unwinder computes each frame's CFA
// from the frame's stack pointer plus a constant fixed by its return address
// (SP-based frames), or from its RBP (frame-pointer frames, and gcc's
// realigned frames that load the CFA from RBP-8). It reads the next return
// address at CFA-8. So, starting from the same stack pointer, the walk reads
// the same words and gets the same result as long as these hold the same
// values: every return address slot, the slot each RBP-based frame's RBP
// came from, and the realigned frames' CFA slot. Signal frames (which take
// their registers from a saved context) are never witnessed.
#pragma once

#include <cstdint>
#include <vector>

namespace streamcheck::tracer {

// A stack word that decided an unwind, with the value it held.
struct StackWitness {
  uintptr_t address;
  uintptr_t value;
};

// The thread's stack: witnesses are only ever read inside it.
struct StackBounds {
  uintptr_t low = 0, high = 0;  // [low, high)
  bool Contains(uintptr_t address, uintptr_t bytes = sizeof(uintptr_t)) const {
    return address >= low && address <= high && high - address >= bytes;
  }
  static StackBounds OfThisThread();  // empty when the system cannot say
};

class NativeUnwinder {
 public:
  // The process's unwinder, chosen once (STREAMCHECK_UNWINDER=glibc forces
  // glibc's, and turns the slow walk off).
  static const NativeUnwinder& Get();

  // Return addresses of the calling thread's stack, innermost first,
  // starting with the frame that returns to `first_pc` when it is among the
  // first frames (so the unwinder's own frames are left out). Returns the count.
  int Backtrace(uint64_t* pcs, int max, uint64_t first_pc) const;

  bool CanWalk() const { return step_ != nullptr; }
  // The slow walk: return addresses of the frames whose stack pointer is at
  // or above `outer_sp` (the frame that returns to *(outer_sp - 8) first),
  // and their witnesses, which all lie in `bounds`. False when the stack
  // cannot be witnessed (a signal frame, an unwinding error, a slot outside
  // the bounds); `pcs` may then be partial.
  bool Walk(uintptr_t outer_sp, int max, const StackBounds& bounds, std::vector<uint64_t>* pcs,
            std::vector<StackWitness>* witnesses) const;

 private:
  NativeUnwinder();
  using BacktraceFn = int (*)(void**, int);
  BacktraceFn backtrace_ = nullptr;
  // libunwind's cursor API, when loaded (the types live in native_unwinder.cpp).
  void* getcontext_ = nullptr;
  void* init_local_ = nullptr;
  void* step_ = nullptr;
  void* get_reg_ = nullptr;
  void* get_save_loc_ = nullptr;
  void* is_signal_frame_ = nullptr;
};

}  // namespace streamcheck::tracer
