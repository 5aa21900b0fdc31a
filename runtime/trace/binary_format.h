// Layout of the binary trace form (docs/TRACE_FORMAT.md is the prose version).
//
//   file   := file_header block*
//   file_header (16 bytes) := magic[8] version:u32le flags:u32le
//   block  := block_header payload
//   block_header (16 bytes) := block_magic:u32le payload_bytes:u32le
//                              record_count:u32le crc32c:u32le
//   crc32c := CRC-32C of payload_bytes, record_count (as stored) and the payload
//   payload := record{record_count}
//   record := opcode:u8 present:varint field*   (fields in FieldBit order)
//
// Blocks are self-contained (the timestamp delta restarts at 0 in each), so a
// reader can stop at the first damaged block having delivered all before it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/trace/crc32c.h"

namespace streamcheck::trace_internal {

inline constexpr size_t kFileHeaderBytes = 16;
inline constexpr size_t kBlockHeaderBytes = 16;
// Bumped when a reader of the previous version could misread a new file.
inline constexpr uint32_t kFormatVersion = 1;
// No file flags are defined in version 1; a reader rejects unknown ones.
inline constexpr uint32_t kKnownFileFlags = 0;
inline constexpr uint32_t kBlockMagic = 0x4b4c4253;  // "SBLK" little-endian

// Guards against corrupt lengths: no block, record or field may exceed these,
// so a reader never allocates more than kMaxBlockPayloadBytes for one block.
inline constexpr uint32_t kMaxBlockPayloadBytes = 16u << 20;
inline constexpr size_t kMaxRecordBytes = 8u << 20;

// An access's mode byte carries its certainty (MemoryAccess::certainty) in
// its high bits: mode | certainty << kCertaintyShift. Readers before them
// rejected such a byte as an unknown mode, so a new trace fails loudly there
// rather than being misread.
inline constexpr unsigned kCertaintyShift = 6;

// Presence bits of the non-default fields, ordered by how often the tracer
// sets them so that the presence mask of common records fits in 1-2 bytes.
// The numbering is part of the format: append only.
enum FieldBit : uint32_t {
  kBitThread = 0,       // varint
  kBitTimestamp = 1,    // zigzag varint delta from the previous timestamp in the block
  kBitStream = 2,       // varint
  kBitName = 3,         // varint
  kBitApi = 4,          // varint
  kBitStack = 5,        // varint
  kBitAccesses = 6,     // count, then (addr varint, size varint, mode u8 | certainty << 6) each
  kBitDst = 7,          // varint
  kBitSize = 8,         // varint
  kBitEvent = 9,        // varint
  kBitSrc = 10,         // varint
  kBitIsAsync = 11,     // no payload: presence means true
  kBitCopyKind = 12,    // u8
  kBitMemoryKind = 13,  // u8
  kBitDevice = 14,      // zigzag varint (default -1 is "absent")
  kBitResult = 15,      // zigzag varint
  kBitFlags = 16,       // varint
  kBitPriority = 17,    // zigzag varint
  kBitFrameworkOp = 18, // varint
  kBitId = 19,          // varint
  kBitText = 20,        // length varint, bytes
  kBitFrames = 21,      // count, then (function, file, line, pc varints) each
  kBitDeps = 22,        // count, then varint each
  kBitGraph = 23,       // varint
  kBitGraphExec = 24,   // varint
  kBitNode = 25,        // varint
  kBitNodeOp = 26,      // u8
  kBitEvent2 = 27,      // varint
  kBitHeight = 28,      // varint
  kBitDstPitch = 29,    // varint
  kBitSrcPitch = 30,    // varint
  kFieldBitCount = 31,
};
inline constexpr uint64_t kKnownFieldMask = (uint64_t{1} << kFieldBitCount) - 1;

inline void StoreU32(uint32_t v, unsigned char* p) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}
inline uint32_t LoadU32(const unsigned char* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

// The checksum covers the block's length and count too, so that a damaged
// header is caught before any of its records are delivered.
inline uint32_t BlockChecksum(const unsigned char* block_header, const void* payload,
                              size_t payload_bytes) {
  return Crc32cExtend(Crc32c(block_header + 4, 8), payload, payload_bytes);
}

}  // namespace streamcheck::trace_internal
