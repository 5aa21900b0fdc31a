// Layout of the binary trace form (docs/internals/trace-format.md is the prose version).
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

// Presence bits of the non-default fields, numbered in the order of
// record_fields.def (the one list of fields; there, ordered by how often the
// tracer sets them so that the presence mask of common records fits in 1-2
// bytes). The numbering is part of the format: append only.
enum FieldBit : uint32_t {
#define STREAMCHECK_TRACE_FIELD(bit, member, key, text_order, text_kind, binary_kind) bit,
#include "runtime/trace/record_fields.def"
  kFieldBitCount,
};
static_assert(kBitThread == 0 && kBitAccesses == 6 && kBitText == 20 && kBitSrcPitch == 30 &&
                  kBitLibrary == 31,
              "the numbering is the format's: fields are appended, never removed or reordered");
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
