// Pages [begin, end) of host memory (page-aligned addresses).
#pragma once

#include "runtime/ids.h"

namespace streamcheck::tracer::host {

struct PageSpan {
  Address begin = 0, end = 0;
};

}  // namespace streamcheck::tracer::host
