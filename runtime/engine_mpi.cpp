// MPI: what an MPI call does to the program's buffers, by the MPI standard
// (MPI 4.1, section 3.7 "Nonblocking Communication", and 6.12 for the
// nonblocking collectives). A blocking call reads and writes its buffers
// during the call; a nonblocking one (MPI_Isend, MPI_Irecv, MPI_Iallreduce,
// MPI_Start of a persistent request) may do so from the call until a
// MPI_Wait* or a MPI_Test* that returns flag = true completes it, and "the
// user should not access any part of the buffer" until then.
//
// Each pending operation is a lane of its own (kMpiOperation): it starts
// after everything its host thread knows at the call, so device work the
// thread has not synchronized with (a kernel still writing the send buffer)
// races with it, whatever stream it ran on: a CUDA-aware MPI reads device
// memory outside every stream's order (CUDA's "API synchronization
// behavior": only a host synchronization orders the host after the work).
// The thread learns the operation is over at its completion, and not before:
// a kernel launched on the receive buffer between MPI_Irecv and MPI_Wait
// races with the receive even if its stream was synchronized before the
// wait. docs/internals/mpi.md.
#include "runtime/engine_impl.h"
#include "runtime/mpi_calls.h"

namespace streamcheck {

void Engine::Impl::MpiStart(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  if (pending_mpi_.count(r.id) != 0) {
    Anomaly("mpi: an operation started again before its completion was seen");
    return;
  }
  if (pending_mpi_.size() >= kMaxPendingMpi) {
    Anomaly("mpi: too many operations pending; one more is not followed");
    return;
  }
  sync_.TickThread(t);
  ++stats_.host_operations;
  // A lane this thread saw complete: its clock covers the lane's last
  // operation, so the next one may follow it on the same lane.
  std::vector<Lane>& free = free_mpi_lanes_[r.thread];
  Lane lane;
  if (!free.empty()) {
    lane = free.back();
    free.pop_back();
  } else {
    LaneInfo info;
    info.kind = LaneKind::kMpiOperation;
    info.thread = r.thread;
    info.device = t.current_device;
    lane = sync_.NewLane(info);
  }
  VectorClock& clock = mpi_clocks_[lane];
  clock.Join(t.clock);
  clock.Set(lane, clock.Get(lane) + 1);
  pending_mpi_[r.id] = {lane, r.thread};
  const uint32_t site = SiteOf(r);
  lanes_.NoteOperation(lane, site);
  ApplyAccesses(lane, clock, site, r.accesses, index_, r.timestamp_ns);
}

// A completing MPI_Wait*/MPI_Test* (or a blocking call's return): the
// thread is after the operation, and so is all it enqueues later.
void Engine::Impl::MpiComplete(const TraceRecord& r) {
  ThreadState& t = EnterHostCall(r);
  auto it = pending_mpi_.find(r.id);
  if (it == pending_mpi_.end()) {
    Anomaly("mpi: a completion whose operation's start was not seen");
    return;
  }
  const Lane lane = it->second.lane;
  sync_.JoinIntoThread(t, mpi_clocks_[lane]);
  free_mpi_lanes_[r.thread].push_back(lane);
  pending_mpi_.erase(it);
}

std::string Engine::Impl::ExplainMpiOrder(const AccessDescription& earlier, const AccessDescription& later,
                                          std::string* gap) {
  const std::string aop = OpName(earlier.site), bop = OpName(later.site);
  if (lanes_.IsMpi(earlier.lane)) {
    *gap = "mpi-not-completed";
    const ThreadId thread = lanes_.Get(earlier.lane).thread;
    const bool one_sided = IsOneSidedMpiCall(aop);
    const std::string completion =
        one_sided ? "no MPI_Win_fence, MPI_Win_complete, MPI_Win_unlock or MPI_Win_flush on its window"
                  : "no MPI_Wait, MPI_Waitall/any/some or MPI_Test* returning true on its request";
    const std::string rule =
        one_sided ? "a one-sided call's origin buffer may be in use until the synchronization that completes it at "
                    "the origin"
                  : "the buffer of a nonblocking operation must not be accessed until the operation completes";
    return "host thread " + std::to_string(thread) + " had not seen " + aop + " complete (" + completion +
           ") before " + bop + ", so the MPI library may still be using the buffer (" +
           std::string(MpiStandardCitation(aop)) + ": " + rule + ")";
  }
  *gap = "host-not-synchronized";
  return aop + " on " + lanes_.Describe(earlier.lane) + " was not known to be complete on host thread " +
         std::to_string(lanes_.Get(later.lane).thread) + " when it called " + bop +
         ": MPI accesses the buffer from the host side, outside every stream's order (a CUDA-aware MPI "
         "included), so only a host synchronization before the call (cudaStreamSynchronize, "
         "cudaEventSynchronize, cudaDeviceSynchronize) orders it after device work (CUDA's \"API "
         "synchronization behavior\"; MPI standard, section 3.7 for the nonblocking calls)";
}

std::string Engine::Impl::FixMpiOrder(const AccessDescription& earlier, const AccessDescription& later) {
  const std::string aop = OpName(earlier.site), bop = OpName(later.site);
  if (lanes_.IsMpi(earlier.lane) && IsOneSidedMpiCall(aop))
    return "end " + aop + "'s access epoch at the origin (MPI_Win_fence, MPI_Win_complete, MPI_Win_unlock, or "
           "MPI_Win_flush_local for its target) before " + bop + " touches the buffer; where " + bop +
           " is device work, the synchronization must come before it is enqueued";
  if (lanes_.IsMpi(earlier.lane))
    return "complete " + aop + "'s request (MPI_Wait, or MPI_Test until it returns flag = 1) before " + bop +
           " touches the buffer; where " + bop + " is device work, the wait must come before it is enqueued";
  return "call cudaStreamSynchronize on " + lanes_.Describe(earlier.lane) + " (or cudaEventSynchronize on an "
         "event recorded after " + aop + ") before " + bop + "; a stream wait is not enough, MPI does not run "
         "on a stream";
}

}  // namespace streamcheck
