// Internal: the two TraceSource implementations and the writer factories over
// an arbitrary ByteInput/ByteOutput; trace_file.cpp picks among them.
#pragma once

#include <memory>
#include <string>

#include "runtime/trace/byte_io.h"
#include "runtime/trace/trace_io.h"

namespace streamcheck::trace_internal {

// `name` (a path or "<memory>") starts every error message.
std::unique_ptr<TraceSource> MakeBinaryTraceReader(std::unique_ptr<ByteInput> input,
                                                   std::string name);
std::unique_ptr<TraceSource> MakeTextTraceReader(std::unique_ptr<ByteInput> input,
                                                 std::string name);

std::unique_ptr<TraceSink> MakeBinaryTraceWriter(std::unique_ptr<ByteOutput> output,
                                                 BinaryWriterOptions options);
std::unique_ptr<TraceSink> MakeTextTraceWriter(std::unique_ptr<ByteOutput> output);

}  // namespace streamcheck::trace_internal
