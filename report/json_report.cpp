#include "report/json_report.h"

#include <sstream>

#include "report/finding_words.h"
#include "report/json_stream.h"
#include "report/object_names.h"

namespace streamcheck::report {
namespace {

using nlohmann::json;

json OrNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

json JsonOrigin(const ObjectOrigin& o, bool stream) {
  json out = {{"ordinal", o.ordinal == 0 ? json(nullptr) : json(o.ordinal)},
              {"created_by", OrNull(o.created_by)},
              {"created_at", JsonStack(o.created_at)}};
  if (stream) {
    out["first_op"] = OrNull(o.first_op);
    out["first_used_at"] = JsonStack(o.first_used_at);
  }
  return out;
}

// `lane`: the stream's name for people (object_names.h NameLanes).
json JsonAccess(const FindingAccess& a, const std::string& lane) {
  json access{
      {"role", a.role},
      {"op", a.op},
      {"api", a.api},
      {"framework_op", OrNull(a.framework_op)},
      {"stream", a.on_host ? json(nullptr) : json(LaneName(a))},
      {"stream_handle", Hex(a.stream_handle)},
      {"stream_flags", a.stream_flags},
      {"on_host", a.on_host},
      {"device", a.device},
      {"thread", a.thread},
      {"mode", AccessModeName(a.mode)},
      // Hex strings: 64-bit addresses do not survive JavaScript's doubles.
      {"address", Hex(a.address)},
      {"size", a.size},
      {"trace_index", a.trace_index},
      {"timestamp_ns", a.timestamp_ns},
      {"stack", JsonStack(a.stack)},
      {"op_short", DisplayOpName(a.op.empty() ? a.api : a.op)},
      {"stream_name", lane},
      {"stream_detail", StreamDetail(a)},
      {"stream_kind", OrNull(a.stream_kind)},
      {"stream_origin", JsonOrigin(a.stream_origin, true)},
      {"scope", OrNull(a.scope)},
  };
  if (a.event != 0) {
    access["event"] = Hex(a.event);
    access["event_name"] = EventName(a);
    access["event_origin"] = JsonOrigin(a.event_origin, false);
  }
  return access;
}

json JsonRun(const store::StoredRun& r) {
  return json{
      {"id", r.id},
      {"mode", r.info.mode},
      {"command", r.info.command},
      {"host", r.info.host},
      {"gpu", r.info.gpu},
      {"tool_version", r.info.tool_version},
      {"start_time_ns", r.info.start_time_ns},
      {"end_time_ns", r.end_time_ns ? json(*r.end_time_ns) : json(nullptr)},
      {"exit_status", r.exit_status ? json(*r.exit_status) : json(nullptr)},
  };
}

}  // namespace

json JsonStack(const std::vector<ResolvedFrame>& stack) {
  json frames = json::array();
  for (const ResolvedFrame& f : stack)
    frames.push_back({{"function", f.function},
                      {"file", f.file},
                      {"line", f.line},
                      {"column", f.column},
                      {"pc", Hex(f.pc)},
                      {"module", OrNull(f.module)},
                      {"module_offset", f.module.empty() ? json(nullptr) : json(Hex(f.module_offset))}});
  return frames;
}

json JsonFinding(const store::StoredFinding& s) {
  const Finding& f = s.finding;
  const LaneNames lanes = NameLanes(f);
  json accesses = json::array(), syncs = json::array();
  for (size_t i = 0; i < f.accesses.size(); ++i) accesses.push_back(JsonAccess(f.accesses[i], lanes.accesses[i]));
  for (size_t i = 0; i < f.syncs.size(); ++i) syncs.push_back(JsonAccess(f.syncs[i], lanes.syncs[i]));
  const FindingWords words = DescribeFinding(f);
  const FindingBuffer& b = f.buffer;
  return json{
      {"id", s.id},
      {"run", s.run_id},
      {"process", s.process_id == 0 ? json(nullptr) : json(s.process_id)},
      {"ranks", s.ranks},
      {"origin", f.origin == FindingOrigin::kStatic ? "static" : "dynamic"},
      {"rule", f.rule},
      {"kind", FindingKindName(f.kind)},
      {"severity", s.severity},
      {"confidence", ConfidenceName(f.confidence)},
      {"count", f.count},
      {"message", f.message},
      {"reason", f.reason},
      {"fix", f.fix},
      {"fingerprint", f.fingerprint},
      {"buffer",
       {{"address", Hex(b.address)},
        {"size", b.size},
        {"memory_kind", MemoryKindName(b.memory_kind)},
        {"allocated_by", b.known_allocation ? json(b.allocated_by) : json(nullptr)},
        {"allocation_stack", JsonStack(b.allocation_stack)}}},
      {"accesses", accesses},
      {"headline", words.headline},
      {"why", words.why},
      {"how_to_fix", words.fix},
      {"order_gap", OrNull(f.order_gap)},
      {"uncertainty", f.uncertainty},
      {"aware_thread", f.aware_thread == 0 ? json(nullptr) : json(f.aware_thread)},
      {"syncs", syncs},
      {"test", OrNull(TestOf(f))},
  };
}

namespace {

// report --group-by test: each test's counts and findings' ids, in the
// order the findings come (grouped by test), from a first pass over them.
bool JsonTests(const ReportData& data, json* tests) {
  *tests = json::array();
  return data.ForEach([&](const store::StoredFinding& s) {
    const std::string test = TestOf(s.finding);
    if (tests->empty() || tests->back()["test"] != OrNull(test))
      tests->push_back({{"test", OrNull(test)}, {"findings", json::array()}, {"errors", 0}});
    json& group = tests->back();
    group["findings"].push_back(s.id);
    if (s.severity == "error") group["errors"] = group["errors"].get<int>() + 1;
  });
}

}  // namespace

bool WriteJsonReport(const ReportData& data, std::ostream& out) {
  json runs = json::array();
  for (const store::StoredRun& r : data.runs) runs.push_back(JsonRun(r));
  json skeleton{{"format_version", kJsonFormatVersion},
                {"tool", "streamcheck"},
                {"tool_version", STREAMCHECK_VERSION},
                {"database", data.db_path},
                {"runs", runs},
                {"findings", nullptr}};
  if (data.group_by_test) {
    json tests;
    if (!JsonTests(data, &tests)) return false;
    skeleton["group_by"] = "test";
    skeleton["tests"] = std::move(tests);
  }
  JsonArrayStream findings(out, skeleton, "findings");
  const bool ok = data.ForEach([&](const store::StoredFinding& f) { findings.Add(JsonFinding(f)); });
  findings.Finish();
  return ok;
}

json JsonReport(const ReportData& data) {
  std::ostringstream out;
  WriteJsonReport(data, out);
  return json::parse(out.str());
}

}  // namespace streamcheck::report
