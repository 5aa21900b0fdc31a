// Shared helpers for the store tests: a scratch directory and a realistic
// cross-stream race finding (the PyTorch normal_/sum example from DESIGN.md).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/finding.h"

namespace streamcheck::testing {

class ScratchDir {
 public:
  ScratchDir() {
    path_ = std::filesystem::temp_directory_path() /
            ("streamcheck-store-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() { std::filesystem::remove_all(path_); }
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void WriteAll(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

inline Finding RaceFinding(const std::string& fingerprint = "fp-normal-sum") {
  Finding f;
  f.rule = "cross-stream-race";
  f.kind = FindingKind::kReadAfterWrite;
  f.confidence = Confidence::kCertain;
  f.message = "kernel `sum_kernel` on stream s reads A while `normal_kernel` may still write it";
  f.reason = "s was created non-blocking, so it does not wait for the legacy default stream";
  f.fix = "s.wait_stream(torch.cuda.current_stream()) before the sum";
  f.fingerprint = fingerprint;
  f.count = 1;
  f.buffer.address = 0x7f0000001000;
  f.buffer.size = 4096;
  f.buffer.memory_kind = MemoryKind::kDevice;
  f.buffer.known_allocation = true;
  f.buffer.allocated_by = "cudaMalloc";
  f.buffer.allocation_stack = {{"alloc_buffers", "model.py", 3, 0, 0x10}};

  FindingAccess earlier;
  earlier.role = "earlier";
  earlier.op = "normal_kernel";
  earlier.api = "cudaLaunchKernel";
  earlier.framework_op = "aten::normal_";
  earlier.stream = "legacy default stream";
  earlier.stream_handle = 0;
  earlier.device = 0;
  earlier.thread = 1;
  earlier.mode = AccessMode::kWrite;
  earlier.address = 0x7f0000001000;
  earlier.size = 4096;
  earlier.trace_index = 10;
  earlier.timestamp_ns = 1000;
  earlier.stack = {{"at::native::normal_", "", 0, 0, 0x1234}, {"make_input", "model.py", 7, 0, 0x20}};

  FindingAccess later = earlier;
  later.role = "later";
  later.op = "sum_kernel";
  later.framework_op = "aten::sum";
  later.stream = "stream 0x5555 (non-blocking)";
  later.stream_handle = 0x5555;
  later.stream_flags = 1;
  later.mode = AccessMode::kRead;
  later.trace_index = 12;
  later.timestamp_ns = 2000;
  later.stack = {{"reduce", "model.py", 11, 5, 0x30}};
  f.accesses = {earlier, later};
  return f;
}

// The same race as the engine reports it since schema 4: stream kinds and
// origins (a PyTorch pool stream, first used at model.py:11), why no edge
// exists as a code, and the synchronization that did happen.
inline Finding NamedRaceFinding(const std::string& fingerprint = "fp-normal-sum") {
  Finding f = RaceFinding(fingerprint);
  f.order_gap = "non-blocking-stream";
  FindingAccess& earlier = f.accesses[0];
  earlier.stream_kind = "legacy";
  FindingAccess& later = f.accesses[1];
  later.stream_kind = "created";
  later.stream_origin.ordinal = 1;
  later.stream_origin.created_by = "cudaStreamCreateWithPriority";
  later.stream_origin.first_op = "aten::sum";
  later.stream_origin.first_used_at = {{"reduce", "model.py", 11, 5, 0x30, "", 0}};
  FindingAccess record = earlier;
  record.role = "event record";
  record.op = "cudaEventRecord";
  record.api = "cudaEventRecord";
  record.framework_op.clear();
  record.mode = AccessMode::kUnknown;
  record.trace_index = 11;
  record.event = 0xe1;
  record.event_origin.ordinal = 1;
  record.event_origin.created_by = "cudaEventCreate";
  record.event_origin.created_at = {{"make_input", "model.py", 5, 0, 0x18, "", 0}};
  record.stack = {{"cudaEventRecord", "", 0, 0, 0x99, "libcudart.so.13", 0x4242}, {"make_input", "model.py", 8, 0, 0x24, "", 0}};
  f.syncs = {record};
  return f;
}

}  // namespace streamcheck::testing
