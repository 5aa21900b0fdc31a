// libFuzzer target for the trace readers (both forms, picked by the first
// byte as OpenTrace does). Build with clang-22 and -DSTREAMCHECK_BUILD_FUZZERS=ON;
// seed it with testdata/fuzz/trace_corpus and commit inputs worth keeping there.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "runtime/trace/trace_io.h"
#include "tests/trace/fuzz_input.h"

namespace {

using streamcheck::TraceRecord;
using streamcheck::TraceSource;

// Reads everything; aborts on an error that does not say what and where.
std::vector<TraceRecord> ReadAllOrAbort(std::string bytes, TraceSource::Status* end) {
  const size_t size = bytes.size();
  auto source = streamcheck::OpenTraceFromString(std::move(bytes));
  std::vector<TraceRecord> records;
  TraceRecord record;
  while ((*end = source->Next(&record)) == TraceSource::Status::kRecord) {
    records.push_back(record);
  }
  if (*end == TraceSource::Status::kError && (source->error().empty() || source->offset() > size)) {
    std::abort();
  }
  return records;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input = streamcheck::testing::FuzzInputToTrace(data, size);
  TraceSource::Status end;
  auto records = ReadAllOrAbort(std::move(input), &end);
  // Whatever a reader delivered, the binary writer must accept and the binary
  // reader must give back unchanged.
  std::string binary;
  auto writer = streamcheck::CreateBinaryTraceWriter(&binary);
  for (const TraceRecord& r : records) {
    if (!writer->Append(r)) std::abort();
  }
  if (!writer->Close()) std::abort();
  TraceSource::Status end_again;
  if (ReadAllOrAbort(std::move(binary), &end_again) != records ||
      end_again != TraceSource::Status::kEnd) {
    std::abort();
  }
  return 0;
}
