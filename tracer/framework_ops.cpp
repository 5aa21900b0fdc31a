#include "tracer/framework_ops.h"

namespace streamcheck::tracer {

void FrameworkOpStack::Begin(StringId name, StackId stack, const StreamcheckTensorRegion* regions, size_t count) {
  if (open_ == ops_.size()) ops_.emplace_back();
  Op& op = ops_[open_++];
  op.name = name;
  op.stack = stack;
  op.regions.assign(regions, regions + count);
}

void FrameworkOpStack::End() {
  if (open_ > 0) --open_;
}

void FrameworkOpStack::AddFreshBlock(Address base, uint64_t size) {
  if (open_ > 0) ops_[open_ - 1].regions.push_back({base, base + size, 1});
}

void FrameworkOpStack::Refine(std::vector<MemoryAccess>* accesses) const {
  for (MemoryAccess& a : *accesses) {
    for (size_t i = open_; i-- > 0;) {
      const StreamcheckTensorRegion* best = nullptr;
      for (const StreamcheckTensorRegion& r : ops_[i].regions)
        if (a.addr >= r.begin && a.addr < r.end && (!best || r.end - r.begin < best->end - best->begin)) best = &r;
      if (best == nullptr) continue;
      a = {best->begin, best->end - best->begin, best->writes ? AccessMode::kWrite : AccessMode::kRead};
      break;
    }
  }
}

FrameworkOpStack& ThisThreadFrameworkOps() {
  thread_local FrameworkOpStack ops;
  return ops;
}

}  // namespace streamcheck::tracer
