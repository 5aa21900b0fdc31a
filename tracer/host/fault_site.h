// Where a guard page's fault came from and what it touched, from the
// signal's siginfo and ucontext (x86-64 Linux): the exact faulting address,
// read or write from the page-fault error code (REG_ERR bit 1), the faulting
// instruction's address, its access width where the instruction is one of
// the common loads and stores (mov, movzx/movsx, the SSE/AVX moves, the
// locked read-modify-writes; else 1 byte: the faulting byte itself), and
// whether it is an atomic read-modify-write. And whose code made the access:
// the program's, the tracer's own (its reads of a launch's arguments, say),
// or CUDA's (the driver reading or writing pinned memory inside a call, a
// host function running on the driver's thread), told by the code ranges of
// the loaded objects on the faulting thread's stack. No CUDA here: unit-tested.
#pragma once

#include <signal.h>
#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "runtime/ids.h"

namespace streamcheck::tracer::host {

struct FaultSite {
  Address address = 0;
  uint64_t size = 1;
  bool write = false;
  uint64_t pc = 0;
  // An atomic read-modify-write of exactly these bytes (lock prefix, xchg):
  // synchronization with the device, as system-scope atomics are
  // (cuda-samples' systemWideAtomics), not a data access to check.
  bool atomic = false;
};

FaultSite ReadFaultSite(const siginfo_t* info, const ucontext_t* context);

// Bytes the instruction at `code` reads or writes through its memory
// operand, or 0 when it is not one this knows.
uint64_t AccessWidthOf(const uint8_t* code);

// The executable code of some loaded objects.
class CodeRanges {
 public:
  // Objects whose file name (the part after the last '/') starts with one
  // of `prefixes`, as loaded now.
  void AddObjectsNamed(std::initializer_list<const char*> prefixes);
  void Add(uint64_t begin, uint64_t end) { ranges_.push_back({begin, end}); }
  bool Contains(uint64_t pc) const {
    for (const Range& r : ranges_)
      if (pc >= r.begin && pc < r.end) return true;
    return false;
  }

 private:
  struct Range {
    uint64_t begin, end;
  };
  std::vector<Range> ranges_;
};

enum class FaultOrigin { kProgram, kTracer, kCuda };

// `stack`: return addresses of the faulting thread innermost first, the
// faulting instruction (`pc`) among them (frames before it are the signal
// handler's own and are skipped; without it, the whole stack counts).
// `in_followed_host_function`: the thread is running a host function the
// tracer follows (host_func_trampoline.h, graph_host_nodes.h), called from
// the tracer's trampoline: the first tracer frame outward is that trampoline,
// so what lies inside it is the program's (a CUDA frame first is still CUDA's).
FaultOrigin OriginOf(uint64_t pc, const uint64_t* stack, size_t count, const CodeRanges& tracer,
                     const CodeRanges& cuda, bool in_followed_host_function = false);

}  // namespace streamcheck::tracer::host
