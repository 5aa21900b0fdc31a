// A long run in a steady state, record by record, for the engine's memory
// test: what a training loop does for an hour, with every set the program
// uses fixed. 64 device segments of 4 MiB stay allocated (one is freed and
// allocated again now and then), a caching allocator hands out blocks in
// them and takes them back on 4 streams and the legacy one, kernels read
// and write blocks (a framework op's exact tensors, fast mode's guessed
// extents, pointers of unknown use), from 10k distinct stacks on 2 host
// threads; events are created, recorded, waited on and destroyed, host
// memory is copied in and out, a CUDA graph is captured, launched and
// destroyed, another updated, and now and then two streams race (findings
// from a bounded set of sites). Nothing in it grows: an engine that holds
// more and more as the records go on is leaking.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "runtime/trace_record.h"

namespace streamcheck::testing {

class SteadyStateWorkload {
 public:
  static constexpr int kStacks = 10000;
  static constexpr int kSegments = 64;
  static constexpr uint64_t kSegmentBytes = 4 << 20;
  static constexpr int kBlocksPerSegment = 64;
  static constexpr uint64_t kBlockBytes = kSegmentBytes / kBlocksPerSegment;

  explicit SteadyStateWorkload(uint32_t seed = 1);
  // Definitions, streams, events and the segments (every record before the loop).
  std::vector<TraceRecord> Prelude();
  // The next records of the loop (one call: one or a few records).
  void Next(std::vector<TraceRecord>* out);

 private:
  TraceRecord Call(OpCode op, StringId api);
  void Kernel(std::vector<TraceRecord>* out, bool capturing = false);
  void Block(std::vector<TraceRecord>* out);
  void EventPair(std::vector<TraceRecord>* out);
  void Copy(std::vector<TraceRecord>* out);
  void Graph(std::vector<TraceRecord>* out);
  void Segment(std::vector<TraceRecord>* out);
  Handle RandomStream();
  MemoryAccess BlockAccess(int block, AccessMode mode);

  std::mt19937_64 rng_;
  ThreadId thread_ = 1;
  uint64_t calls_ = 0;
  uint64_t graphs_ = 0;
  std::vector<uint64_t> block_size_;  // of each block slot, 0 while free
  std::vector<Handle> block_stream_;  // the stream a block was handed to
};

}  // namespace streamcheck::testing
