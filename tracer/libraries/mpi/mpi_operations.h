// What MPI calls do to the program's memory, as trace records
// (runtime/engine_mpi.cpp): each call that uses buffers starts an operation
// (kMpiStart) with its bytes, and the operation ends (kMpiComplete) when
// the program is seen to know it is over: at a blocking call's return, or
// at the MPI_Wait*/MPI_Test* that completes its request. Requests are the
// process's, not a thread's (one thread may wait for another's request),
// and persistent ones start an operation at each MPI_Start. The
// interposers (tracer/preload/mpi_interposers.c) report the calls;
// mpi_hooks.cpp emits the records. No MPI and no CUDA here: unit-tested
// without either.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/trace_record.h"
#include "tracer/preload/library_hooks.h"

namespace streamcheck::tracer {

struct MpiRecord {
  OpCode op = OpCode::kInvalid;  // kMpiStart or kMpiComplete
  uint32_t id = 0;
  std::vector<MemoryAccess> accesses;  // kMpiStart
};

class MpiRequests {
 public:
  // Before the call: the operations it starts now (a blocking call, a
  // nonblocking one, MPI_Start of persistent requests). Sets call->operation
  // for Leave. A call whose bytes are not known starts nothing and says so
  // in *problem.
  void Enter(StreamcheckMpiCall* call, std::vector<MpiRecord>* out, std::string* problem);
  // After the call: the operations that ended (a blocking call, a failed
  // start, the requests a wait or test completed).
  void Leave(const StreamcheckMpiCall& call, std::vector<MpiRecord>* out);

  size_t pending() const;

 private:
  static std::vector<MemoryAccess> AccessesOf(const StreamcheckMpiCall& call);
  uint32_t Start(std::vector<MemoryAccess> accesses, std::vector<MpiRecord>* out);
  void CompleteRequest(uint64_t request, std::vector<MpiRecord>* out);

  mutable std::mutex mutex_;
  uint32_t next_id_ = 0;
  // Nonblocking requests started and not yet completed: handle -> operation.
  std::unordered_map<uint64_t, uint32_t> active_;
  // Persistent requests: handle -> the bytes each start uses.
  std::unordered_map<uint64_t, std::vector<MemoryAccess>> persistent_;
};

}  // namespace streamcheck::tracer
