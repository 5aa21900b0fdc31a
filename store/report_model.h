// What every exporter is given, and the wording they share (locations,
// access descriptions), so text, JSON, SARIF and HTML agree.
#pragma once

#include <string>
#include <vector>

#include "store/reader.h"

namespace streamcheck::store {

struct ReportData {
  std::string db_path;
  std::vector<StoredRun> runs;          // the runs the findings come from
  std::vector<StoredFinding> findings;  // already filtered (rule, run, baseline, suppressions)
};

// The same race found by several ranks of one distributed run (one finding
// per process, the same fingerprint) becomes one finding: the first found,
// with every rank listed and the counts summed. Findings of processes with
// no rank are left as they are.
void FoldAcrossRanks(std::vector<StoredFinding>* findings);
// "rank 0" / "ranks 0, 1, 3" / "" (no rank known).
std::string DescribeRanks(const StoredFinding& finding);

// The frame a diagnostic points at: the first one with a source file (the
// innermost frames are often libcudart or PyTorch internals without one).
const ResolvedFrame* PrimaryFrame(const FindingAccess& access);
// "file:line:column", "file:line" or "file"; "<unknown>" when there is no file.
std::string FrameLocation(const ResolvedFrame& frame);
// "write by kernel `fill` on stream 0x55 (non-blocking), device 0, thread 1"
std::string DescribeAccess(const FindingAccess& access);
// "0x7f00..+4096" style buffer description with its allocation API.
std::string DescribeBuffer(const FindingBuffer& buffer);
// Lane name for the timeline: the stream's display name, or "host thread N".
std::string LaneName(const FindingAccess& access);
std::string Hex(uint64_t value);

}  // namespace streamcheck::store
