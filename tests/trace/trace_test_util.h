// Small helpers shared by the trace tests.
#pragma once

#include <string>
#include <vector>

#include "runtime/trace/trace_io.h"

namespace streamcheck::testing {

struct ReadResult {
  std::vector<TraceRecord> records;
  TraceSource::Status end = TraceSource::Status::kEnd;
  std::string error;
  uint64_t error_offset = 0;
};

inline ReadResult ReadAll(TraceSource* source) {
  ReadResult result;
  TraceRecord record;
  while ((result.end = source->Next(&record)) == TraceSource::Status::kRecord) {
    result.records.push_back(record);
  }
  if (result.end == TraceSource::Status::kError) {
    result.error = source->error();
    result.error_offset = source->offset();
  }
  return result;
}

inline ReadResult ReadAll(std::string bytes) {
  auto source = OpenTraceFromString(std::move(bytes), "t");
  return ReadAll(source.get());
}

inline std::string WriteBinary(const std::vector<TraceRecord>& records,
                               BinaryWriterOptions options = {}) {
  std::string bytes;
  auto writer = CreateBinaryTraceWriter(&bytes, options);
  for (const TraceRecord& r : records) writer->Append(r);
  writer->Close();
  return bytes;
}

}  // namespace streamcheck::testing
