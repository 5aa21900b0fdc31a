// CRC-32C (Castagnoli), the checksum of every binary trace block. Chosen over
// the zlib CRC-32 because x86 (SSE4.2) and ARMv8 compute it in hardware, which
// keeps checking well under a nanosecond per byte on replay.
#pragma once

#include <cstddef>
#include <cstdint>

namespace streamcheck::trace_internal {

uint32_t Crc32c(const void* data, size_t size);
// The CRC of the concatenation of the bytes that gave `crc` and `data`.
uint32_t Crc32cExtend(uint32_t crc, const void* data, size_t size);

}  // namespace streamcheck::trace_internal
