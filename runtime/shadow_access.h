// One access as shadow memory remembers it.
#pragma once

#include <cstdint>

#include "runtime/vector_clock.h"

namespace streamcheck {

// What an access did to the bytes. kAllocate/kFree mark lifetime boundaries.
enum class ShadowKind : uint8_t { kRead, kWrite, kReadWrite, kUnknown, kAllocate, kFree };

inline bool ShadowKindWrites(ShadowKind k) { return k != ShadowKind::kRead; }

// Who did an access: the operation (lane, clock) and the code (site). Where
// the operation sits in the trace is kept by the engine's OpLog, not here.
struct ShadowAccess {
  Lane lane = kNoLane;
  Clock clock = 0;
  uint32_t site = 0;  // SiteTable id: the code that did it
  ShadowKind kind = ShadowKind::kRead;
  // These bytes are a kernel's guessed extent, not bytes it was seen to
  // reach (MemoryAccess::certainty): a race on them is only possible.
  bool guessed = false;
  // The destination of a synchronous copy from pageable host memory, which
  // returns once the data is staged; whether its DMA ended before the next
  // call is a hazard by the letter of CUDA's documentation only.
  bool staged_copy = false;

  bool valid() const { return lane != kNoLane; }
  Epoch epoch() const { return {lane, clock}; }
  bool SameAs(const ShadowAccess& o) const {
    return lane == o.lane && clock == o.clock && site == o.site && kind == o.kind && guessed == o.guessed &&
           staged_copy == o.staged_copy;
  }
};
static_assert(sizeof(ShadowAccess) == 16, "ShadowAccess is the hot-path record; keep it packed");

}  // namespace streamcheck
