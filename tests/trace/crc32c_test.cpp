// CRC-32C: known values, and the fast paths (hardware or slicing-by-8)
// against a bitwise reference over lengths and alignments.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "runtime/trace/crc32c.h"

namespace streamcheck::trace_internal {
namespace {

uint32_t BitwiseCrc32c(const uint8_t* p, size_t n) {
  uint32_t c = ~0u;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82f63b78 : c >> 1;
  }
  return ~c;
}

TEST(Crc32c, KnownValues) {
  EXPECT_EQ(Crc32c("", 0), 0u);
  EXPECT_EQ(Crc32c("123456789", 9), 0xe3069283u);  // the standard check value
}

TEST(Crc32c, MatchesTheBitwiseReference) {
  std::mt19937_64 rng(5);
  std::string data(40000, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  // Short and long inputs, at odd offsets (the word loops' tails and heads).
  for (size_t n : {0, 1, 7, 8, 100, 12287, 12288, 12289, 12295, 24576, 30001, 39990}) {
    for (size_t offset : {0, 1, 3, 8}) {
      ASSERT_EQ(Crc32c(bytes + offset, n), BitwiseCrc32c(bytes + offset, n)) << n << " at " << offset;
    }
  }
}

TEST(Crc32c, ExtendEqualsTheWhole) {
  std::mt19937_64 rng(6);
  std::string data(50000, '\0');
  for (char& c : data) c = static_cast<char>(rng());
  for (size_t split : {0, 5, 4096, 12288, 20000, 50000}) {
    const uint32_t head = Crc32c(data.data(), split);
    EXPECT_EQ(Crc32cExtend(head, data.data() + split, data.size() - split), Crc32c(data.data(), data.size()))
        << split;
  }
}

}  // namespace
}  // namespace streamcheck::trace_internal
