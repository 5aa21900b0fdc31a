#include "store/migrations.h"

#include <fmt/format.h>

#include <optional>
#include <utility>
#include <string_view>

#include "store/database.h"

namespace streamcheck::store {
namespace {

// Index i holds the SQL that moves version i to version i+1. Append only:
// released databases exist at every version.
constexpr std::string_view kMigrations[] = {
    // 0 -> 1: runs, processes, findings with their accesses, stacks, allocations.
    R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  mode TEXT NOT NULL,
  command TEXT NOT NULL,
  host TEXT NOT NULL,
  gpu TEXT NOT NULL,
  tool_version TEXT NOT NULL,
  start_time_ns INTEGER NOT NULL,
  end_time_ns INTEGER,
  exit_status INTEGER);
CREATE TABLE processes(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  pid INTEGER NOT NULL,
  command TEXT NOT NULL,
  host TEXT NOT NULL,
  rank INTEGER NOT NULL);
CREATE TABLE stacks(id INTEGER PRIMARY KEY);
CREATE TABLE frames(
  stack_id INTEGER NOT NULL REFERENCES stacks(id),
  depth INTEGER NOT NULL,
  function TEXT NOT NULL,
  file TEXT NOT NULL,
  line INTEGER NOT NULL,
  "column" INTEGER NOT NULL,
  pc INTEGER NOT NULL,
  PRIMARY KEY(stack_id, depth));
CREATE TABLE allocations(
  id INTEGER PRIMARY KEY,
  address INTEGER NOT NULL,
  size INTEGER NOT NULL,
  memory_kind TEXT NOT NULL,
  known INTEGER NOT NULL,
  allocated_by TEXT NOT NULL,
  stack_id INTEGER REFERENCES stacks(id));
CREATE TABLE findings(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id),
  process_id INTEGER REFERENCES processes(id),
  local_id INTEGER NOT NULL,
  origin TEXT NOT NULL,
  rule TEXT NOT NULL,
  kind TEXT NOT NULL,
  severity TEXT NOT NULL,
  confidence TEXT NOT NULL,
  message TEXT NOT NULL,
  reason TEXT NOT NULL,
  fix TEXT NOT NULL,
  allocation_id INTEGER REFERENCES allocations(id),
  count INTEGER NOT NULL,
  fingerprint TEXT NOT NULL,
  UNIQUE(run_id, process_id, local_id));
CREATE INDEX findings_by_fingerprint ON findings(fingerprint);
CREATE TABLE accesses(
  finding_id INTEGER NOT NULL REFERENCES findings(id),
  ordinal INTEGER NOT NULL,
  role TEXT NOT NULL,
  op TEXT NOT NULL,
  api TEXT NOT NULL,
  framework_op TEXT NOT NULL,
  stream TEXT NOT NULL,
  stream_handle INTEGER NOT NULL,
  stream_flags INTEGER NOT NULL,
  on_host INTEGER NOT NULL,
  device INTEGER NOT NULL,
  thread INTEGER NOT NULL,
  mode TEXT NOT NULL,
  address INTEGER NOT NULL,
  size INTEGER NOT NULL,
  trace_index INTEGER NOT NULL,
  timestamp_ns INTEGER NOT NULL,
  stack_id INTEGER REFERENCES stacks(id),
  PRIMARY KEY(finding_id, ordinal));
-- A lint finding's access has one frame: its source location.
CREATE VIEW lint_locations AS
  SELECT f.id AS finding_id, a.ordinal, fr.file, fr.line, fr."column"
  FROM findings f JOIN accesses a ON a.finding_id = f.id
  JOIN frames fr ON fr.stack_id = a.stack_id AND fr.depth = 0
  WHERE f.origin = 'static';
)sql",
    // 1 -> 2: counters that say how complete a run's analysis was.
    R"sql(
