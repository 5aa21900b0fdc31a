// Random TraceRecords covering every op code and every field, for property
// tests of the binary and text forms.
#pragma once

#include <random>
#include <vector>

#include "runtime/trace_record.h"

namespace streamcheck::testing {

// Every op code the format knows.
std::vector<OpCode> AllOpCodes();

class RandomRecords {
 public:
  explicit RandomRecords(uint64_t seed) : rng_(seed) {}
  // A record with op `op` and each field independently present or default,
  // with values from small to extreme.
  TraceRecord Make(OpCode op);
  TraceRecord Make() { return Make(PickOp()); }
  OpCode PickOp();

 private:
  uint64_t Value();  // mixes small, mid and extreme values
  bool Coin() { return rng_() & 1; }

  std::mt19937_64 rng_;
  std::vector<OpCode> ops_ = AllOpCodes();
};

}  // namespace streamcheck::testing
