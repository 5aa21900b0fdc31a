// Host call stacks: captured as raw return addresses on every traced call
// (cheap; cheaper still when this thread captured the same stack before,
// repeated_stacks.h), interned so each distinct stack is stored once, and symbolized
// (function, file:line) only when a finding needs one. Captured on the
// program's threads (under the tracer's lock), symbolized on the analysis
// worker: the tables have locks of their own, and a symbolization (which
// runs addr2line) never holds the one capturing takes.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/finding.h"
#include "runtime/ids.h"

namespace streamcheck::tracer {

class HostStacks {
 public:
  HostStacks();  // picks the unwinder now, not inside the first CUDA call
  // For tests: verification unwinds anyway on every recognized or witnessed
  // stack and counts the differences (STREAMCHECK_DEBUG=stack-cache-verify).
  HostStacks(bool recognize_repeated_stacks, bool verify_repeated_stacks);
  // Interns the calling thread's stack, from the caller's frame out. Returns
  // 0 when capture failed; sets *is_new for a stack not seen before (the
  // caller then defines it). STREAMCHECK_STACK_CACHE=0 turns the
  // recognition of repeated stacks off (every capture unwinds).
  StackId Capture(bool* is_new);
  // How often repeated stacks were recognized (and, verifying, how often
  // wrongly): empty unless counted (STREAMCHECK_DEBUG=profile or stack-cache-verify).
  std::string RepeatedStacksSummary() const;
  // Under the tracer's lock, like Capture (no other thread adds stacks meanwhile).
  const std::vector<uint64_t>& ProgramCounters(StackId id) const { return stacks_[id]; }
  // Function, file and line for each frame of the program (frames inside the
  // CUDA libraries and the tracer are dropped). Cached per stack.
  std::vector<ResolvedFrame> Symbolize(StackId id);
  // A stack that arrives symbolized (a framework's Python stack): no program
  // counters, the frames as given.
  StackId AddSymbolized(std::vector<ResolvedFrame> frames);
  // The kernel a stack launched: its host wrapper frames are left out of reports.
  void NoteKernel(StackId id, const std::string& kernel);
  // Resolves every stack captured so far in one batch (at exit, for the trace).
  void ResolveAll();
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return stacks_.size() - 1;
  }
  // What the tables hold on the heap (runtime/memory_estimate.h): distinct
  // stacks and the frames of the program counters symbolized so far.
  size_t HeapBytes();

 private:
  StackId Intern(const uint64_t* pcs, size_t n, bool* is_new);
  // STREAMCHECK_DEBUG=stack-cache-verify: unwinds anyway and compares.
  void VerifyRepeated(StackId id, uint64_t first_pc, const char* how);

  const uint64_t owner_;  // tells this table's ids from another's in RepeatedStacks
  const bool repeated_stacks_, verify_repeated_, count_repeated_;
  mutable std::mutex mutex_;  // the stacks, their hashes, kernels and symbolized stacks
  std::vector<std::vector<uint64_t>> stacks_{{}};  // id 0: none
  std::unordered_map<uint64_t, std::vector<StackId>> by_hash_;
  std::unordered_map<StackId, std::string> kernels_;  // stack -> bare name of the kernel it launched
  std::unordered_map<StackId, std::vector<ResolvedFrame>> symbolized_;  // stacks that arrived symbolized
  // Call with symbolize_mutex_ held.
  void ResolvePcs(const std::vector<uint64_t>& pcs);
  std::mutex symbolize_mutex_;  // frames_by_pc_
  // Per program counter: its frames (the inline chain, innermost first), or
  // nullopt for frames of the CUDA libraries and the tracer, which reports leave out.
  std::unordered_map<uint64_t, std::optional<std::vector<ResolvedFrame>>> frames_by_pc_;
};

// True for frames of libraries a user does not want to see in a report.
bool IsRuntimeFrame(const std::string& module_path);

}  // namespace streamcheck::tracer
