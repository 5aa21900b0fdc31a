// LEB128 varints and zigzag: the integer encoding of the binary trace payload.
// Inline because record decoding is the replay hot path.
#pragma once

#include <cstdint>
#include <string>

namespace streamcheck::trace_internal {

inline constexpr int kMaxVarintBytes = 10;

inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t ZigZagDecode(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

inline void AppendVarint(uint64_t v, std::string* out) {
  char bytes[kMaxVarintBytes];
  int n = 0;
  while (v >= 0x80) {
    bytes[n++] = static_cast<char>(v | 0x80);
    v >>= 7;
  }
  bytes[n++] = static_cast<char>(v);
  out->append(bytes, n);
}

// Reads one varint from [*p, end). Returns false on running past `end` or on
// an encoding longer than 10 bytes / wider than 64 bits; *p is then unchanged.
inline bool ReadVarint(const uint8_t** p, const uint8_t* end, uint64_t* value) {
  const uint8_t* q = *p;
  if (q < end && *q < 0x80) {  // one-byte values dominate: handle them first
    *value = *q;
    *p = q + 1;
    return true;
  }
  if (end - q >= kMaxVarintBytes) {  // far from the end: no bounds checks per byte
    uint64_t result = 0;
    for (int i = 0; i < kMaxVarintBytes; ++i) {
      uint64_t byte = q[i];
      result |= (byte & 0x7f) << (7 * i);
      if (byte < 0x80) {
        if (i == kMaxVarintBytes - 1 && byte > 1) return false;  // wider than 64 bits
        *value = result;
        *p = q + i + 1;
        return true;
      }
    }
    return false;
  }
  uint64_t result = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (q == end) return false;
    uint8_t byte = *q++;
    if (shift == 63 && byte > 1) return false;  // would overflow 64 bits
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if (byte < 0x80) {
      *value = result;
      *p = q;
      return true;
    }
  }
  return false;
}

}  // namespace streamcheck::trace_internal
