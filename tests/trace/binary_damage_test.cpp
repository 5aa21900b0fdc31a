// Damaged binary traces: every record before the damaged block comes out, and
// the error names the byte offset and the problem.
#include <gtest/gtest.h>

#include "runtime/trace/binary_format.h"
#include "runtime/trace/crc32c.h"
#include "runtime/trace/varint.h"
#include "tests/trace/random_records.h"
#include "tests/trace/trace_test_util.h"

namespace streamcheck {
namespace {

using testing::ReadAll;
using testing::WriteBinary;
namespace ti = trace_internal;

// A small trace of several blocks, and where each block starts.
struct SmallTrace {
  std::vector<TraceRecord> records;
  std::string bytes;
  std::vector<size_t> block_offsets;     // file offset of each block
  std::vector<size_t> records_before;    // records in the blocks before each block
};

SmallTrace MakeSmallTrace() {
  SmallTrace t;
  testing::RandomRecords random(3);
  for (int i = 0; i < 12; ++i) t.records.push_back(random.Make());
  t.bytes = WriteBinary(t.records, {200});
  size_t offset = ti::kFileHeaderBytes, count = 0;
  while (offset < t.bytes.size()) {
    t.block_offsets.push_back(offset);
    t.records_before.push_back(count);
    auto* header = reinterpret_cast<const unsigned char*>(t.bytes.data() + offset);
    count += ti::LoadU32(header + 8);
    offset += ti::kBlockHeaderBytes + ti::LoadU32(header + 4);
  }
  return t;
}

// Builds a file of one block holding `payload`, with a correct CRC unless told.
std::string OneBlockFile(const std::string& payload, uint32_t record_count) {
  std::string bytes = WriteBinary({});
  unsigned char header[16];
  ti::StoreU32(ti::kBlockMagic, header);
  ti::StoreU32(static_cast<uint32_t>(payload.size()), header + 4);
  ti::StoreU32(record_count, header + 8);
  ti::StoreU32(ti::BlockChecksum(header, payload.data(), payload.size()), header + 12);
  bytes.append(reinterpret_cast<const char*>(header), 16);
  return bytes + payload;
}

void ExpectPrefix(const std::vector<TraceRecord>& got, const std::vector<TraceRecord>& all,
                  size_t at_least) {
  ASSERT_GE(got.size(), at_least);
  ASSERT_LE(got.size(), all.size());
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], all[i]) << "record " << i;
}

TEST(BinaryDamage, SmallTraceHasSeveralBlocks) {
  EXPECT_GE(MakeSmallTrace().block_offsets.size(), 3u);
}

TEST(BinaryDamage, TruncationAtEveryByte) {
  SmallTrace t = MakeSmallTrace();
  for (size_t cut = 0; cut < t.bytes.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    auto result = ReadAll(t.bytes.substr(0, cut));
    if (cut == 0) {  // an empty file is an empty trace
      EXPECT_EQ(result.end, TraceSource::Status::kEnd);
      continue;
    }
    if (cut < ti::kFileHeaderBytes) {
      EXPECT_EQ(result.end, TraceSource::Status::kError);
      EXPECT_NE(result.error.find("truncated file header"), std::string::npos) << result.error;
      continue;
    }
    // The block the cut falls in (or the one starting exactly at the cut).
    size_t block = 0;
    while (block + 1 < t.block_offsets.size() && t.block_offsets[block + 1] <= cut) ++block;
    bool at_boundary = cut == ti::kFileHeaderBytes ||
                       std::count(t.block_offsets.begin(), t.block_offsets.end(), cut) > 0;
    if (at_boundary) {  // a crash between two write()s: a clean, shorter trace
      EXPECT_EQ(result.end, TraceSource::Status::kEnd) << result.error;
      EXPECT_EQ(result.records.size(), t.records_before[block]);
    } else {
      ASSERT_EQ(result.end, TraceSource::Status::kError);
      EXPECT_EQ(result.records.size(), t.records_before[block]);
      std::string where = "block at offset " + std::to_string(t.block_offsets[block]);
      EXPECT_NE(result.error.find(where), std::string::npos) << result.error;
      EXPECT_NE(result.error.find("truncated"), std::string::npos) << result.error;
      EXPECT_EQ(result.error_offset, t.block_offsets[block]);
    }
    ExpectPrefix(result.records, t.records, 0);
  }
}

