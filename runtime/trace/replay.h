// The replay loop: every record of a trace through an engine, decoding one
// record ahead so the engine can prefetch the shadow memory it will touch.
#pragma once

#include "runtime/engine.h"
#include "runtime/trace/trace_io.h"

namespace streamcheck {

// Returns kEnd after the last record or kError (source->error() says what);
// every record before an error has been processed. Does not call Finish().
TraceSource::Status ReplayInto(TraceSource& source, Engine& engine);

}  // namespace streamcheck
