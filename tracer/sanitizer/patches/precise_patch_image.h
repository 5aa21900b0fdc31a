// The device patches (precise_patches.cu), compiled by nvcc into a fatbin at
// build time and embedded here (embed_fatbin.cmake writes the definition).
#pragma once

#include <cstddef>

namespace streamcheck::tracer::precise {

extern const unsigned char kPrecisePatchImage[];
extern const size_t kPrecisePatchImageSize;

}  // namespace streamcheck::tracer::precise
