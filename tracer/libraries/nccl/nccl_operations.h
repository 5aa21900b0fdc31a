// What an NCCL call does to the program's memory, in the terms nccl.h
// documents: the bytes of the send buffer it reads and of the receive
// buffer it writes (count x the datatype's size; a rank's slice for the
// gathers and scatters; in-place variants), on the stream it was given, and
// when: at the call, or at the end of the outermost ncclGroupStart/End
// around it. The interposers (tracer/preload/nccl_interposers.c) report the
// calls; nccl_hooks.cpp turns the operations into trace records. No NCCL
// and no CUDA here: unit-tested without either.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/trace_record.h"
#include "tracer/preload/library_hooks.h"

namespace streamcheck::tracer {

// Bytes of one element of an ncclDataType_t; 0 for one this build does not know.
uint64_t NcclDataTypeSize(int32_t datatype);

// One stream operation of NCCL's: a collective, a send or a receive.
struct NcclOperation {
  const char* name = nullptr;  // the call, e.g. "ncclAllReduce" (static storage)
  Handle stream = 0;
  std::vector<MemoryAccess> accesses;
  bool grouped = false;  // issued at the end of its group (ncclGroupEnd)
};

// The operation of a modeled call (not STREAMCHECK_NCCL_OTHER nor a group
// call). False, with `problem` naming what is missing, when its bytes
// cannot be known: a datatype this build does not know, a communicator that
// did not say its size or this rank, a size that overflows.
bool DescribeNcclOperation(const StreamcheckNcclCall& call, NcclOperation* out, std::string* problem);

// One host thread's NCCL calls. Only the outermost is the program's: NCCL
// calls its own API too (ncclBcast calls ncclBroadcast), and what happens
// inside is NCCL's. Groups are per thread in NCCL as well.
class NcclThreadCalls {
 public:
  void Enter() { ++depth_; }
  // The call returned. The operations it issued, in issue order, are
  // appended to *issued: its own when outside a group, every grouped one at
  // the outermost ncclGroupEnd; a group that failed or was only simulated
  // issues nothing. A call whose bytes cannot be known is named in
  // *problems (and issues nothing).
  void Leave(const StreamcheckNcclCall& call, std::vector<NcclOperation>* issued,
             std::vector<std::string>* problems);
  // Inside an NCCL call: its CUDA work is NCCL's own.
  bool inside() const { return depth_ > 0; }
  int group_depth() const { return group_depth_; }

 private:
  void EndGroup(bool launched, std::vector<NcclOperation>* issued);

  int depth_ = 0;
  int group_depth_ = 0;
  std::vector<NcclOperation> group_;  // called inside the open group, not issued yet
};

}  // namespace streamcheck::tracer
