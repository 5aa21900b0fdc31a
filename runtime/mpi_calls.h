// Which MPI calls complete at a window's synchronization rather than at a
// request's wait: the one-sided calls without a request of their own (MPI
// standard, "One-Sided Communications": an MPI_Put's origin buffer may be in
// use until the MPI_Win_fence, MPI_Win_complete, MPI_Win_unlock or
// MPI_Win_flush that completes it at the origin). The engine's explanation
// and the report's fix name the synchronization to add by it.
#pragma once

#include <string_view>

namespace streamcheck {

inline bool IsOneSidedMpiCall(std::string_view op) {
  for (std::string_view call : {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Fetch_and_op",
                                "MPI_Compare_and_swap"})
    if (op == call) return true;
  return false;
}

// Where the MPI standard says when a call's buffers may be touched again.
inline std::string_view MpiStandardCitation(std::string_view op) {
  return IsOneSidedMpiCall(op) ? "MPI standard, \"One-Sided Communications\", \"Synchronization Calls\""
                               : "MPI standard, section 3.7 \"Nonblocking Communication\"";
}

}  // namespace streamcheck