CREATE TABLE counters(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  process_id INTEGER NOT NULL,
  category TEXT NOT NULL,
  name TEXT NOT NULL,
  value INTEGER NOT NULL,
  PRIMARY KEY(run_id, process_id, category, name));
)sql",
    // 2 -> 3: the folders whose files an HTML report of the run may quote.
    R"sql(
CREATE TABLE source_roots(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  path TEXT NOT NULL,
  PRIMARY KEY(run_id, path));
)sql",
    // 3 -> 4: what reports name streams, events and frames by (issue 26): where
    // each stream and event came from, why no edge orders a race and why it
    // may be only possible, the synchronization that did happen, and a
    // frame's module and offset.
    R"sql(
ALTER TABLE frames ADD COLUMN module TEXT NOT NULL DEFAULT '';
ALTER TABLE frames ADD COLUMN module_offset INTEGER NOT NULL DEFAULT 0;
ALTER TABLE findings ADD COLUMN order_gap TEXT NOT NULL DEFAULT '';
ALTER TABLE findings ADD COLUMN uncertainty TEXT NOT NULL DEFAULT '';
ALTER TABLE findings ADD COLUMN aware_thread INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accesses ADD COLUMN stream_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE accesses ADD COLUMN stream_ordinal INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accesses ADD COLUMN stream_created_by TEXT NOT NULL DEFAULT '';
ALTER TABLE accesses ADD COLUMN stream_created_stack_id INTEGER REFERENCES stacks(id);
ALTER TABLE accesses ADD COLUMN stream_first_op TEXT NOT NULL DEFAULT '';
ALTER TABLE accesses ADD COLUMN stream_first_stack_id INTEGER REFERENCES stacks(id);
ALTER TABLE accesses ADD COLUMN event INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accesses ADD COLUMN event_ordinal INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accesses ADD COLUMN event_created_by TEXT NOT NULL DEFAULT '';
ALTER TABLE accesses ADD COLUMN event_created_stack_id INTEGER REFERENCES stacks(id);
-- The synchronization between a race's two accesses (Finding::syncs): the
-- columns of accesses, kept apart so queries over accesses see only the
-- accesses themselves.
CREATE TABLE syncs(
  finding_id INTEGER NOT NULL REFERENCES findings(id),
  ordinal INTEGER NOT NULL,
  role TEXT NOT NULL,
  op TEXT NOT NULL,
  api TEXT NOT NULL,
  framework_op TEXT NOT NULL,
  stream TEXT NOT NULL,
  stream_handle INTEGER NOT NULL,
  stream_flags INTEGER NOT NULL,
  on_host INTEGER NOT NULL,
  device INTEGER NOT NULL,
  thread INTEGER NOT NULL,
  mode TEXT NOT NULL,
  address INTEGER NOT NULL,
  size INTEGER NOT NULL,
  trace_index INTEGER NOT NULL,
  timestamp_ns INTEGER NOT NULL,
  stack_id INTEGER REFERENCES stacks(id),
  stream_kind TEXT NOT NULL DEFAULT '',
  stream_ordinal INTEGER NOT NULL DEFAULT 0,
  stream_created_by TEXT NOT NULL DEFAULT '',
  stream_created_stack_id INTEGER REFERENCES stacks(id),
  stream_first_op TEXT NOT NULL DEFAULT '',
  stream_first_stack_id INTEGER REFERENCES stacks(id),
  event INTEGER NOT NULL DEFAULT 0,
  event_ordinal INTEGER NOT NULL DEFAULT 0,
  event_created_by TEXT NOT NULL DEFAULT '',
  event_created_stack_id INTEGER REFERENCES stacks(id),
  PRIMARY KEY(finding_id, ordinal));
)sql",
    // 4 -> 5: the scope (test) each access was made in (issue 42,
    // docs/SCOPES.md); '' outside every scope, and in rows of older stores.
    R"sql(
ALTER TABLE accesses ADD COLUMN scope TEXT NOT NULL DEFAULT '';
ALTER TABLE syncs ADD COLUMN scope TEXT NOT NULL DEFAULT '';
)sql",
};
static_assert(std::size(kMigrations) == kSchemaVersion);

}  // namespace

