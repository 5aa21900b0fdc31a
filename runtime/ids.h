// Basic identifiers shared by the runtime, the trace format and the tracer.
#pragma once

#include <cstdint>

namespace streamcheck {

using Address = uint64_t;
using StringId = uint32_t;  // index into the trace's string table; 0 = none
using StackId = uint32_t;   // index into the trace's stack table; 0 = none
using ThreadId = uint32_t;  // host thread ordinal assigned by the tracer
using DeviceId = int32_t;
using Handle = uint64_t;    // a CUDA handle value (stream, event, graph, ...) as seen in the process

// Stream handle values with special meaning in the CUDA runtime API.
inline constexpr Handle kLegacyStreamHandle = 0x0;      // handle 0 / NULL stream
inline constexpr Handle kCudaStreamLegacy = 0x1;        // cudaStreamLegacy
inline constexpr Handle kCudaStreamPerThread = 0x2;     // cudaStreamPerThread

// cudaStreamCreateWithFlags flag.
inline constexpr uint32_t kStreamNonBlocking = 0x1;

}  // namespace streamcheck
