// ReadVarint and ReadWideVarint (the word load first, for addresses): every
// length, in the middle of a buffer (the word-at-a-time path) and at its end
// (the byte-by-byte paths), against a reference decoder; PutVarint (a word
// store for most lengths) against the reference's canonical encoding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

#include "runtime/trace/varint.h"

namespace streamcheck::trace_internal {
namespace {

// The LEB128 rules, one byte at a time: at most 10 bytes, at most 64 bits.
std::optional<std::pair<uint64_t, size_t>> Reference(const std::string& bytes) {
  uint64_t value = 0;
  for (size_t i = 0; i < bytes.size() && i < kMaxVarintBytes; ++i) {
    const uint64_t byte = static_cast<uint8_t>(bytes[i]);
    if (i == kMaxVarintBytes - 1 && byte > 1) return std::nullopt;
    value |= (byte & 0x7f) << (7 * i);
    if (byte < 0x80) return std::make_pair(value, i + 1);
  }
  return std::nullopt;
}

using Reader = bool (*)(const uint8_t**, const uint8_t*, uint64_t*);
constexpr Reader kReaders[] = {ReadVarint, ReadWideVarint};

// Decodes `encoding` followed by `tail` (bytes that must not be consumed).
void ExpectDecodes(const std::string& encoding, size_t tail) {
  const std::string buffer = encoding + std::string(tail, '\x85');
  const auto* begin = reinterpret_cast<const uint8_t*>(buffer.data());
  const auto expected = Reference(buffer);
  for (Reader read : kReaders) {
    const uint8_t* p = begin;
    uint64_t value = 0;
    const bool ok = read(&p, begin + buffer.size(), &value);
    ASSERT_EQ(ok, expected.has_value()) << "length " << encoding.size() << " tail " << tail;
    if (ok) {
      EXPECT_EQ(value, expected->first) << "length " << encoding.size() << " tail " << tail;
      EXPECT_EQ(static_cast<size_t>(p - begin), expected->second);
    } else {
      EXPECT_EQ(p, begin);
    }
  }
}

TEST(Varint, EveryWidthRoundTripsWithAndWithoutBytesAfterIt) {
  for (int bit = 0; bit < 64; ++bit) {
    for (uint64_t v : {uint64_t{1} << bit, (uint64_t{1} << bit) - 1, ~uint64_t{0} >> (63 - bit),
                       uint64_t{0x5555555555555555} >> (63 - bit)}) {
      std::string encoding;
      AppendVarint(v, &encoding);
      for (size_t tail : {0, 1, 3, 7, 9, 16}) {
        const std::string buffer = encoding + std::string(tail, '\x01');
        const auto* begin = reinterpret_cast<const uint8_t*>(buffer.data());
        for (Reader read : kReaders) {
          const uint8_t* p = begin;
          uint64_t decoded = 0;
          ASSERT_TRUE(read(&p, begin + buffer.size(), &decoded)) << v;
          EXPECT_EQ(decoded, v);
          EXPECT_EQ(static_cast<size_t>(p - begin), encoding.size());
        }
      }
    }
  }
}

TEST(Varint, PutVarintWritesTheCanonicalEncodingAndNothingPastIt) {
  for (int bit = 0; bit < 64; ++bit) {
    for (uint64_t v : {uint64_t{1} << bit, (uint64_t{1} << bit) - 1, ~uint64_t{0} >> (63 - bit),
                       uint64_t{0x5555555555555555} >> (63 - bit)}) {
      std::string canonical;  // 7 bits a byte, low first, all but the last with 0x80
      for (uint64_t rest = v; ; rest >>= 7) {
        canonical.push_back(static_cast<char>((rest & 0x7f) | (rest >= 0x80 ? 0x80 : 0)));
        if (rest < 0x80) break;
      }
      uint8_t out[kMaxVarintBytes + 4];
      std::fill(std::begin(out), std::end(out), uint8_t{0xee});
      const uint8_t* end = PutVarint(v, out);
      ASSERT_EQ(static_cast<size_t>(end - out), canonical.size()) << v;
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(out), canonical.size()), canonical) << v;
      // Past the room it was promised, nothing is touched.
      for (size_t i = kMaxVarintBytes; i < sizeof out; ++i) EXPECT_EQ(out[i], 0xee) << v;
    }
  }
}

TEST(Varint, NonCanonicalOverlongAndTruncatedEncodingsMatchTheReference) {
  // Every length 1..11 of continuation bytes with a final byte of 0, 1 or 2:
  // padded (non-canonical) forms are accepted up to 10 bytes, never beyond,
  // and a 10th byte above 1 overflows 64 bits.
  for (size_t length = 1; length <= 11; ++length) {
    for (char last : {'\x00', '\x01', '\x02', '\x7f'}) {
      std::string encoding(length - 1, '\xff');
      encoding.push_back(last);
      for (size_t tail : {0, 2, 8, 12}) ExpectDecodes(encoding, tail);
    }
    // Truncated: only continuation bytes up to the end of the buffer.
    ExpectDecodes(std::string(length, '\x80'), 0);
  }
}

}  // namespace
}  // namespace streamcheck::trace_internal
