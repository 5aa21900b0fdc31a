// LEB128 varints and zigzag: the integer encoding of the binary trace payload.
// Inline because record decoding is the replay hot path.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>

namespace streamcheck::trace_internal {

inline constexpr int kMaxVarintBytes = 10;

inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t ZigZagDecode(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

// Writes v at p, which must have room for kMaxVarintBytes, and returns the
// end of what it wrote. Values of 2 to 8 bytes (handles, addresses: most of a
// record) take one word store: their 7-bit groups spread into bytes in three
// shift-and-mask steps (GatherVarint's inverse), not a loop per byte.
[[gnu::always_inline]] inline uint8_t* PutVarint(uint64_t v, uint8_t* p) {
  if (v < 0x80) {
    *p = static_cast<uint8_t>(v);
    return p + 1;
  }
  if (std::endian::native == std::endian::little && v < (uint64_t{1} << 56)) {
    uint64_t x = v;
    x = (x & 0x000000000fffffffull) | ((x & 0x00fffffff0000000ull) << 4);
    x = (x & 0x00003fff00003fffull) | ((x & 0x0fffc0000fffc000ull) << 2);
    x = (x & 0x007f007f007f007full) | ((x & 0x3f803f803f803f80ull) << 1);
    const int bytes = (64 - std::countl_zero(v) + 6) / 7;  // 2 to 8
    x |= 0x8080808080808080ull & ((uint64_t{1} << (8 * (bytes - 1))) - 1);  // all but the last continue
    std::memcpy(p, &x, sizeof x);
    return p + bytes;
  }
  while (v >= 0x80) {
    *p++ = static_cast<uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<uint8_t>(v);
  return p;
}

inline void AppendVarint(uint64_t v, std::string* out) {
  uint8_t bytes[kMaxVarintBytes];
  out->append(reinterpret_cast<const char*>(bytes), static_cast<size_t>(PutVarint(v, bytes) - bytes));
}

// The 7-bit groups of the first `Bytes` bytes of `word` (little-endian), in
// three shift-and-mask steps instead of a loop per byte.
template <int Bytes>
[[gnu::always_inline]] inline uint64_t GatherVarint(uint64_t word) {
  uint64_t x = word & (~uint64_t{0} >> (64 - 8 * Bytes));
  x = (x & 0x007f007f007f007full) | ((x & 0x7f007f007f007f00ull) >> 1);
  x = (x & 0x00003fff00003fffull) | ((x & 0x3fff00003fff0000ull) >> 2);
  x = (x & 0x000000000fffffffull) | ((x & 0x0fffffff00000000ull) >> 4);
  return x;
}

// Past 8 bytes, or too close to `end` for a word load: byte by byte.
inline bool ReadVarintBytewise(const uint8_t** p, const uint8_t* end, uint64_t* value) {
  const uint8_t* q = *p;
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

// Values of `kShortest` to 8 bytes, with 8 bytes readable at *p: one word
// load finds the last byte. The cursor then advances by a branch per length,
// not by the computed length: the decoder is one chain of dependent cursor
// updates, and a computed advance put the load, the bit scan and the add of
// every multi-byte field on it (~12 cycles each), where a predicted branch
// lets the next field's load start at once. Each field's call site is
// inlined, so the prediction is per field (addresses are nearly always one
// length). False when the value is longer (or shorter than kShortest).
// Little-endian machines only.
template <int kShortest>
[[gnu::always_inline]] inline bool ReadVarintWord(const uint8_t** p, uint64_t* value) {
  const uint8_t* q = *p;
  uint64_t word;
  std::memcpy(&word, q, 8);
  const uint64_t stops = ~word & 0x8080808080808080ull;  // bytes without a continuation bit
  switch (std::countr_zero(stops) / 8 + 1) {
    case 1: if constexpr (kShortest <= 1) { *value = GatherVarint<1>(word); *p = q + 1; return true; } break;
    case 2: if constexpr (kShortest <= 2) { *value = GatherVarint<2>(word); *p = q + 2; return true; } break;
    case 3: *value = GatherVarint<3>(word); *p = q + 3; return true;
    case 4: *value = GatherVarint<4>(word); *p = q + 4; return true;
    case 5: *value = GatherVarint<5>(word); *p = q + 5; return true;
    case 6: *value = GatherVarint<6>(word); *p = q + 6; return true;
    case 7: *value = GatherVarint<7>(word); *p = q + 7; return true;
    case 8: *value = GatherVarint<8>(word); *p = q + 8; return true;
    default: break;  // longer than 8 bytes (stops == 0)
  }
  return false;
}

// Multi-byte values; see ReadVarint.
[[gnu::always_inline]] inline bool ReadLongVarint(const uint8_t** p, const uint8_t* end, uint64_t* value) {
  const uint8_t* q = *p;
  if (end - q >= 2 && q[1] < 0x80) {  // sizes, handles: two bytes are common too
    *value = (q[0] & 0x7f) | (uint64_t{q[1]} << 7);
    *p = q + 2;
    return true;
  }
  if constexpr (std::endian::native == std::endian::little) {
    if (end - q >= 8 && ReadVarintWord<3>(p, value)) return true;
  }
  return ReadVarintBytewise(p, end, value);
}

// Reads one varint from [*p, end). Returns false on running past `end` or on
// an encoding longer than 10 bytes / wider than 64 bits; *p is then unchanged.
[[gnu::always_inline]] inline bool ReadVarint(const uint8_t** p, const uint8_t* end, uint64_t* value) {
  const uint8_t* q = *p;
  if (q < end && *q < 0x80) [[likely]] {  // one-byte values dominate: handle them first
    *value = *q;
    *p = q + 1;
    return true;
  }
  return ReadLongVarint(p, end, value);
}

// ReadVarint for fields that are rarely one or two bytes (addresses: 6 or 7):
// the word load comes first, where ReadVarint would test for one byte and
// for two before it (~7 instructions per address, three per kernel record).
[[gnu::always_inline]] inline bool ReadWideVarint(const uint8_t** p, const uint8_t* end, uint64_t* value) {
  if constexpr (std::endian::native == std::endian::little) {
    if (end - *p >= 8) return ReadVarintWord<1>(p, value) || ReadVarintBytewise(p, end, value);
  }
  return ReadVarint(p, end, value);
}

}  // namespace streamcheck::trace_internal
