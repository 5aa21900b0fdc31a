#include "tracer/frameworks/framework_ops.h"

#include <algorithm>

#include "tracer/thread_state.h"

namespace streamcheck::tracer {

namespace {
bool StartsBefore(const StreamcheckTensorRegion& a, const StreamcheckTensorRegion& b) { return a.begin < b.begin; }
}  // namespace

void FrameworkOpStack::Begin(StringId name, StackId stack, const StreamcheckTensorRegion* regions, size_t count) {
  if (open_ == ops_.size()) ops_.emplace_back();
  Op& op = ops_[open_];
  op.name = name;
  op.stack = stack;
  op.regions.assign(regions, regions + count);
  published_ = std::min(published_, open_);
  ++open_;
}

void FrameworkOpStack::End() {
  if (open_ > 0) --open_;
  published_ = std::min(published_, open_);
}

bool FrameworkOpStack::PublishChanges(TraceRecord* out) {
  out->Clear();
  out->op = kOpenFrameworkOps;
  out->id = static_cast<uint32_t>(published_);
  for (size_t i = published_; i < open_; ++i) {
    const std::vector<StreamcheckTensorRegion>& regions = ops_[i].regions;
    out->deps.push_back(regions.size());
    for (const StreamcheckTensorRegion& r : regions)
      out->accesses.push_back({r.begin, r.end > r.begin ? r.end - r.begin : 0,
                               r.writes ? AccessMode::kWrite : AccessMode::kRead});
  }
  published_ = worker_open_ = open_;
  return true;
}

FrameworkOpStack& ThisThreadFrameworkOps() { return ThisThread().framework_ops; }

void OpRegionStack::Apply(const TraceRecord& open_ops) {
  open_ = std::min<size_t>(open_, open_ops.id);
  size_t next = 0;
  for (const Handle count : open_ops.deps) {
    if (open_ == ops_.size()) ops_.emplace_back();
    Op& op = ops_[open_++];
    op.regions.clear();
    op.widest = 0;
    for (size_t end = std::min(next + count, open_ops.accesses.size()); next < end; ++next) {
      const MemoryAccess& a = open_ops.accesses[next];
      if (a.size == 0) continue;
      op.regions.push_back({a.addr, a.addr + a.size, uint8_t(a.mode == AccessMode::kWrite)});
      op.widest = std::max(op.widest, a.size);
    }
    // Stable: equal regions (one tensor passed twice) keep the arguments' order,
    // so which one Holding() picks does not depend on the sort.
    std::stable_sort(op.regions.begin(), op.regions.end(), StartsBefore);
    op.tensors = !op.regions.empty();
  }
}

void OpRegionStack::Op::Add(const StreamcheckTensorRegion& region) {
  if (region.end <= region.begin) return;
  regions.insert(std::upper_bound(regions.begin(), regions.end(), region, StartsBefore), region);
  widest = std::max(widest, region.end - region.begin);
}

const StreamcheckTensorRegion* OpRegionStack::Op::Holding(Address addr) const {
  const StreamcheckTensorRegion probe{addr, addr, 0};
  const StreamcheckTensorRegion* best = nullptr;
  for (auto it = std::upper_bound(regions.begin(), regions.end(), probe, StartsBefore); it != regions.begin();) {
    --it;
    if (addr - it->begin >= widest) break;  // this and every earlier region ends before addr
    if (addr < it->end && (!best || it->end - it->begin < best->end - best->begin)) best = &*it;
  }
  return best;
}

void OpRegionStack::AddFreshBlock(Address base, uint64_t size) {
  if (open_ > 0) ops_[open_ - 1].Add({base, base + size, 1});
}

void OpRegionStack::Refine(std::vector<MemoryAccess>* accesses) const {
  bool tensors_known = false;
  for (size_t i = 0; i < open_; ++i) tensors_known |= ops_[i].tensors;
  size_t kept = 0;
  for (MemoryAccess& a : *accesses) {
    const StreamcheckTensorRegion* r = nullptr;
    for (size_t i = open_; r == nullptr && i-- > 0;) r = ops_[i].Holding(a.addr);
    if (r != nullptr) {
      a = {r->begin, r->end - r->begin, r->writes ? AccessMode::kWrite : AccessMode::kRead};
    } else if (tensors_known && a.certainty == AccessCertainty::kNone) {
      // A word inside a by-value struct that points into none of the open
      // ops' tensors nor into memory they allocated: taken as no pointer the
      // kernel uses. PyTorch's TensorListMetadata (the _foreach kernels)
      // leaves its unused address slots uninitialized, and those stale stack
      // words pointed at other ops' buffers (a pinned staging block, a
      // layer_norm output) in FSDP2's all_gather_copy_in: possible races on a
      // correct program. `run --precise` sees what the kernel really touches.
      continue;
    }
    (*accesses)[kept++] = a;
  }
  accesses->resize(kept);
}

}  // namespace streamcheck::tracer
