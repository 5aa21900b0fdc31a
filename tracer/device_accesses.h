// A front-end that observes kernels' memory accesses on the device (the
// precise one, tracer/sanitizer/) completes their launch records on the
// analysis worker: the tracer hands it every launch that carries a
// device_access_ticket, in record order, before the record is resolved.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "runtime/trace_record.h"
#include "tracer/kernel_access/access_extent.h"

namespace streamcheck::tracer {

class DeviceAccessSource {
 public:
  virtual ~DeviceAccessSource() = default;
  // Waits until the launch is over, then puts its exact accesses into
  // launch.accesses (clearing pointer_words), clipped to the memory
  // `allocations` know; or, where they cannot be had, leaves the argument
  // words for fast mode's extents.
  virtual void Complete(TraceRecord& launch, const AllocationBounds& allocations) = 0;
  // The tracer is finishing (at exit): launches that have not reported their
  // end by now are taken as over after a short grace, not waited for.
  virtual void Finishing() {}
  // Launches or modules it could not observe, and why, counted: stored with
  // the run (counter category "precise") and listed by `streamcheck run`.
  virtual std::map<std::string, uint64_t> Notes() const { return {}; }
};

}  // namespace streamcheck::tracer
