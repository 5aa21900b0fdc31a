#include "tracer/stacks/host_stacks.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

#include "runtime/memory_estimate.h"
#include "tracer/debug/debug_flags.h"
#include "tracer/hot_path.h"
#include "tracer/kernel_access/kernel_signature.h"
#include "tracer/stacks/native_unwinder.h"
#include "tracer/stacks/program_frames.h"
#include "tracer/stacks/repeated_stacks.h"
#include "tracer/environment.h"

namespace streamcheck::tracer {
namespace {

// Deep enough to get past CUPTI's and the driver's own frames (~15) to the program's.
constexpr int kMaxFrames = 48;

uint64_t HashPcs(const uint64_t* pcs, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ pcs[i]) * 0x100000001b3ull;
  return h;
}

std::atomic<uint64_t> g_next_owner{1};

bool RepeatedStacksWanted() {
  const char* v = std::getenv(environment::kStackCache);
  return v == nullptr || std::strcmp(v, "0") != 0;
}

struct SourceLine {
  std::string function, file;
  uint32_t line = 0;
};

std::string ReadLine(FILE* p) {
  char buf[4096];
  if (!std::fgets(buf, sizeof buf, p)) return {};
  std::string s(buf);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// For each of `offsets` in `module`, its inline chain (innermost function
// first, then the functions it was inlined into), through addr2line
// (binutils), which reads the DWARF line tables and static symbols that
// dladdr cannot see.
std::vector<std::vector<SourceLine>> SourceLines(const std::string& module, const std::vector<uint64_t>& offsets) {
  std::vector<std::vector<SourceLine>> out(offsets.size());
  std::string cmd = "addr2line -a -f -C -i -e '" + module + "'";
  for (uint64_t off : offsets) {
    char buf[32];
    std::snprintf(buf, sizeof buf, " 0x%llx", static_cast<unsigned long long>(off));
    cmd += buf;
  }
  cmd += " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  // Output: an "0x..." line per address, then function/location line pairs.
  long index = -1;
  for (std::string line = ReadLine(p); !line.empty() || !std::feof(p); line = ReadLine(p)) {
    if (line.rfind("0x", 0) == 0) {
      ++index;
      continue;
    }
    if (index < 0 || index >= static_cast<long>(out.size())) break;
    SourceLine entry;
    if (line != "??") entry.function = line;
    const std::string location = ReadLine(p);
    const size_t colon = location.rfind(':');
    if (colon != std::string::npos && location.compare(0, 2, "??") != 0) {
      entry.file = location.substr(0, colon);
      entry.line = static_cast<uint32_t>(std::strtoul(location.c_str() + colon + 1, nullptr, 10));
    }
    out[index].push_back(std::move(entry));
  }
  pclose(p);
  return out;
}

}  // namespace

bool IsRuntimeFrame(const std::string& path) {
  const std::string base = path.substr(path.rfind('/') + 1);
  for (const char* prefix : {"libcuda.", "libcupti.", "libcudart.", "libstreamcheck_tracer.", "libunwind.", "libc.so",
                             "ld-linux", "libnvidia-", "libcublas", "libcudnn"})
    if (base.rfind(prefix, 0) == 0) return true;
  return false;
}

HostStacks::HostStacks() : HostStacks(RepeatedStacksWanted(), DebugFlag(DebugSwitch::kStackCacheVerify)) {}

HostStacks::HostStacks(bool recognize_repeated_stacks, bool verify_repeated_stacks)
    : owner_(g_next_owner.fetch_add(1)),
      repeated_stacks_(recognize_repeated_stacks),
      verify_repeated_(verify_repeated_stacks),
      count_repeated_(verify_repeated_ || DebugFlag(DebugSwitch::kProfile)) {
  (void)NativeUnwinder::Get();  // chosen now, not inside the first CUDA call
}

// Its own frame is what RepeatedStacks keys on: never inlined, and built
// with a frame pointer (CMakeLists.txt), so the caller's RBP is saved in
// the frame's top words, where a witness may point.
__attribute__((noinline)) STREAMCHECK_HOT StackId HostStacks::Capture(bool* is_new) {
  *is_new = false;
  const auto outer_sp = reinterpret_cast<uintptr_t>(__builtin_dwarf_cfa());
  const auto first_pc = reinterpret_cast<uint64_t>(__builtin_return_address(0));
  const NativeUnwinder& unwinder = NativeUnwinder::Get();
  RepeatedStackCounts& counts = RepeatedStackCounters();
  if (repeated_stacks_ && unwinder.CanWalk()) {
    RepeatedStacks& repeated = RepeatedStacks::ThisThread();
    if (const StackId id = repeated.Find(outer_sp, owner_)) {
      if (count_repeated_) counts.hits.fetch_add(1, std::memory_order_relaxed);
      if (verify_repeated_) VerifyRepeated(id, first_pc, "recognized");
      return id;
    }
    if (repeated.ShouldWalk(outer_sp)) {
      std::vector<uint64_t> pcs;
      std::vector<StackWitness> witnesses;
      if (unwinder.Walk(outer_sp, kMaxFrames, repeated.WitnessBounds(outer_sp), &pcs, &witnesses)) {
        const StackId id = Intern(pcs.data(), pcs.size(), is_new);
        repeated.Remember(outer_sp, owner_, id, witnesses);
        if (count_repeated_) counts.walks.fetch_add(1, std::memory_order_relaxed);
        if (verify_repeated_) VerifyRepeated(id, first_pc, "witnessed");
        return id;
      }
      if (count_repeated_) counts.unwitnessed.fetch_add(1, std::memory_order_relaxed);
    }
  }
  uint64_t pcs[kMaxFrames];
  const int n = unwinder.Backtrace(pcs, kMaxFrames, first_pc);
  return n > 0 ? Intern(pcs, static_cast<size_t>(n), is_new) : 0;
}

void HostStacks::VerifyRepeated(StackId id, uint64_t first_pc, const char* how) {
  uint64_t pcs[kMaxFrames];
  const int n = NativeUnwinder::Get().Backtrace(pcs, kMaxFrames, first_pc);
  std::lock_guard<std::mutex> lock(mutex_);
  const auto& known = stacks_[id];
  if (known.size() == static_cast<size_t>(n) && std::equal(known.begin(), known.end(), pcs)) return;
  if (RepeatedStackCounters().mismatches.fetch_add(1) < 3)
    std::fprintf(stderr, "streamcheck: stack-cache-verify: a %s stack (%zu frames) differs from a fresh unwind (%d frames)\n",
                 how, known.size(), n);
}

StackId HostStacks::Intern(const uint64_t* pcs, size_t n, bool* is_new) {
  *is_new = false;
  const uint64_t h = HashPcs(pcs, n);
  std::lock_guard<std::mutex> lock(mutex_);
  auto& candidates = by_hash_[h];
  for (StackId id : candidates) {
    const auto& known = stacks_[id];
    if (known.size() == n && std::equal(known.begin(), known.end(), pcs)) return id;
  }
  stacks_.emplace_back(pcs, pcs + n);
  const StackId id = static_cast<StackId>(stacks_.size() - 1);
  candidates.push_back(id);
  *is_new = true;
  return id;
}

size_t HostStacks::HeapBytes() {
  size_t bytes = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    bytes += memory::Buffer(stacks_) + memory::HashMap(by_hash_) + memory::HashMap(kernels_) +
             memory::HashMap(symbolized_);
    for (const std::vector<uint64_t>& pcs : stacks_) bytes += memory::Buffer(pcs);
    for (const auto& [hash, ids] : by_hash_) bytes += memory::Buffer(ids);
    for (const auto& [id, kernel] : kernels_) bytes += memory::Heap(kernel);
    for (const auto& [id, frames] : symbolized_) bytes += memory::Buffer(frames);
  }
  std::lock_guard<std::mutex> lock(symbolize_mutex_);
  bytes += memory::HashMap(frames_by_pc_);
  for (const auto& [pc, frames] : frames_by_pc_)
    if (frames) bytes += memory::Buffer(*frames);
  return bytes;
}

