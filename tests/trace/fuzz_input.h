// How the fuzzer (and the corpus replay test) turn a fuzz input into trace bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/trace/binary_format.h"
#include "runtime/trace/trace_io.h"

namespace streamcheck::testing {

// Inputs starting with '!' are a record count byte and a block payload: they
// get a valid file and block header with the right CRC, so that mutations
// reach the record decoder instead of stopping at the checksum.
inline std::string FuzzInputToTrace(const uint8_t* data, size_t size) {
  if (size == 0 || data[0] != '!') return std::string(reinterpret_cast<const char*>(data), size);
  namespace ti = streamcheck::trace_internal;
  std::string file(streamcheck::kBinaryTraceMagic);
  file.append("\x01\0\0\0\0\0\0\0", 8);  // version 1, no flags
  uint32_t count = size > 1 ? data[1] : 0;
  size_t payload_bytes = size > 2 ? size - 2 : 0;
  unsigned char header[ti::kBlockHeaderBytes];
  ti::StoreU32(ti::kBlockMagic, header);
  ti::StoreU32(static_cast<uint32_t>(payload_bytes), header + 4);
  ti::StoreU32(count, header + 8);
  ti::StoreU32(ti::BlockChecksum(header, data + 2, payload_bytes), header + 12);
  file.append(reinterpret_cast<const char*>(header), sizeof header);
  file.append(reinterpret_cast<const char*>(data + 2), payload_bytes);
  return file;
}

}  // namespace streamcheck::testing
