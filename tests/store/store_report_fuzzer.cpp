// libFuzzer target for the store's readers and the report writers: the input
// is a database file (store_fuzz_input.h). Build with clang-22 and
// -DSTREAMCHECK_BUILD_FUZZERS=ON; seed it with a database `streamcheck replay`
// made (e.g. of testdata/examples/two_streams.trace.txt).
#include <cstddef>
#include <cstdint>

#include "tests/store/store_fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  streamcheck::testing::ReadStoreBytes(data, size);
  return 0;
}