std::string MissingTable(Database& db, int version) {
  // The tables each version adds, in migration order.
  static constexpr std::pair<int, std::string_view> kTables[] = {
      {1, "runs"},     {1, "processes"}, {1, "findings"}, {1, "accesses"},     {1, "allocations"},
      {1, "stacks"},   {1, "frames"},    {2, "counters"}, {3, "source_roots"}, {4, "syncs"},
  };
  static_assert(kSchemaVersion == 5, "list the new version's tables above");
  for (const auto& [since, table] : kTables) {
    if (since > version) continue;
    Statement q = db.Prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?");
    q.Bind(1, table);
    if (!q.Step() || q.Int(0) == 0) return std::string(table);
  }
  return {};
}

int SchemaVersionOf(Database& db, std::string* error) {
  std::optional<int64_t> version = db.QueryInt("PRAGMA user_version");
  if (!version) {
    *error = fmt::format("{}: not a readable streamcheck database: {}", db.path(), db.error());
    return -1;
  }
  return static_cast<int>(*version);
}

int CompatibleSchemaVersion(Database& db, std::string* error) {
  // One statement, so one snapshot: another process may be making the
  // schema meanwhile (its tables, application id and version come in one
  // commit). The callers take the version from here, not from another read.
  Statement facts = db.Prepare(
      "SELECT a.application_id, v.user_version, (SELECT count(*) FROM sqlite_schema) "
      "FROM pragma_application_id() AS a, pragma_user_version() AS v");
  if (!facts.Step()) {
    *error = fmt::format("{}: not a readable streamcheck database: {}", db.path(), facts.error() + db.error());
    return -1;
  }
  const int64_t app = facts.Int(0), version = facts.Int(1), tables = facts.Int(2);
  if (version > kSchemaVersion) {
    *error = fmt::format(
        "{}: written by a newer streamcheck (schema version {}; this build reads up to {}); "
        "upgrade streamcheck — the file was not changed",
        db.path(), version, kSchemaVersion);
    return -1;
  }
  // A negative version is no streamcheck's (and -1 would read as a failure).
  if (version < 0 || (app != kApplicationId && !(app == 0 && tables == 0))) {
    *error = fmt::format("{}: an SQLite database of another application, not a streamcheck "
                         "database; it was not changed",
                         db.path());
    return -1;
  }
  return static_cast<int>(version);
}

bool Migrate(Database& db, std::string* error, int target) {
  // A database at the version wanted needs nothing, and so no write lock:
  // a traced program opening it while another process writes must not be
  // turned away for a lock it does not need (its findings would be lost).
  if (CompatibleSchemaVersion(db, error) == target) return true;
  error->clear();
  for (;;) {
    // Read under the write lock: processes started together on a new file
    // (a test suite's parallel runs) all found version 0 before one of them
    // migrated it; the others must not migrate it again.
    Transaction tx(db);
    if (!tx.ok()) {
      // Usually another process writing: say so, not "cannot migrate".
      if (db.error().find("locked") != std::string::npos || db.error().find("busy") != std::string::npos)
        *error = fmt::format("{}: the database is locked by another process (another streamcheck writing?); "
                             "nothing was written: retry when it finishes, or wait longer with --busy-timeout",
                             db.path());
      else
        *error = fmt::format("{}: cannot write: {}", db.path(), db.error());
      return false;
    }
    const int version = CompatibleSchemaVersion(db, error);
    if (version < 0) return false;
    if (version >= target) return true;
    bool ok = db.Exec(kMigrations[version]) &&
              db.Exec(fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {}",
                                  kApplicationId, version + 1)) &&
              tx.Commit();
    if (!ok) {
      *error = fmt::format("{}: cannot migrate schema {} to {}: {}", db.path(), version,
                           version + 1, db.error());
      return false;
    }
  }
}

}  // namespace streamcheck::store
