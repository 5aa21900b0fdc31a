#include "tracer/framework_ops.h"

#include <algorithm>

namespace streamcheck::tracer {

namespace {
bool StartsBefore(const StreamcheckTensorRegion& a, const StreamcheckTensorRegion& b) { return a.begin < b.begin; }
}  // namespace

void FrameworkOpStack::Op::Add(const StreamcheckTensorRegion& region) {
  if (region.end <= region.begin) return;
  regions.insert(std::upper_bound(regions.begin(), regions.end(), region, StartsBefore), region);
  widest = std::max(widest, region.end - region.begin);
}

const StreamcheckTensorRegion* FrameworkOpStack::Op::Holding(Address addr) const {
  const StreamcheckTensorRegion probe{addr, addr, 0};
  const StreamcheckTensorRegion* best = nullptr;
  for (auto it = std::upper_bound(regions.begin(), regions.end(), probe, StartsBefore); it != regions.begin();) {
    --it;
    if (addr - it->begin >= widest) break;  // this and every earlier region ends before addr
    if (addr < it->end && (!best || it->end - it->begin < best->end - best->begin)) best = &*it;
  }
  return best;
}

void FrameworkOpStack::Begin(StringId name, StackId stack, const StreamcheckTensorRegion* regions, size_t count) {
  if (open_ == ops_.size()) ops_.emplace_back();
  Op& op = ops_[open_++];
  op.name = name;
  op.stack = stack;
  op.regions.assign(regions, regions + count);
  std::sort(op.regions.begin(), op.regions.end(), StartsBefore);
  op.widest = 0;
  for (const StreamcheckTensorRegion& r : op.regions) op.widest = std::max(op.widest, r.end - r.begin);
}

void FrameworkOpStack::End() {
  if (open_ > 0) --open_;
}

void FrameworkOpStack::AddFreshBlock(Address base, uint64_t size) {
  if (open_ > 0) ops_[open_ - 1].Add({base, base + size, 1});
}

void FrameworkOpStack::Refine(std::vector<MemoryAccess>* accesses) const {
  for (MemoryAccess& a : *accesses) {
    for (size_t i = open_; i-- > 0;) {
      const StreamcheckTensorRegion* r = ops_[i].Holding(a.addr);
      if (r == nullptr) continue;
      a = {r->begin, r->end - r->begin, r->writes ? AccessMode::kWrite : AccessMode::kRead};
      break;
    }
  }
}

FrameworkOpStack& ThisThreadFrameworkOps() {
  thread_local FrameworkOpStack ops;
  return ops;
}

}  // namespace streamcheck::tracer
