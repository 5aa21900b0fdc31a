// The tracer takes no native stack for records whose stacks no finding shows
// (FindingsCiteStackOf, runtime/engine.h). Checked on every trace recorded on
// the GPU machine (testdata/traces): replayed with those records' stacks
// dropped, each gives the same findings, stacks and all.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/engine.h"
#include "runtime/trace/trace_io.h"

namespace streamcheck {
namespace {

std::string Frames(const std::vector<ResolvedFrame>& stack) {
  std::string out;
  for (const ResolvedFrame& f : stack)
    out += f.function + "@" + f.file + ":" + std::to_string(f.line) + "/" + std::to_string(f.pc) + " ";
  return out;
}

// Every finding in full, as text: what a report shows of it.
class Collector : public FindingSink {
 public:
  void OnFinding(uint64_t id, const Finding& f) override {
    std::string line = std::to_string(id) + " " + f.rule + " " + f.message + " | " + f.reason + " | " + f.fix +
                       " | " + f.fingerprint + " | alloc " + Frames(f.buffer.allocation_stack);
    // The accesses, the syncs between them, and where their streams and events came from.
    for (const std::vector<FindingAccess>* list : {&f.accesses, &f.syncs})
      for (const FindingAccess& a : *list)
        line += " | " + a.role + " " + a.op + " " + a.framework_op + " " + a.stream + " " + Frames(a.stack) +
                " created " + Frames(a.stream_origin.created_at) + " first " + Frames(a.stream_origin.first_used_at) +
                " event " + Frames(a.event_origin.created_at);
    findings.push_back(line);
  }
  void OnFindingCount(uint64_t id, uint64_t count) override {
    findings.push_back(std::to_string(id) + " count " + std::to_string(count));
  }
  std::vector<std::string> findings;
};

std::vector<std::string> Replay(const std::filesystem::path& path, bool drop_uncited_stacks) {
  std::string error;
  auto source = OpenTrace(path.string(), &error);
  EXPECT_TRUE(source) << error;
  if (!source) return {};
  Collector collector;
  Engine engine(&collector);
  TraceRecord r;
  TraceSource::Status status;
  while ((status = source->Next(&r)) == TraceSource::Status::kRecord) {
    if (drop_uncited_stacks && !FindingsCiteStackOf(r.op)) r.stack = 0;
    engine.Process(r);
  }
  EXPECT_EQ(status, TraceSource::Status::kEnd) << source->error();
  engine.Finish();
  return collector.findings;
}

TEST(RecordedTraceStacks, DroppingStacksNoFindingCitesChangesNoFinding) {
  int traces = 0, with_findings = 0;
  for (const auto& entry : std::filesystem::directory_iterator(STREAMCHECK_RECORDED_TRACES_DIR)) {
    if (entry.path().extension() != ".sctrace") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const std::vector<std::string> full = Replay(entry.path(), false);
    EXPECT_EQ(Replay(entry.path(), true), full);
    ++traces;
    with_findings += !full.empty();
  }
  EXPECT_GE(traces, 40);
  EXPECT_GE(with_findings, 20);  // the racy half: stacks in findings are what is compared
}

}  // namespace
}  // namespace streamcheck
