#include "tests/runtime/steady_state_workload.h"

#include <algorithm>
#include <iterator>
#include <string>

#include "runtime/engine.h"

namespace streamcheck::testing {
namespace {

enum : StringId {
  kApiLaunch = 1, kApiMalloc, kApiFree, kApiMallocHost, kApiBlockAllocate, kApiBlockFree, kApiStreamCreate,
  kApiEventCreate, kApiEventDestroy, kApiRecord, kApiWait, kApiCopyAsync, kApiStreamSync, kApiBeginCapture,
  kApiEndCapture, kApiInstantiate, kApiExecUpdate, kApiGraphLaunch, kApiExecDestroy, kApiGraphDestroy,
  kFrameFunction, kFirstKernelName = 32,
};
constexpr int kKernelNames = 64;
constexpr int kStreams = 4;
// The racing pair's stacks: a bounded set, so its findings are a bounded set.
constexpr int kRacyStacks = 8;
constexpr Address kSegmentBase = 0x7f0000000000ull;
constexpr Address kPinnedBase = 0x7e0000000000ull;
constexpr uint64_t kPinnedSliceBytes = 64 << 10;  // one per stream, so copies on two streams never share bytes
constexpr Handle kFirstEvent = 0xe000;
constexpr Handle kGraph = 0x9000, kUpdatedGraph = 0x9001, kExec = 0x9100, kUpdatedExec = 0x9101;

Handle StreamHandle(int i) { return 0x5500 + Handle(i) * 0x10; }

}  // namespace

SteadyStateWorkload::SteadyStateWorkload(uint32_t seed)
    : rng_(seed), block_size_(kSegments * kBlocksPerSegment, 0), block_stream_(kSegments * kBlocksPerSegment, 0) {}

TraceRecord SteadyStateWorkload::Call(OpCode op, StringId api) {
  TraceRecord r;
  r.op = op;
  r.api = api;
  r.thread = thread_;
  // The stacks of calls findings can cite: a launch or a copy from one of
  // kStacks call sites, the rest from a few (an allocation's site enters the
  // findings of a block's reuse).
  if (FindingsCiteStackOf(op))
    r.stack = 1 + StackId(rng_() % (op == OpCode::kKernelLaunch || op == OpCode::kMemcpy ? kStacks : 32));
  return r;
}

std::vector<TraceRecord> SteadyStateWorkload::Prelude() {
  std::vector<TraceRecord> out;
  auto define = [&](StringId id, std::string text) { out.push_back(StringDefinition(id, std::move(text))); };
  const char* apis[] = {"cudaLaunchKernel", "cudaMalloc", "cudaFree", "cudaMallocHost",
                        "caching allocator: allocate", "caching allocator: free", "cudaStreamCreate",
                        "cudaEventCreate", "cudaEventDestroy", "cudaEventRecord", "cudaStreamWaitEvent",
                        "cudaMemcpyAsync", "cudaStreamSynchronize", "cudaStreamBeginCapture", "cudaStreamEndCapture",
                        "cudaGraphInstantiate", "cudaGraphExecUpdate", "cudaGraphLaunch", "cudaGraphExecDestroy",
                        "cudaGraphDestroy", "train_step"};
  for (StringId i = 0; i < std::size(apis); ++i) define(kApiLaunch + i, apis[i]);
  for (int k = 0; k < kKernelNames; ++k) define(kFirstKernelName + k, "kernel_" + std::to_string(k));
  for (int s = 1; s <= kStacks; ++s) {
    TraceRecord r;
    r.op = OpCode::kDefineStack;
    r.id = StackId(s);
    r.frames = {{kFrameFunction, 0, uint32_t(s), 0x400000 + uint64_t(s) * 16}};
    out.push_back(std::move(r));
  }
  for (int s = 0; s < kStreams; ++s) {
    TraceRecord r = Call(OpCode::kStreamCreate, kApiStreamCreate);
    r.stream = StreamHandle(s);
    out.push_back(std::move(r));
  }
  for (int k = 0; k < kSegments; ++k) {
    TraceRecord r = Call(OpCode::kMalloc, kApiMalloc);
    r.dst = kSegmentBase + Address(k) * kSegmentBytes;
    r.size = kSegmentBytes;
    out.push_back(std::move(r));
  }
  TraceRecord pinned = Call(OpCode::kMalloc, kApiMallocHost);
  pinned.dst = kPinnedBase;
  pinned.size = kStreams * kPinnedSliceBytes;
  pinned.memory_kind = MemoryKind::kPinnedHost;
  out.push_back(std::move(pinned));
  return out;
}

void SteadyStateWorkload::Next(std::vector<TraceRecord>* out) {
  ++calls_;
  thread_ = 1 + ThreadId(calls_ / 64 % 2);  // two host threads, taking turns
  const uint64_t pick = rng_() % 1000;
  if (pick < 700) return Kernel(out);
  if (pick < 880) return Block(out);
  if (pick < 940) return EventPair(out);
  if (pick < 990) return Copy(out);
  if (pick < 998) return Graph(out);
  Segment(out);
}

Handle SteadyStateWorkload::RandomStream() { return StreamHandle(int(rng_() % kStreams)); }

MemoryAccess SteadyStateWorkload::BlockAccess(int block, AccessMode mode) {
  MemoryAccess a{kSegmentBase + Address(block) * kBlockBytes, block_size_[block], mode, AccessCertainty::kExact};
  switch (rng_() % 4) {
    case 0: a.certainty = AccessCertainty::kFirstByte; break;  // fast mode's guessed extent
    case 1: a.mode = AccessMode::kUnknown; break;              // a pointer of unknown use
    default: break;                                            // a framework op's exact tensor
  }
  return a;
}

// A kernel on a stream reads one of the stream's blocks and writes another;
// now and then (1 in 200) a kernel on another stream reads what one just
// wrote with no ordering: a race from a bounded set of stacks.
void SteadyStateWorkload::Kernel(std::vector<TraceRecord>* out, bool capturing) {
  const Handle stream = RandomStream();
  std::vector<int> mine;
  for (int tries = 0; tries < 8 && mine.size() < 2; ++tries) {
    const int b = int(rng_() % block_size_.size());
    if (block_size_[b] != 0 && block_stream_[b] == stream) mine.push_back(b);
  }
  if (mine.empty()) return capturing ? void() : Block(out);
  // Not while a stream captures: the ordering after the race would wait on
  // an event from outside the capture.
  const bool race = !capturing && rng_() % 200 == 0;
  TraceRecord r = Call(OpCode::kKernelLaunch, kApiLaunch);
  r.stream = stream;
  if (race) r.stack = 1 + StackId(rng_() % kRacyStacks);
  r.name = kFirstKernelName + StringId(r.stack % kKernelNames);  // a call site launches one kernel
  if (mine.size() == 2) r.accesses.push_back(BlockAccess(mine[1], AccessMode::kRead));
  r.accesses.push_back(BlockAccess(mine[0], AccessMode::kWrite));
  out->push_back(r);
  if (!race) return;
  TraceRecord other = r;
  other.stream = StreamHandle(int((stream - StreamHandle(0)) / 0x10 + 1) % kStreams);
  other.stack = 1 + kRacyStacks + StackId(rng_() % kRacyStacks);
  other.name = kFirstKernelName + StringId(other.stack % kKernelNames);
  other.accesses = {BlockAccess(mine[0], AccessMode::kRead)};
  // Then the program orders the two streams, so that the block's later
  // writers and its reuse come after the racing read: the race is the one
  // finding, from its bounded set of stacks.
  const Handle racing_stream = other.stream;
  out->push_back(std::move(other));
  TraceRecord create = Call(OpCode::kEventCreate, kApiEventCreate);
  create.event = kFirstEvent + 16;
  TraceRecord record = Call(OpCode::kEventRecord, kApiRecord);
  record.event = create.event;
  record.stream = racing_stream;
  TraceRecord wait = Call(OpCode::kStreamWaitEvent, kApiWait);
  wait.event = create.event;
  wait.stream = stream;
  TraceRecord destroy = Call(OpCode::kEventDestroy, kApiEventDestroy);
  destroy.event = create.event;
  out->insert(out->end(), {create, record, wait, destroy});
}

// The caching allocator hands a free block slot out on a stream, or takes a
// block back; a block goes back to the stream it was handed to, as PyTorch's
// allocator's do. Sizes vary, so the shadow's intervals split and merge.
void SteadyStateWorkload::Block(std::vector<TraceRecord>* out) {
  const int b = int(rng_() % block_size_.size());
  if (block_size_[b] == 0) {
    if (block_stream_[b] == 0) block_stream_[b] = RandomStream();
    block_size_[b] = kBlockBytes >> (rng_() % 4);
    TraceRecord r = Call(OpCode::kPoolBlockAllocate, kApiBlockAllocate);
    r.dst = kSegmentBase + Address(b) * kBlockBytes;
    r.size = block_size_[b];
    r.stream = block_stream_[b];
    out->push_back(std::move(r));
    return;
  }
  TraceRecord r = Call(OpCode::kPoolBlockFree, kApiBlockFree);
  r.dst = kSegmentBase + Address(b) * kBlockBytes;
  r.stream = block_stream_[b];
  block_size_[b] = 0;
  out->push_back(std::move(r));
}

// cudaEventCreate, record on one stream, wait on another, destroy (PyTorch's
// wait_stream); the handle comes back again and again.
void SteadyStateWorkload::EventPair(std::vector<TraceRecord>* out) {
  const Handle event = kFirstEvent + rng_() % 16;
  const Handle from = RandomStream(), to = RandomStream();
  TraceRecord create = Call(OpCode::kEventCreate, kApiEventCreate);
  create.event = event;
  TraceRecord record = Call(OpCode::kEventRecord, kApiRecord);
  record.event = event;
  record.stream = from;
  TraceRecord wait = Call(OpCode::kStreamWaitEvent, kApiWait);
  wait.event = event;
  wait.stream = to;
  TraceRecord destroy = Call(OpCode::kEventDestroy, kApiEventDestroy);
  destroy.event = event;
  out->insert(out->end(), {create, record, wait, destroy});
}

// A block of a stream filled from pinned memory and read back into it, then
// the host waits for the stream (a loss read on the host each step).
void SteadyStateWorkload::Copy(std::vector<TraceRecord>* out) {
  const Handle stream = RandomStream();
  int block = -1;
  for (int tries = 0; tries < 8 && block < 0; ++tries) {
    const int b = int(rng_() % block_size_.size());
    if (block_size_[b] != 0 && block_stream_[b] == stream) block = b;
  }
  if (block < 0) return Block(out);
  const Address pinned = kPinnedBase + (stream - StreamHandle(0)) / 0x10 * kPinnedSliceBytes;
  const uint64_t size = std::min<uint64_t>(kPinnedSliceBytes, block_size_[block]);
  TraceRecord in = Call(OpCode::kMemcpy, kApiCopyAsync);
  in.stream = stream;
  in.dst = kSegmentBase + Address(block) * kBlockBytes;
  in.src = pinned;
  in.size = size;
  in.copy_kind = CopyKind::kHostToDevice;
  in.is_async = true;
  TraceRecord back = in;
  back.dst = in.src;
  back.src = in.dst;
  back.copy_kind = CopyKind::kDeviceToHost;
  TraceRecord sync = Call(OpCode::kStreamSynchronize, kApiStreamSync);
  sync.stream = stream;
  out->insert(out->end(), {in, back, sync});
}

// A graph captured on a stream, instantiated, launched and destroyed; every
// other time captured again to update an exec that lives on.
void SteadyStateWorkload::Graph(std::vector<TraceRecord>* out) {
  const Handle stream = RandomStream();
  const bool update = graphs_++ % 2 == 1;
  const Handle graph = update ? kUpdatedGraph : kGraph;
  const Handle exec = update ? kUpdatedExec : kExec;
  TraceRecord begin = Call(OpCode::kStreamBeginCapture, kApiBeginCapture);
  begin.stream = stream;
  out->push_back(begin);
  for (int k = 0; k < 3; ++k) Kernel(out, /*capturing=*/true);  // on random streams: the others run as usual
  TraceRecord end = Call(OpCode::kStreamEndCapture, kApiEndCapture);
  end.stream = stream;
  end.graph = graph;
  out->push_back(end);
  TraceRecord make = Call(update && graphs_ > 2 ? OpCode::kGraphExecUpdate : OpCode::kGraphInstantiate,
                          update && graphs_ > 2 ? kApiExecUpdate : kApiInstantiate);
  make.graph = graph;
  make.graph_exec = exec;
  TraceRecord launch = Call(OpCode::kGraphLaunch, kApiGraphLaunch);
  launch.graph_exec = exec;
  launch.stream = stream;
  out->insert(out->end(), {make, launch});
  if (!update) {
    TraceRecord destroy_exec = Call(OpCode::kGraphExecDestroy, kApiExecDestroy);
    destroy_exec.graph_exec = exec;
    out->push_back(destroy_exec);
  }
  TraceRecord destroy = Call(OpCode::kGraphDestroy, kApiGraphDestroy);
  destroy.graph = graph;
  out->push_back(destroy);
}

// A segment given back to CUDA and allocated again (the allocator's
// empty_cache): its blocks go back first; cudaFree waits for the device.
void SteadyStateWorkload::Segment(std::vector<TraceRecord>* out) {
  const int segment = int(rng_() % kSegments);
  for (int b = segment * kBlocksPerSegment; b < (segment + 1) * kBlocksPerSegment; ++b) {
    if (block_size_[b] == 0) continue;
    TraceRecord r = Call(OpCode::kPoolBlockFree, kApiBlockFree);
    r.dst = kSegmentBase + Address(b) * kBlockBytes;
    r.stream = block_stream_[b];
    block_size_[b] = 0;
    out->push_back(std::move(r));
  }
  TraceRecord free = Call(OpCode::kFree, kApiFree);
  free.dst = kSegmentBase + Address(segment) * kSegmentBytes;
  TraceRecord malloc = Call(OpCode::kMalloc, kApiMalloc);
  malloc.dst = free.dst;
  malloc.size = kSegmentBytes;
  out->insert(out->end(), {free, malloc});
}

}  // namespace streamcheck::testing
