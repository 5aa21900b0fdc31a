// What a function defined in another translation unit does to the streams
// and buffers it is given, as seen from a call to it: which of its stream
// parameters (or the device) it waits for before returning, and the work it
// leaves queued, in terms of its parameters. Computed when the defining file
// is linted, applied where another file calls it (lint_driver.cpp runs the
// callers again once the summaries are known). Plain data: it outlives the
// translation unit it came from.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/trace_record.h"

namespace streamcheck::lint {

struct SummaryAccess {
  int param = -1;  // the pointer parameter the access is to
  AccessMode mode = AccessMode::kUnknown;
  std::optional<int64_t> offset_bytes;  // from the parameter; unknown: anywhere in it
  std::optional<int64_t> size_bytes;
  bool atomic = false;  // a kernel's atomic read-modify-writes only
  // A kernel's index arguments (BufferAccess::index_range) with the
  // function's parameters as `$N`: "relax($3,$5,)"; "" when one of them is
  // neither a parameter nor a constant.
  std::string index_range;
};

// Work the function leaves queued when it returns.
struct SummaryOp {
  int stream_param = -1;  // on the stream given as this parameter,
  // else on this one: kLegacyStream, kPerThreadStream, a getter's (`?get_stream()`:
  // FunctionSummary::synced_getter_streams), or "" (one of its own)
  std::string stream;
  std::string stream_text;  // a getter's: the call as written
  std::string api;
  std::string what;
  std::vector<SummaryAccess> accesses;
  // Left queued only where the function's test of a pointer-location query
  // of a parameter found `only_if_value` ("(loc:USR($4)==#-1)", symbolic.h):
  // where the caller's own test of the same query finds the other value,
  // the work is done. "": on every path.
  std::string only_if;
  bool only_if_value = false;
};

struct FunctionSummary {
  std::string name;
  std::vector<int> synced_stream_params;  // waits for the work queued on these
  // Returns a fresh allocation of this kind (darknet's xcalloc, a wrapper of
  // calloc that exits on NULL; cuda_make_host_array's cudaMallocHost).
  std::optional<MemoryKind> returns_new;
  bool syncs_device = false;              // cudaDeviceSynchronize, cudaFree, ...
  bool syncs_legacy = false;              // waits for the legacy stream (and so every blocking stream)
  // Streams it names by a call of no arguments (`get_stream()`, darknet's
  // get_cuda_stream) that it waits for. The lint keys such a stream by the
  // call's text (TransferWalker::StreamSym), the same in every file, so a
  // wait here meets the caller's work there. (A "getter" returning a new
  // stream at each call is then taken for one stream: races between them
  // are missed, none made up.)
  std::vector<std::string> synced_getter_streams;
  std::vector<SummaryOp> leaves_queued;
  // A pointer-location query of this parameter (pointer_query.h); -1: none.
  int query_param = -1;
  // Event parameters it records on stream parameters, capturing the work the
  // caller queued there (event, stream), and stream parameters it makes wait
  // for event parameters (stream, event): wrappers of cudaEventRecord and
  // cudaStreamWaitEvent in another file (popsift's).
  std::vector<std::pair<int, int>> records;
  std::vector<std::pair<int, int>> waits;
  bool empty() const {
    return synced_stream_params.empty() && synced_getter_streams.empty() && !syncs_device && !syncs_legacy &&
           leaves_queued.empty() && !returns_new &&
           query_param < 0 && records.empty() && waits.empty();
  }
};

// By the function's USR (clang::index::generateUSRForDecl), the same in every file.
using SummaryTable = std::map<std::string, FunctionSummary>;

}  // namespace streamcheck::lint
