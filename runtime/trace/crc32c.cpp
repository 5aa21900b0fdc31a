#include "runtime/trace/crc32c.h"

#include <array>
#include <bit>
#include <cstring>

namespace streamcheck::trace_internal {
namespace {

constexpr uint32_t kPolynomial = 0x82f63b78;  // reflected Castagnoli

// Slicing-by-8 tables for the portable path.
constexpr std::array<std::array<uint32_t, 256>, 8> MakeTables() {
  std::array<std::array<uint32_t, 256>, 8> t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; ++i) {
    for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  }
  return t;
}
constexpr auto kTables = MakeTables();

uint32_t Crc32cPortable(uint32_t crc, const uint8_t* p, size_t n) {
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    if constexpr (std::endian::native == std::endian::big) word = __builtin_bswap64(word);
    word ^= crc;
    crc = kTables[7][word & 0xff] ^ kTables[6][(word >> 8) & 0xff] ^
          kTables[5][(word >> 16) & 0xff] ^ kTables[4][(word >> 24) & 0xff] ^
          kTables[3][(word >> 32) & 0xff] ^ kTables[2][(word >> 40) & 0xff] ^
          kTables[1][(word >> 48) & 0xff] ^ kTables[0][word >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
  return crc;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define STREAMCHECK_CRC32C_SSE42 1

// The crc32 instruction takes 3 cycles but can start every cycle, so one
// dependent chain used a third of it (CRC-32C was ~5% of a replay). Long
// inputs run as three chains over adjacent stripes, joined at the end of each
// round; the tests cover the round boundaries (multiples of 3 * kStripe).
constexpr size_t kStripe = 4096;

// The CRC register after kStripe zero bytes, as a function of the register
// before: linear over GF(2), so one table per byte of the register.
struct StripeShift {
  std::array<std::array<uint32_t, 256>, 4> table;
  uint32_t operator()(uint32_t c) const {
    return table[0][c & 0xff] ^ table[1][(c >> 8) & 0xff] ^ table[2][(c >> 16) & 0xff] ^ table[3][c >> 24];
  }
};

__attribute__((target("sse4.2"))) StripeShift MakeStripeShift() {
  uint32_t image[32];  // of each single-bit register
  for (int bit = 0; bit < 32; ++bit) {
    uint64_t c = uint64_t{1} << bit;
    for (size_t i = 0; i < kStripe; i += 8) c = __builtin_ia32_crc32di(c, 0);
    image[bit] = static_cast<uint32_t>(c);
  }
  StripeShift shift{};
  for (int byte = 0; byte < 4; ++byte) {
    for (uint32_t v = 0; v < 256; ++v) {
      uint32_t x = 0;
      for (int k = 0; k < 8; ++k)
        if (v >> k & 1) x ^= image[8 * byte + k];
      shift.table[byte][v] = x;
    }
  }
  return shift;
}

__attribute__((target("sse4.2"))) uint32_t Crc32cSse42(uint32_t crc, const uint8_t* p, size_t n) {
  uint64_t c = crc;
  if (n >= 3 * kStripe) {
    static const StripeShift shift = MakeStripeShift();
    do {
      uint64_t c1 = 0, c2 = 0;
      for (size_t i = 0; i < kStripe; i += 8) {
        uint64_t w0, w1, w2;
        std::memcpy(&w0, p + i, 8);
        std::memcpy(&w1, p + kStripe + i, 8);
        std::memcpy(&w2, p + 2 * kStripe + i, 8);
        c = __builtin_ia32_crc32di(c, w0);
        c1 = __builtin_ia32_crc32di(c1, w1);
        c2 = __builtin_ia32_crc32di(c2, w2);
      }
      // The register over A|B|C is shift(shift(crc(A)) ^ crc0(B)) ^ crc0(C),
      // crc0 being the register run from zero.
      c = shift(shift(static_cast<uint32_t>(c)) ^ static_cast<uint32_t>(c1)) ^ static_cast<uint32_t>(c2);
      p += 3 * kStripe;
      n -= 3 * kStripe;
    } while (n >= 3 * kStripe);
  }
  while (n >= 8) {
    uint64_t word;
    std::memcpy(&word, p, 8);
    c = __builtin_ia32_crc32di(c, word);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = static_cast<uint32_t>(c);
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return c32;
}
#endif

}  // namespace

uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
#ifdef STREAMCHECK_CRC32C_SSE42
  static const bool has_sse42 = __builtin_cpu_supports("sse4.2");
  if (has_sse42) return ~Crc32cSse42(~crc, p, size);
#endif
  return ~Crc32cPortable(~crc, p, size);
}

uint32_t Crc32c(const void* data, size_t size) { return Crc32cExtend(0, data, size); }

}  // namespace streamcheck::trace_internal
