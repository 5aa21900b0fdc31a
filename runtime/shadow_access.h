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
  // A kernel pointer's extent (AccessCertainty::kFirstByte) kept whole: the
  // first byte of the interval holding it is certain, the rest guessed
  // (`guessed` is set). It stands for two intervals, the first byte with the
  // access certain and the rest with it guessed (HeadPart, TailPart), so the
  // common kernel access costs one shadow lookup, not two
  // (shadow_first_byte.cpp).
  bool first_byte = false;
  // The destination of a synchronous copy from pageable host memory, which
  // returns once the data is staged; whether its DMA ended before the next
  // call is a hazard by the letter of CUDA's documentation only.
  bool staged_copy = false;

  bool valid() const { return lane != kNoLane; }
  Epoch epoch() const { return {lane, clock}; }
  bool SameAs(const ShadowAccess& o) const {
    return lane == o.lane && clock == o.clock && site == o.site && kind == o.kind && guessed == o.guessed &&
           staged_copy == o.staged_copy && first_byte == o.first_byte;
  }
};
static_assert(sizeof(ShadowAccess) == 16, "ShadowAccess is the hot-path record; keep it packed");

// What a first-byte access is on its first byte (certain) and past it (guessed).
inline ShadowAccess HeadPart(ShadowAccess a) {
  if (a.first_byte) a.first_byte = a.guessed = false;
  return a;
}
inline ShadowAccess TailPart(ShadowAccess a) {
  a.first_byte = false;
  return a;
}

}  // namespace streamcheck
