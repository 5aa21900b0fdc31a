#include "store/reader.h"

#include <algorithm>

#include "rules/catalogue.h"
#include "store/database.h"
#include "store/enum_names.h"

namespace streamcheck::store {
namespace {

bool Failed(Database& db, const Statement& stmt, std::string* error) {
  *error = db.path() + ": cannot read: " + (stmt.error().empty() ? db.error() : stmt.error());
  return false;
}

std::vector<ResolvedFrame> ReadStack(Statement& frames, int64_t stack) {
  std::vector<ResolvedFrame> out;
  if (stack == 0) return out;
  frames.Reset();
  frames.Bind(1, stack);
  while (frames.Step()) {
    ResolvedFrame f;
    f.function = frames.Text(0);
    f.file = frames.Text(1);
    f.line = static_cast<uint32_t>(frames.Int(2));
    f.column = static_cast<uint32_t>(frames.Int(3));
    f.pc = static_cast<uint64_t>(frames.Int(4));
    f.module = frames.Text(5);
    f.module_offset = static_cast<uint64_t>(frames.Int(6));
    out.push_back(std::move(f));
  }
  return out;
}

// Schema 4 added the columns that name streams and events, the syncs
// table and frames' modules; older files are read without them.
constexpr int kNamesSchema = 4;
// Schema 5 added each access's scope (the test it was made in).
constexpr int kScopesSchema = 5;
// A finding's test is its later access's scope (the one with role "later",
// else the last: report_model.h TestOf); those outside every scope come last.
#define STREAMCHECK_TEST_OF_FINDING                                                                        \
  "COALESCE((SELECT x.scope FROM accesses x WHERE x.finding_id = f.id ORDER BY x.role = 'later' DESC, " \
  "x.ordinal DESC LIMIT 1), '')"
constexpr const char* kTestOrder = STREAMCHECK_TEST_OF_FINDING " = '', " STREAMCHECK_TEST_OF_FINDING ", ";
#undef STREAMCHECK_TEST_OF_FINDING

std::string AccessQuery(const char* table, int version) {
  std::string columns =
      "role, op, api, framework_op, stream, stream_handle, stream_flags, on_host, device, thread, mode, "
      "address, size, trace_index, timestamp_ns, stack_id";
  if (version >= kNamesSchema)
    columns += ", stream_kind, stream_ordinal, stream_created_by, stream_created_stack_id, stream_first_op, "
               "stream_first_stack_id, event, event_ordinal, event_created_by, event_created_stack_id";
  if (version >= kScopesSchema) columns += ", scope";
  return std::string("SELECT ") + columns + " FROM " + table + " WHERE finding_id = ? ORDER BY ordinal";
}

// The rows of one finding from an AccessQuery statement.
bool ReadAccesses(Statement& rows, Statement& frames, int64_t finding, int version, std::vector<FindingAccess>* out) {
  rows.Reset();
  rows.Bind(1, finding);
  while (rows.Step()) {
    FindingAccess a;
    a.role = rows.Text(0);
    a.op = rows.Text(1);
    a.api = rows.Text(2);
    a.framework_op = rows.Text(3);
    a.stream = rows.Text(4);
    a.stream_handle = static_cast<Handle>(rows.Int(5));
    a.stream_flags = static_cast<uint32_t>(rows.Int(6));
    a.on_host = rows.Int(7) != 0;
    a.device = static_cast<DeviceId>(rows.Int(8));
    a.thread = static_cast<ThreadId>(rows.Int(9));
    AccessModeFromName(rows.Text(10), &a.mode);
    a.address = static_cast<Address>(rows.Int(11));
    a.size = static_cast<uint64_t>(rows.Int(12));
    a.trace_index = static_cast<uint64_t>(rows.Int(13));
    a.timestamp_ns = static_cast<uint64_t>(rows.Int(14));
    const int64_t stack = rows.Int(15);
    int64_t created = 0, first = 0, event_created = 0;
    if (version >= kNamesSchema) {
      a.stream_kind = rows.Text(16);
      a.stream_origin.ordinal = static_cast<uint32_t>(rows.Int(17));
      a.stream_origin.created_by = rows.Text(18);
      created = rows.Int(19);
      a.stream_origin.first_op = rows.Text(20);
      first = rows.Int(21);
      a.event = static_cast<Handle>(rows.Int(22));
      a.event_origin.ordinal = static_cast<uint32_t>(rows.Int(23));
      a.event_origin.created_by = rows.Text(24);
      event_created = rows.Int(25);
    }
    if (version >= kScopesSchema) a.scope = rows.Text(26);
    out->push_back(std::move(a));
    // Reading a stack resets the frames statement only: the rows stay where they are.
    FindingAccess& back = out->back();
    back.stack = ReadStack(frames, stack);
    back.stream_origin.created_at = ReadStack(frames, created);
    back.stream_origin.first_used_at = ReadStack(frames, first);
    back.event_origin.created_at = ReadStack(frames, event_created);
  }
  return rows.error().empty();
}

}  // namespace

bool ReadRuns(Store& store, std::vector<StoredRun>* runs, std::string* error) {
  Database& db = store.database();
  Statement q = db.Prepare(
      "SELECT id, mode, command, host, gpu, tool_version, start_time_ns, end_time_ns, "
      "exit_status FROM runs ORDER BY id");
  runs->clear();
  while (q.Step()) {
    StoredRun r;
    r.id = q.Int(0);
    r.info.mode = q.Text(1);
    r.info.command = q.Text(2);
    r.info.host = q.Text(3);
    r.info.gpu = q.Text(4);
    r.info.tool_version = q.Text(5);
    r.info.start_time_ns = q.Int(6);
    if (!q.IsNull(7)) r.end_time_ns = q.Int(7);
    if (!q.IsNull(8)) r.exit_status = static_cast<int>(q.Int(8));
    runs->push_back(std::move(r));
  }
  return q.ok() && q.error().empty() ? true : Failed(db, q, error);
}

bool ReadProcesses(Store& store, int64_t run, std::vector<StoredProcess>* processes,
                   std::string* error) {
  Database& db = store.database();
  Statement q = db.Prepare(
      "SELECT id, run_id, pid, command, host, rank FROM processes WHERE run_id = ? ORDER BY id");
  q.Bind(1, run);
  processes->clear();
  while (q.Step()) {
    StoredProcess p;
    p.id = q.Int(0);
    p.run_id = q.Int(1);
    p.info.pid = q.Int(2);
    p.info.command = q.Text(3);
    p.info.host = q.Text(4);
    p.info.rank = static_cast<int32_t>(q.Int(5));
    processes->push_back(std::move(p));
  }
  return q.ok() && q.error().empty() ? true : Failed(db, q, error);
}

bool ReadFindings(Store& store, const FindingQuery& query, std::vector<StoredFinding>* findings,
                  std::string* error) {
  findings->clear();
  return ForEachFinding(
      store, query,
      [&](StoredFinding& f) {
        findings->push_back(std::move(f));
        return true;
      },
      error);
}

bool ForEachFinding(Store& store, const FindingQuery& query,
                    const std::function<bool(StoredFinding&)>& visit, std::string* error) {
  Database& db = store.database();
  const int version = static_cast<int>(db.QueryInt("PRAGMA user_version").value_or(0));
  const bool names = version >= kNamesSchema;
  // A rank's finding sorts at its group's first member: the same (run,
  // fingerprint) from processes with a rank. Only where the selected runs
  // have ranks: otherwise the primary key's order, with no sort.
  bool group_ranks = false;
  if (query.ranks_together) {
    Statement ranked =
        db.Prepare("SELECT 1 FROM processes WHERE rank >= 0 AND (?1 IS NULL OR run_id = ?1) LIMIT 1");
    if (query.run) ranked.Bind(1, *query.run); else ranked.BindNull(1);
    group_ranks = ranked.Step();
    if (!ranked.ok() || !ranked.error().empty()) return Failed(db, ranked, error);
  }
  Statement q = db.Prepare(std::string(
      "SELECT f.id, f.run_id, f.process_id, f.local_id, f.origin, f.rule, f.kind, f.severity, "
      "f.confidence, f.message, f.reason, f.fix, f.count, f.fingerprint, "
      "a.address, a.size, a.memory_kind, a.known, a.allocated_by, a.stack_id, p.rank, p.host, ") +
      (names ? "f.order_gap, f.uncertainty, f.aware_thread " : "'', '', 0 ") +
      "FROM findings f LEFT JOIN allocations a ON a.id = f.allocation_id "
      "LEFT JOIN processes p ON p.id = f.process_id "
      "WHERE (?1 IS NULL OR f.run_id = ?1) AND (?2 = '' OR f.rule = ?2) ORDER BY " +
      (query.by_test && version >= kScopesSchema ? kTestOrder : "") +
      (group_ranks ? "CASE WHEN p.rank >= 0 THEN (SELECT min(g.id) FROM findings g "
                     "JOIN processes gp ON gp.id = g.process_id WHERE g.run_id = f.run_id AND "
                     "g.fingerprint = f.fingerprint AND gp.rank >= 0) ELSE f.id END, f.id"
                   : "f.id"));
  if (query.run) q.Bind(1, *query.run); else q.BindNull(1);
  q.Bind(2, query.rule);
  Statement accesses = db.Prepare(AccessQuery("accesses", version));
  Statement syncs = names ? db.Prepare(AccessQuery("syncs", version)) : Statement();
  Statement frames = db.Prepare(std::string("SELECT function, file, line, \"column\", pc, ") +
                                (names ? "module, module_offset" : "'', 0") +
                                " FROM frames WHERE stack_id = ? ORDER BY depth");
  if (!accesses.ok() || !frames.ok() || (names && !syncs.ok())) return Failed(db, q, error);
  while (q.Step()) {
    StoredFinding s;
    s.id = q.Int(0);
    s.run_id = q.Int(1);
    s.process_id = q.IsNull(2) ? 0 : q.Int(2);
    s.local_id = static_cast<uint64_t>(q.Int(3));
    Finding& f = s.finding;
    f.origin = OriginFromName(q.Text(4));
    f.rule = q.Text(5);
    f.kind = FindingKindFromName(q.Text(6), FindingKind::kReadAfterWrite);
    s.severity = q.Text(7);
    f.confidence = ConfidenceFromName(q.Text(8), Confidence::kPossible);
    f.message = q.Text(9);
    f.reason = q.Text(10);
    f.fix = q.Text(11);
    f.count = static_cast<uint64_t>(q.Int(12));
    f.fingerprint = q.Text(13);
    f.buffer.address = static_cast<Address>(q.Int(14));
    f.buffer.size = static_cast<uint64_t>(q.Int(15));
    MemoryKindFromName(q.Text(16), &f.buffer.memory_kind);
    f.buffer.known_allocation = q.Int(17) != 0;
    f.buffer.allocated_by = q.Text(18);
    f.buffer.allocation_stack = ReadStack(frames, q.Int(19));
    if (!q.IsNull(20) && q.Int(20) >= 0) s.ranks.push_back(static_cast<int32_t>(q.Int(20)));
    if (!q.IsNull(21)) s.host = q.Text(21);
    f.order_gap = q.Text(22);
    const std::string codes = q.Text(23);
    for (size_t begin = 0, end; begin < codes.size(); begin = end + 1) {
      end = std::min(codes.find(',', begin), codes.size());
      if (end > begin) f.uncertainty.push_back(codes.substr(begin, end - begin));
    }
    f.aware_thread = static_cast<ThreadId>(q.Int(24));
    // A warning of a rule whose severity is error was held to it
    // (Finding::at_most_warning): merging the finding must keep it so.
    if (const rules::Rule* rule = rules::Find(f.rule))
      f.at_most_warning = rule->severity == rules::Severity::kError && s.severity == "warning";

    if (!ReadAccesses(accesses, frames, s.id, version, &f.accesses)) return Failed(db, accesses, error);
    if (names && !ReadAccesses(syncs, frames, s.id, version, &f.syncs)) return Failed(db, syncs, error);
    if (!visit(s)) return true;
  }
  return q.ok() && q.error().empty() ? true : Failed(db, q, error);
}

bool ReadCounters(Store& store, int64_t run,
                  std::map<std::string, std::map<std::string, uint64_t>>* counters,
                  std::string* error) {
  Database& db = store.database();
  counters->clear();
  // Schema 1 (read-only open of an old file) has no counters.
  if (db.QueryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'counters'").value_or(0) == 0)
    return true;
  Statement q = db.Prepare(
      "SELECT category, name, sum(value) FROM counters WHERE run_id = ? GROUP BY category, name");
  q.Bind(1, run);
  while (q.Step()) (*counters)[q.Text(0)][q.Text(1)] = static_cast<uint64_t>(q.Int(2));
  return q.ok() && q.error().empty() ? true : Failed(db, q, error);
}

bool ReadSourceRoots(Store& store, const std::vector<int64_t>& runs, std::set<std::string>* roots,
                     std::string* error) {
  Database& db = store.database();
  roots->clear();
  if (db.QueryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'source_roots'").value_or(0) == 0) return true;
  Statement q = db.Prepare("SELECT run_id, path FROM source_roots");
  const std::set<int64_t> wanted(runs.begin(), runs.end());
  while (q.Step())
    if (wanted.empty() || wanted.count(q.Int(0))) roots->insert(q.Text(1));
  return q.ok() && q.error().empty() ? true : Failed(db, q, error);
}

bool ReadFingerprints(Store& store, std::set<std::string>* fingerprints, std::string* error) {
  Database& db = store.database();
  Statement q = db.Prepare("SELECT DISTINCT fingerprint FROM findings");
  fingerprints->clear();
  while (q.Step()) fingerprints->insert(q.Text(0));
  return q.ok() && q.error().empty() ? true : Failed(db, q, error);
}

}  // namespace streamcheck::store

namespace streamcheck::store {

FingerprintLookup::FingerprintLookup(Store& store)
    : store_(store),
      query_(std::make_unique<Statement>(
          store.database().Prepare("SELECT 1 FROM findings WHERE fingerprint = ? LIMIT 1"))) {}

FingerprintLookup::~FingerprintLookup() = default;

std::optional<bool> FingerprintLookup::Contains(const std::string& fingerprint) {
  if (!query_->ok()) {
    error_ = store_.path() + ": cannot read: " + store_.database().error();
    return std::nullopt;
  }
  query_->Reset();
  query_->Bind(1, fingerprint);
  if (query_->Step()) return true;
  if (!query_->error().empty()) {
    error_ = store_.path() + ": cannot read: " + query_->error();
    return std::nullopt;
  }
  return false;
}

}  // namespace streamcheck::store
