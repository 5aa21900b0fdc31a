#include "tests/trace/random_records.h"

#include <limits>

namespace streamcheck::testing {

std::vector<OpCode> AllOpCodes() {
  std::vector<OpCode> ops;
  for (int i = 0; i < static_cast<int>(OpCode::kMaxOpCode); ++i) {
    if (!OpCodeName(static_cast<OpCode>(i)).empty()) ops.push_back(static_cast<OpCode>(i));
  }
  return ops;
}

OpCode RandomRecords::PickOp() { return ops_[rng_() % ops_.size()]; }

uint64_t RandomRecords::Value() {
  switch (rng_() % 4) {
    case 0: return rng_() % 200;
    case 1: return rng_() % (uint64_t{1} << 40);
    case 2: return std::numeric_limits<uint64_t>::max() - rng_() % 3;
    default: return rng_();
  }
}

TraceRecord RandomRecords::Make(OpCode op) {
  TraceRecord r;
  r.op = op;
  auto u32 = [this] { return static_cast<uint32_t>(Value()); };
  auto i32 = [this] { return static_cast<int32_t>(Value()); };
  if (Coin()) r.node_op = PickOp();
  if (Coin()) r.thread = u32();
  if (Coin()) r.stack = u32();
  if (Coin()) r.api = u32();
  if (Coin()) r.name = u32();
  if (Coin()) r.framework_op = u32();
  if (Coin()) r.id = u32();
  if (Coin()) r.flags = u32();
  if (Coin()) r.device = i32();
  if (Coin()) r.result = i32();
  if (Coin()) r.priority = i32();
  r.is_async = Coin();
  if (Coin()) r.memory_kind = static_cast<MemoryKind>(rng_() % 6);
  if (Coin()) r.copy_kind = static_cast<CopyKind>(rng_() % 5);
  for (Handle* h : {&r.stream, &r.event, &r.event2, &r.graph, &r.graph_exec, &r.node}) {
    if (Coin()) *h = Value();
  }
  for (uint64_t* v : {&r.dst, &r.src, &r.size, &r.height, &r.dst_pitch, &r.src_pitch,
                      &r.timestamp_ns}) {
    if (Coin()) *v = Value();
  }
  for (int n = Coin() ? static_cast<int>(rng_() % 4) : 0; n > 0; --n) {
    MemoryAccess a{Value(), Value(), static_cast<AccessMode>(1 + rng_() % 4),
                   static_cast<AccessCertainty>(rng_() % 3)};
    // An access past the end of the address space is damage the readers
    // refuse: keep it inside.
    if (a.size != 0 && a.addr + (a.size - 1) < a.addr) a.size = ~a.addr + 1;
    r.accesses.push_back(a);
  }
  for (int n = Coin() ? static_cast<int>(rng_() % 4) : 0; n > 0; --n) r.deps.push_back(Value());
  for (int n = Coin() ? static_cast<int>(rng_() % 4) : 0; n > 0; --n) {
    r.frames.push_back({u32(), u32(), u32(), Value()});
  }
  for (int n = Coin() ? static_cast<int>(rng_() % 24) : 0; n > 0; --n) {
    r.text.push_back(static_cast<char>(rng_() % 256));  // every byte, quotes and newlines too
  }
  if (Coin()) r.library = u32();
  return r;
}

}  // namespace streamcheck::testing