std::string HostStacks::RepeatedStacksSummary() const {
  if (!count_repeated_) return {};
  const RepeatedStackCounts& c = RepeatedStackCounters();
  std::string line = "repeated stacks: " + std::to_string(c.hits.load()) + " recognized, " +
                     std::to_string(c.walks.load()) + " witnessed walks, " + std::to_string(c.unwitnessed.load()) +
                     " walks without witnesses";
  if (verify_repeated_) line += ", " + std::to_string(c.mismatches.load()) + " mismatches";
  return line;
}

void HostStacks::ResolvePcs(const std::vector<uint64_t>& pcs) {
  // One addr2line per module for every program counter not resolved yet.
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> by_module;  // module -> (pc, offset)
  for (uint64_t pc : pcs) {
    if (frames_by_pc_.count(pc)) continue;
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(pc), &info) == 0 || info.dli_fname == nullptr ||
        IsRuntimeFrame(info.dli_fname)) {
      frames_by_pc_[pc] = std::nullopt;
      continue;
    }
    ResolvedFrame f;
    f.pc = pc;
    f.function = info.dli_sname ? Demangle(info.dli_sname) : std::string();
    f.module = info.dli_fname;  // where a frame without debug information still points
    f.module_offset = pc - reinterpret_cast<uint64_t>(info.dli_fbase);
    frames_by_pc_[pc] = std::vector<ResolvedFrame>{f};  // file and line from addr2line; empty when it has none
    // Return addresses point after the call; step back into it for the line.
    by_module[info.dli_fname].push_back({pc, pc - 1 - reinterpret_cast<uint64_t>(info.dli_fbase)});
  }
  for (const auto& [module, entries] : by_module) {
    std::vector<uint64_t> offsets;
    for (const auto& e : entries) offsets.push_back(e.second);
    const auto chains = SourceLines(module, offsets);
    for (size_t k = 0; k < entries.size(); ++k) {
      std::vector<ResolvedFrame>& frames = *frames_by_pc_[entries[k].first];
      const ResolvedFrame exported = frames[0];
      if (chains[k].empty()) continue;
      frames.clear();
      for (const SourceLine& s : chains[k])
        frames.push_back({s.function.empty() ? exported.function : s.function, s.file, s.line, 0, exported.pc,
                          exported.module, exported.module_offset});
    }
  }
}

