// Streams, events, frames and memory as a person names them. A handle
// (`stream 0x36fa1d20`) means nothing to the person who wrote the program;
// "the default stream", "stream 2 (created at train.cu:12)" or
// "torch.cuda.Stream first used at train.py:40" does. The handle stays in
// the detail (tooltips, --verbose, JSON).
//
// PyTorch hands torch.cuda.Stream objects out of a pool of streams it creates
// all at once, lazily, the first time any is asked for: no CUDA call happens
// on the line that makes a particular torch.cuda.Stream, so no tool that
// watches CUDA can say where it was made. Such a stream is named by the first
// line that enqueued work on it (inside `with torch.cuda.stream(s)`), and the
// detail says so.
#pragma once

#include <string>
#include <vector>

#include "runtime/finding.h"

namespace streamcheck::report {

// "scenarios.py" for "/work/tests/scenarios.py".
std::string Basename(const std::string& path);

// Whether a frame is the program's own code rather than a library's: it has a
// source file, that file is not under the system's or Python's library
// folders (site-packages, /usr/lib, /usr/include, the CUDA toolkit, ...), and
// its function is not PyTorch's or CPython's (c10::, at::, torch::, _Py...).
bool IsProgramFrame(const ResolvedFrame& frame);
// The innermost program frame; else the innermost frame with a file; else null.
const ResolvedFrame* ProgramFrame(const std::vector<ResolvedFrame>& stack);
// "scenarios.py:96": the file's base name and line; "" without a file.
std::string ShortLocation(const ResolvedFrame* frame);
// Where a frame is, never "<unknown>" while anything is known:
// "file:line", else "libtorch_cuda.so+0x1a2b", else the function, else the pc.
std::string FrameWhere(const ResolvedFrame& frame);

// A finding's synchronization (Finding::syncs' roles), not one of its accesses
// ("earlier", "later", "operation").
bool IsSyncRole(const std::string& role);
// An access made by a host function's run (cudaLaunchHostFunc, a graph host
// node): its stream kind says so.
bool IsHostFunction(const FindingAccess& a);
// An MPI call's host access (MPI_Send, MPI_Irecv, ...: tracer/libraries/mpi).
bool IsMpiCall(const std::string& op);
// The framework that issued an op ("PyTorch" for aten::, c10d::, ...), or "".
std::string FrameworkOf(const std::string& framework_op);
// The framework whose work an access is: its op's (PyTorch), a CuPy kernel's
// name, else the Python packages or libraries on its stack (PyTorch, CuPy,
// JAX, Numba); "" for a program's own CUDA work.
std::string FrameworkOfAccess(const FindingAccess& access);
// A collective or point-to-point op of torch.distributed (its fix is work.wait()).
bool IsDistributedOp(const std::string& framework_op);

// A kernel, API or framework op name, short: framework ops ("aten::sum")
// stay as they are, C++ names go through ShortFunctionName.
std::string DisplayOpName(const std::string& name);
// What a person calls the operation: the framework op when known, else the
// short kernel name, else the API; "the host" for a host access.
std::string OperationName(const FindingAccess& access);
// The kernel (or API) under a framework op, when it says something the op
// does not ("aten::sum" runs "reduce_kernel"); "" otherwise, and for a host
// access (the host's own read or write runs no kernel).
std::string KernelUnder(const FindingAccess& access);

// The stream's name, short (headline, timeline lane):
//   "default stream", "per-thread default stream", "stream 2 (created at a.cu:12)",
//   "torch.cuda.Stream first used at train.py:40", "stream 3", "host thread 1".
std::string StreamName(const FindingAccess& access);
// The name inside a sentence: "the default stream", "the torch.cuda.Stream
// first used at a.py:7", "stream 2 (created at a.cu:12)".
std::string StreamInSentence(const std::string& name);
// The name without where the stream came from: "stream 2", "torch.cuda.Stream".
std::string StreamWithoutOrigin(const std::string& name);
// Everything else known about it: handle, flags, device, how it was created
// and first used (one line, for tooltips and --verbose).
std::string StreamDetail(const FindingAccess& access);
// Whether the stream is the legacy default stream (or a per-thread one).
bool IsDefaultStream(const FindingAccess& access);

// Names for every lane of a finding (accesses, then syncs), made distinct
// where two would read the same ("per-thread default stream of thread 2").
struct LaneNames {
  std::vector<std::string> accesses;
  std::vector<std::string> syncs;
};
LaneNames NameLanes(const Finding& finding);

// "event 2 (created at a.cu:14)", "event 2", "event 0x5f00".
std::string EventName(const FindingAccess& sync);

// What an access did, in words, as each sentence needs it.
struct ModeWords {
  const char* present;     // "X reads …": reads, writes, reads and writes, uses
  const char* infinitive;  // "… may still X it": read, write, write, use
  const char* described;   // "earlier: X by …": read, write, read and write, use (read or write not known)
};
const ModeWords& WordsFor(AccessMode mode);
inline std::string ModeInWords(AccessMode mode) { return WordsFor(mode).described; }

// A synchronization that did happen, in a sentence: "cudaEventRecord at
// a.cu:30 recorded event 1 (created at a.cu:14) on stream 1 (...)",
// "cudaStreamSynchronize at a.cu:28: host thread 1 waited for stream 1 (...)".
std::string DescribeSync(const FindingAccess& sync);

// "16 MiB", "4 KiB", "39.1 KiB", "40 bytes".
std::string HumanSize(uint64_t bytes);

}  // namespace streamcheck::report
