#include "tracer/stacks/native_unwinder.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "tracer/hot_path.h"
#include "tracer/environment.h"

namespace streamcheck::tracer {
namespace {

// libunwind's API names are macros for architecture-specific symbols
// (unw_step is _ULx86_64_step): dlsym needs the expanded name (and
// unw_getcontext, a function-like macro, its object-like unw_tdep_getcontext).
#define STREAMCHECK_SYMBOL_NAME(x) STREAMCHECK_SYMBOL_NAME_(x)
#define STREAMCHECK_SYMBOL_NAME_(x) #x

using GetContextFn = int (*)(unw_context_t*);
using InitLocalFn = int (*)(unw_cursor_t*, unw_context_t*);
using StepFn = int (*)(unw_cursor_t*);
using GetRegFn = int (*)(unw_cursor_t*, unw_regnum_t, unw_word_t*);
using GetSaveLocFn = int (*)(unw_cursor_t*, int, unw_save_loc_t*);
using IsSignalFrameFn = int (*)(unw_cursor_t*);

constexpr int kMaxUnwinderFrames = 8;  // frames of the unwinder and its callers Backtrace may skip
constexpr int kBacktraceCapacity = 256;

uintptr_t Word(uintptr_t address) { return *reinterpret_cast<const uintptr_t*>(address); }

}  // namespace

StackBounds StackBounds::OfThisThread() {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return {};
  void* low = nullptr;
  size_t size = 0;
  const bool known = pthread_attr_getstack(&attr, &low, &size) == 0;
  pthread_attr_destroy(&attr);
  if (!known) return {};
  return {reinterpret_cast<uintptr_t>(low), reinterpret_cast<uintptr_t>(low) + size};
}

// glibc's backtrace() re-reads the unwind tables (DWARF CFI) of every frame on
// every call: several microseconds for the ~20 frames between a CUDA call and
// main(). libunwind's unw_backtrace caches each return address's frame layout
// and is several times faster once warm, so it is used when the system has
// it (loaded privately, never interposing on the program's own unwinder).
NativeUnwinder::NativeUnwinder() : backtrace_(&backtrace) {
  const char* forced = std::getenv(environment::kUnwinder);
  if (forced != nullptr && std::strcmp(forced, "glibc") == 0) return;
  void* lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return;
  if (auto fn = reinterpret_cast<BacktraceFn>(dlsym(lib, "unw_backtrace"))) backtrace_ = fn;
  void* symbols[] = {dlsym(lib, STREAMCHECK_SYMBOL_NAME(unw_tdep_getcontext)), dlsym(lib, STREAMCHECK_SYMBOL_NAME(unw_init_local)),
                     dlsym(lib, STREAMCHECK_SYMBOL_NAME(unw_step)), dlsym(lib, STREAMCHECK_SYMBOL_NAME(unw_get_reg)),
                     dlsym(lib, STREAMCHECK_SYMBOL_NAME(unw_get_save_loc)),
                     dlsym(lib, STREAMCHECK_SYMBOL_NAME(unw_is_signal_frame))};
  if (std::find(std::begin(symbols), std::end(symbols), nullptr) != std::end(symbols)) return;
  getcontext_ = symbols[0], init_local_ = symbols[1], step_ = symbols[2];
  get_reg_ = symbols[3], get_save_loc_ = symbols[4], is_signal_frame_ = symbols[5];
}

STREAMCHECK_HOT const NativeUnwinder& NativeUnwinder::Get() {
  static const NativeUnwinder* unwinder = new NativeUnwinder;  // lives past exit handlers
  return *unwinder;
}

int NativeUnwinder::Backtrace(uint64_t* pcs, int max, uint64_t first_pc) const {
  void* raw[kBacktraceCapacity];
  const int n = backtrace_(raw, std::min(max + kMaxUnwinderFrames, kBacktraceCapacity));
  int first = 0;
  for (int i = 0; i < std::min(n, kMaxUnwinderFrames); ++i)
    if (reinterpret_cast<uint64_t>(raw[i]) == first_pc) {
      first = i;
      break;
    }
  const int count = std::max(0, std::min(n - first, max));
  for (int i = 0; i < count; ++i) pcs[i] = reinterpret_cast<uint64_t>(raw[first + i]);
  return count;
}

bool NativeUnwinder::Walk(uintptr_t outer_sp, int max, const StackBounds& bounds, std::vector<uint64_t>* pcs,
                          std::vector<StackWitness>* witnesses) const {
  pcs->clear();
  witnesses->clear();
#if defined(__x86_64__)
  if (!CanWalk()) return false;
  const auto get_reg = reinterpret_cast<GetRegFn>(get_reg_);
  const auto get_save_loc = reinterpret_cast<GetSaveLocFn>(get_save_loc_);
  const auto step = reinterpret_cast<StepFn>(step_);
  unw_context_t context;
  unw_cursor_t cursor;
  if (reinterpret_cast<GetContextFn>(getcontext_)(&context) != 0 ||
      reinterpret_cast<InitLocalFn>(init_local_)(&cursor, &context) != 0)
    return false;
  unw_word_t ip = 0, sp = 0, rbp = 0;
  // Past the frames below the one that starts at outer_sp (ours, the walk's).
  for (int frame = 0;; ++frame) {
    if (get_reg(&cursor, UNW_REG_SP, &sp) != 0 || sp > outer_sp || frame > kMaxUnwinderFrames + 4) return false;
    if (sp == outer_sp) break;
    if (step(&cursor) <= 0) return false;
  }
  // A witness is a word in `bounds` that holds what the unwinder read there.
  const auto witness = [&](const unw_save_loc_t& loc, unw_word_t value) {
    if (loc.type != UNW_SLT_MEMORY || !bounds.Contains(loc.u.addr) || Word(loc.u.addr) != value) return false;
    witnesses->push_back({loc.u.addr, value});
    return true;
  };
  unw_save_loc_t ip_loc, rbp_loc;
  for (;;) {
    if (reinterpret_cast<IsSignalFrameFn>(is_signal_frame_)(&cursor) > 0) return false;
    // The frame's return address, its RBP, and where each came from, before stepping past it.
    if (get_reg(&cursor, UNW_REG_IP, &ip) != 0 || get_reg(&cursor, UNW_X86_64_RBP, &rbp) != 0 ||
        get_save_loc(&cursor, UNW_REG_IP, &ip_loc) != 0 || get_save_loc(&cursor, UNW_X86_64_RBP, &rbp_loc) != 0)
      return false;
    if (!witness(ip_loc, ip)) return false;
    pcs->push_back(ip);
    if (static_cast<int>(pcs->size()) >= max) return true;
    const int stepped = step(&cursor);
    if (stepped < 0) return false;
    if (stepped == 0) return true;  // the outermost frame: decided by its return address, witnessed
    unw_word_t cfa = 0;
    if (get_reg(&cursor, UNW_REG_SP, &cfa) != 0) return false;
    // A frame whose CFA may come from its RBP (a frame pointer, or RBP
    // pointing into the frame): the RBP's source is a witness too, and for
    // gcc's realigned frames (CFA loaded from RBP-8) that slot as well.
    const bool rbp_in_frame = rbp >= sp && rbp < cfa;
    if (cfa == rbp + 16 || rbp_in_frame) {
      if (!witness(rbp_loc, rbp)) return false;
      if (rbp_in_frame && rbp - 8 >= sp && bounds.Contains(rbp - 8) && Word(rbp - 8) == cfa) witnesses->push_back({rbp - 8, cfa});
    }
    sp = cfa;
  }
#else
  (void)outer_sp, (void)max, (void)bounds;
  return false;
#endif
}

}  // namespace streamcheck::tracer
