// What every exporter is given, and the wording they share (locations,
// access descriptions), so text, JSON, SARIF and HTML agree.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "store/reader.h"

namespace streamcheck::report {

using FindingVisitor = std::function<void(const store::StoredFinding&)>;

struct ReportData {
  std::string db_path;
  std::vector<store::StoredRun> runs;          // the runs the findings come from
  std::vector<store::StoredFinding> findings;  // already filtered (rule, run, baseline, suppressions)
  // When set, the findings come from here instead of `findings`, one at a
  // time (`report` reads them from the store as it writes, so its memory does
  // not grow with their number). May be called more than once; returns false
  // when reading failed (source_error() says why).
  std::function<bool(const FindingVisitor&)> source;
  std::function<std::string()> source_error;
  // Folders whose files the HTML report may quote (html_report.h).
  std::vector<std::string> source_roots;
  // The text report: ANSI colours (report --color, NO_COLOR), and everything
  // (full kernel names, all frames, stream handles, the syncs) with verbose.
  bool color = false;
  bool verbose = false;
  // Processes per run (the HTML overview counts processes and ranks); empty
  // where the caller has none to give.
  std::map<int64_t, std::vector<store::StoredProcess>> processes;
  // report --group-by test: the findings come ordered by their test
  // (TestOf; FindingQuery::by_test), and every format heads each test's
  // group (docs/SCOPES.md).
  bool group_by_test = false;

  // Visits every finding; false when the source failed partway.
  bool ForEach(const FindingVisitor& visit) const;
};

// A run that recorded no end (killed, or still running) in the words every
// format uses (unescaped): "run 3 (replay: CMD) did not finish: ...". One per
// such run of `data.runs`, in id order.
std::vector<std::string> UnfinishedRunNotes(const ReportData& data);

// A finding that was never stored (replay --no-db, the lint's SARIF), as the
// exporters take it: what reading it back from a store would give, without
// the store's ids.
store::StoredFinding InMemoryFinding(const Finding& finding, uint64_t local_id = 0);

// The same race found by several ranks of one distributed run (one finding
// per process of a rank, the same run and fingerprint) becomes one finding:
// the first found, with every rank listed and the counts summed. Findings of
// processes with no rank are left as they are.
//
// RankFolder does it as findings stream past (report), given each race's
// findings one after another (FindingQuery::ranks_together): it holds one
// finding at most. FoldAcrossRanks does it to a list in id order (run).
class RankFolder {
 public:
  explicit RankFolder(const FindingVisitor& visit) : visit_(visit) {}
  // Passes the finding on, or keeps it to fold the next ranks' into.
  void Add(store::StoredFinding& finding);
  // Passes on the finding kept. Call once all were added.
  void Finish();

 private:
  const FindingVisitor& visit_;
  std::optional<store::StoredFinding> pending_;
};
void FoldAcrossRanks(std::vector<store::StoredFinding>* findings);
// "rank 0" / "ranks 0, 1, 3" / "" (no rank known).
std::string DescribeRanks(const store::StoredFinding& finding);

// The frame a diagnostic points at: the program's innermost frame, else the
// first with a source file (the innermost frames are often libcudart or
// PyTorch internals), else the innermost.
const ResolvedFrame* PrimaryFrame(const FindingAccess& access);
// The frame a finding is located at: the later access's (PrimaryFrame) when
// it has a source file, else the first access's or the allocation's that
// has one. nullptr when no frame of the finding has a source file.
const ResolvedFrame* LocatingFrame(const Finding& finding);
// Where a diagnostic points: LocatingFrame's place ("file:line"), or, when
// no frame has a source line, the later operation and the library it was
// called from: "scale (no source line)", "ncclKernel (no source line, in
// libnccl.so.2)". Never a raw address.
std::string FindingPlace(const Finding& finding);
// "file:line:column", "file:line" or "file"; without a file "module+0xoff",
// the function or the pc (object_names.h FrameWhere).
std::string FrameLocation(const ResolvedFrame& frame);
// "write by aten::normal_ (distribution_elementwise_grid_stride_kernel) on
// the default stream, device 0, thread 1": short names, the stream as
// object_names.h names it.
std::string DescribeAccess(const FindingAccess& access);
// The test (scope, docs/SCOPES.md) a finding belongs to: its later access's,
// where the race was found (a single operation's only access); "" outside
// every scope.
std::string TestOf(const Finding& finding);
// "test tests/a.py::test_x", or "outside every test": a group's heading.
std::string TestHeading(const std::string& test);
// "0x7f00..+4096" style buffer description with its allocation API.
std::string DescribeBuffer(const FindingBuffer& buffer);
// The engine's display name of the access's stream ("stream 0x5555
// (non-blocking) on device 0"), or "host thread N": JSON's `stream`.
std::string LaneName(const FindingAccess& access);
std::string Hex(uint64_t value);

}  // namespace streamcheck::report
