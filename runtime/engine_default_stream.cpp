// `run --forbid-default-stream[=GLOB]` (rule default-stream-use,
// rules/docs/default-stream-use.md): work issued to the legacy or per-thread
// default stream, by any code or only by the objects whose path matches the
// pattern. One finding per call site (and scope), counted each time.
#include <fnmatch.h>

#include "runtime/engine_impl.h"

namespace streamcheck {
namespace {

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

// Kernel launches, asynchronous copies and memsets, host functions, graph
// launches and stream-ordered allocation: the callers say which records are
// work (synchronous copies and memsets are the legacy stream's by definition).
void Engine::Impl::CheckDefaultStreamUse(const TraceRecord& r, const StreamState& s) {
  if (s.capture_graph != 0) return;  // runs where the graph is launched: that launch is checked
  const LaneKind kind = lanes_.Get(s.lane).kind;
  if (kind != LaneKind::kLegacyStream && kind != LaneKind::kPerThreadStream) return;
  const StringId object = r.stack != 0 ? symbols_.ObjectOfStack(r.stack) : 0;
  if (!options_.default_stream_objects.empty()) {
    if (object == 0) {
      Anomaly("default-stream operation whose calling object is not known (no native stack): not matched against "
              "--forbid-default-stream's pattern");
      return;
    }
    auto [it, added] = default_stream_objects_.try_emplace(object, false);
    if (added)
      it->second = fnmatch(options_.default_stream_objects.c_str(), std::string(symbols_.String(object)).c_str(),
                           0) == 0;
    if (!it->second) return;
  }
  const bool legacy = kind == LaneKind::kLegacyStream;
  const AccessDescription op{s.lane, SiteOf(r), ShadowKind::kUnknown, 0, 0, index_, r.timestamp_ns};
  const std::string stream = legacy ? "the legacy default stream" : "the per-thread default stream";
  const std::string by = object != 0 ? " by " + std::string(BaseName(symbols_.String(object))) : "";
  ReportSingleOperation(
      {rules::RuleId::kDefaultStreamUse, FindingKind::kDefaultStreamUse, 0, op.site}, op,
      OpName(op.site) + " issued to " + stream + by,
      legacy ? "the call used the legacy default stream (handle 0 or cudaStreamLegacy), which waits for and holds "
               "up every blocking stream of the device and is not ordered with non-blocking ones; code that is "
               "given a stream must issue all its work to it (--forbid-default-stream)"
             : "the call used the per-thread default stream (cudaStreamPerThread, or handle 0 under nvcc "
               "--default-stream per-thread), which is not ordered with the caller's own streams; code that is "
               "given a stream must issue all its work to it (--forbid-default-stream)");
}

}  // namespace streamcheck
