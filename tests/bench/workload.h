// A synthetic but program-shaped workload for the replay benchmark: streams
// that each own (alone write) a share of many live buffers, kernels that read
// a shared read-only input (weights) and a buffer of their stream and write
// another, event fork/join between streams, and occasional host syncs. It is
// race-free like a correct program: races are rare, the hot path is the
// race-free access.
//
// Two access patterns: kProducerConsumer (a kernel reads what its stream's
// previous kernel wrote, as layers of a network do, and writes a buffer chosen
// at random) and kUniformRandom (input and output both uniformly random over
// the stream's share: no temporal locality at all, the worst case for the
// shadow-memory lookups).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/trace_record.h"

namespace streamcheck::bench {

enum class AccessPattern { kProducerConsumer, kUniformRandom };

struct WorkloadShape {
  AccessPattern pattern = AccessPattern::kProducerConsumer;
  int streams = 8;
  int events = 64;
  int live_buffers = 100000;
  int kernel_names = 64;
  // What fast mode knows of a kernel's pointer parameters (their first byte:
  // the rest of each extent is guessed, a second shadow range), or kExact
  // (copies, framework ops' tensors, --precise).
  AccessCertainty certainty = AccessCertainty::kExact;
};

class WorkloadGenerator {
 public:
  explicit WorkloadGenerator(WorkloadShape shape, uint32_t seed = 42);
  // Stream/event creation, string definitions and the allocations.
  std::vector<TraceRecord> Prelude();
  // The next operation of the steady state (kernel, record, wait, sync).
  void Next(TraceRecord* out);

 private:
  uint64_t BufferAddress(int buffer) const { return 0x7f0000000000ull + uint64_t(buffer) * 65536; }
  uint64_t BufferSize(int buffer) const { return 256ull << (buffer % 8); }
  int BufferOf(int stream);

  WorkloadShape shape_;
  std::mt19937_64 rng_;
  std::vector<uint64_t> stream_handles_;
  int pending_join_ = -1;  // after a record on stream A, the next op makes B wait on it
  int join_event_ = 0;
  int join_from_ = 0;
  int join_to_ = 0;
  int cross_read_stream_ = -1;  // B runs the next kernel after the wait
  std::vector<int> last_output_;  // per stream: the buffer its previous kernel wrote
  uint64_t ops_ = 0;
};

}  // namespace streamcheck::bench