StackId HostStacks::AddSymbolized(std::vector<ResolvedFrame> frames) {
  std::lock_guard<std::mutex> lock(mutex_);
  stacks_.emplace_back();
  const StackId id = static_cast<StackId>(stacks_.size() - 1);
  symbolized_.emplace(id, std::move(frames));
  return id;
}

std::vector<ResolvedFrame> HostStacks::Symbolize(StackId id) {
  std::vector<uint64_t> pcs;
  std::string kernel;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (id == 0 || id >= stacks_.size()) return {};
    if (auto s = symbolized_.find(id); s != symbolized_.end()) return s->second;
    pcs = stacks_[id];
    if (auto k = kernels_.find(id); k != kernels_.end()) kernel = k->second;
  }
  std::lock_guard<std::mutex> lock(symbolize_mutex_);
  ResolvePcs(pcs);
  std::vector<ResolvedFrame> frames;
  for (uint64_t pc : pcs)
    if (const auto& chain = frames_by_pc_[pc]) frames.insert(frames.end(), chain->begin(), chain->end());
  return ProgramFrames(std::move(frames), kernel);
}

void HostStacks::NoteKernel(StackId id, const std::string& kernel) {
  if (id == 0 || kernel.empty()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  kernels_.emplace(id, BareName(kernel));
}

void HostStacks::ResolveAll() {
  std::vector<uint64_t> all;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& stack : stacks_) all.insert(all.end(), stack.begin(), stack.end());
  }
  std::lock_guard<std::mutex> lock(symbolize_mutex_);
  ResolvePcs(all);
}

}  // namespace streamcheck::tracer
