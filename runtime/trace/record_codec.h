// Encoding of one TraceRecord inside a binary block payload (the replay hot
// path: decoding allocates nothing once the record's vectors have capacity).
#pragma once

#include <cstdint>
#include <string>

#include "runtime/trace_record.h"

namespace streamcheck::trace_internal {

// What consecutive records of one block share; reset at every block start.
struct BlockCodecState {
  uint64_t previous_timestamp = 0;
};

// An access whose last byte lies past 2^64 - 1: no memory is there, and the
// engine's ranges would wrap. Both readers reject it.
inline bool WrapsAddressSpace(const MemoryAccess& a) { return a.size != 0 && a.addr + (a.size - 1) < a.addr; }

// Checks what the reader would reject (unknown op codes or enum values), so a
// writer refuses a bad record instead of producing an unreadable trace.
bool IsWritableRecord(const TraceRecord& record, std::string* problem);

void EncodeRecord(const TraceRecord& record, BlockCodecState* state, std::string* out);

// Decodes one record from [*p, end) into *out (cleared first) and advances *p.
// On malformed input returns false with *problem describing it (e.g.
// "unknown opcode 200"); *p is then unspecified.
bool DecodeRecord(const uint8_t** p, const uint8_t* end, BlockCodecState* state,
                  TraceRecord* out, std::string* problem);

}  // namespace streamcheck::trace_internal