TEST(BinaryDamage, EveryFlippedByteIsDetected) {
  SmallTrace t = MakeSmallTrace();
  for (size_t pos = 0; pos < t.bytes.size(); ++pos) {
    for (unsigned char mask : {0x01, 0x80, 0xff}) {
      SCOPED_TRACE("byte " + std::to_string(pos) + " ^ " + std::to_string(mask));
      std::string damaged = t.bytes;
      damaged[pos] = static_cast<char>(damaged[pos] ^ mask);
      auto result = ReadAll(damaged);
      ASSERT_EQ(result.end, TraceSource::Status::kError);
      EXPECT_FALSE(result.error.empty());
      if (pos < ti::kFileHeaderBytes) {
        EXPECT_TRUE(result.records.empty());
        EXPECT_LT(result.error_offset, ti::kFileHeaderBytes);
        continue;
      }
      size_t block = 0;
      while (block + 1 < t.block_offsets.size() && t.block_offsets[block + 1] <= pos) ++block;
      EXPECT_EQ(result.records.size(), t.records_before[block]);
      EXPECT_EQ(result.error_offset, t.block_offsets[block]);
      ExpectPrefix(result.records, t.records, 0);
    }
  }
}

TEST(BinaryDamage, CrcMismatchIsNamed) {
  SmallTrace t = MakeSmallTrace();
  std::string damaged = t.bytes;
  damaged[t.block_offsets[1] + 20] ^= 0x10;
  auto result = ReadAll(damaged);
  EXPECT_EQ(result.error,
            "t: block at offset " + std::to_string(t.block_offsets[1]) + ": CRC mismatch" +
                result.error.substr(result.error.find(" (stored")));
  EXPECT_EQ(result.records.size(), t.records_before[1]);
}

TEST(BinaryDamage, WrongMagic) {
  std::string bytes = WriteBinary({});
  bytes[3] = 'X';
  auto result = ReadAll(bytes);
  EXPECT_EQ(result.error, "t: offset 0: not a streamcheck binary trace (bad magic)");
}

TEST(BinaryDamage, NewerFormatVersion) {
  std::string bytes = WriteBinary({});
  ti::StoreU32(ti::kFormatVersion + 1, reinterpret_cast<unsigned char*>(bytes.data() + 8));
  auto result = ReadAll(bytes);
  ASSERT_EQ(result.end, TraceSource::Status::kError);
  EXPECT_NE(result.error.find("version 2 is newer"), std::string::npos) << result.error;
  EXPECT_EQ(result.error_offset, 8u);
}

TEST(BinaryDamage, UnknownFileFlags) {
  std::string bytes = WriteBinary({});
  ti::StoreU32(4, reinterpret_cast<unsigned char*>(bytes.data() + 12));
  EXPECT_NE(ReadAll(bytes).error.find("unknown file flags 0x4"), std::string::npos);
}

TEST(BinaryDamage, HugeBlockLengthIsRejectedWithoutAllocating) {
  std::string bytes = OneBlockFile("", 0);
  ti::StoreU32(0xffffffff, reinterpret_cast<unsigned char*>(bytes.data() + 16 + 4));
  auto result = ReadAll(bytes);
  EXPECT_NE(result.error.find("block at offset 16: payload length 4294967295 exceeds"),
            std::string::npos)
      << result.error;
  // Within the limit but past the end of the file: a truncation.
  ti::StoreU32(ti::kMaxBlockPayloadBytes, reinterpret_cast<unsigned char*>(bytes.data() + 20));
  result = ReadAll(bytes);
  EXPECT_NE(result.error.find("truncated: header declares 16777216 payload bytes, only 0"),
            std::string::npos)
      << result.error;
}

TEST(BinaryDamage, ImpossibleRecordCount) {
  auto result = ReadAll(OneBlockFile(std::string("\x32\x00", 2), 1000));
  EXPECT_NE(result.error.find("record count 1000 cannot fit in 2 payload bytes"),
            std::string::npos)
      << result.error;
}

TEST(BinaryDamage, UnknownOpcodeNamesRecordAndBlock) {
  std::string payload;
  payload += static_cast<char>(OpCode::kDeviceSynchronize);
  payload += '\0';
  payload += static_cast<char>(OpCode::kDeviceSynchronize);
  payload += '\0';
  payload += static_cast<char>(200);
  payload += '\0';
  auto result = ReadAll(OneBlockFile(payload, 3));
  EXPECT_EQ(result.records.size(), 2u);  // the good records before it
  EXPECT_EQ(result.error, "t: record 2 of 3 in block at offset 16 (byte 36): unknown opcode 200");
  EXPECT_EQ(result.error_offset, 36u);
}

TEST(BinaryDamage, HugeCountsInsideAValidBlockAreCleanErrors) {
  for (auto [bit, field] : {std::pair{ti::kBitAccesses, "accesses"}, {ti::kBitDeps, "deps"},
                            {ti::kBitFrames, "frames"}, {ti::kBitText, "text length"}}) {
    std::string payload;
    payload += static_cast<char>(OpCode::kKernelLaunch);
    ti::AppendVarint(uint64_t{1} << bit, &payload);
    ti::AppendVarint(uint64_t{1} << 60, &payload);
    auto result = ReadAll(OneBlockFile(payload, 1));
    ASSERT_EQ(result.end, TraceSource::Status::kError);
    EXPECT_NE(result.error.find(std::string(field) + " count 1152921504606846976 exceeds"),
              std::string::npos)
        << result.error;
  }
}

TEST(BinaryDamage, BadFieldValuesAreCleanErrors) {
  struct Case {
    ti::FieldBit bit;
    std::string value;
    std::string expected;
  };
  std::string overlong(11, '\x80');
  const Case cases[] = {
      {ti::kBitThread, "\x80\x80\x80\x80\x10", "thread: value out of range"},
      {ti::kBitStream, overlong, "stream: truncated or overlong varint"},
      {ti::kBitCopyKind, "\x09", "unknown copy kind 9"},
      {ti::kBitMemoryKind, "\x06", "unknown memory kind 6"},
      {ti::kBitNodeOp, "\x07", "unknown node_op opcode 7"},
      {ti::kBitAccesses, std::string("\x01\x10\x10\x00", 4), "unknown access mode 0"},
      {ti::kBitDevice, "\xff\xff\xff\xff\x7f", "device: value out of range"},
      {ti::kBitSize, "", "size: truncated or overlong varint"},
  };
  for (const Case& c : cases) {
    std::string payload;
    payload += static_cast<char>(OpCode::kMemcpy);
    ti::AppendVarint(uint64_t{1} << c.bit, &payload);
    payload += c.value;
    payload.resize(std::max<size_t>(payload.size(), 2));
    auto result = ReadAll(OneBlockFile(payload, 1));
    ASSERT_EQ(result.end, TraceSource::Status::kError) << c.expected;
    EXPECT_NE(result.error.find(c.expected), std::string::npos) << result.error;
  }
}

TEST(BinaryDamage, UnknownFieldBitsAndTrailingBytes) {
  std::string payload;
  payload += static_cast<char>(OpCode::kMemcpy);
  ti::AppendVarint(uint64_t{1} << 40, &payload);
  EXPECT_NE(ReadAll(OneBlockFile(payload, 1)).error.find("unknown field bits"),
            std::string::npos);

  std::string trailing = std::string("\x1e\x00", 2) + "junk";
  auto result = ReadAll(OneBlockFile(trailing, 1));
  EXPECT_EQ(result.records.size(), 1u);
  EXPECT_NE(result.error.find("block at offset 16: 4 bytes left after its last record"),
            std::string::npos)
      << result.error;
}

TEST(BinaryDamage, ErrorsAreSticky) {
  auto source = OpenTraceFromString(std::string(kBinaryTraceMagic) + "x");
  TraceRecord r;
  EXPECT_EQ(source->Next(&r), TraceSource::Status::kError);
  EXPECT_EQ(source->Next(&r), TraceSource::Status::kError);
}

}  // namespace
}  // namespace streamcheck
