#include "store/store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <utility>

#include "store/database.h"
#include "store/enum_names.h"
#include "store/migrations.h"

namespace streamcheck::store {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// SQLite integers are signed; addresses and counts keep their bits.
int64_t AsSql(uint64_t v) { return static_cast<int64_t>(v); }

bool IsLockMessage(const std::string& sqlite_message) {
  return sqlite_message.find("locked") != std::string::npos || sqlite_message.find("busy") != std::string::npos;
}

std::string Explain(const std::string& path, const std::string& sqlite_message) {
  if (IsLockMessage(sqlite_message))
    return fmt::format("{}: the database was locked by another process (another streamcheck writing?) for "
                       "longer than the busy timeout (--busy-timeout)",
                       path);
  return fmt::format("{}: {}", path, sqlite_message);
}

// WAL: readers (report) never block the writer (a running program). A new
// file is switched to it under an exclusive lock, and where processes open it
// together SQLite answers one that holds a read lock while another waits to
// write "busy" at once, without calling the busy handler (the two would
// deadlock): retried here for as long as the busy timeout allows.
bool UseWriteAheadLog(Database& db, int timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    if (db.Exec("PRAGMA journal_mode=WAL")) return true;
    const int code = sqlite3_errcode(db.handle()) & 0xff;
    if ((code != SQLITE_BUSY && code != SQLITE_LOCKED) || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Whether `path` lies where a reader cannot create SQLite's -shm file (a
// read-only folder or mount).
bool OnReadOnlyFolder(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  if (::access(dir.c_str(), W_OK) != 0 || ::access(path.c_str(), W_OK) != 0) return true;
  struct statvfs fs {};
  return ::statvfs(dir.c_str(), &fs) == 0 && (fs.f_flag & ST_RDONLY) != 0;
}

std::string ReadOnlyMessage(const std::string& path) {
  return fmt::format("{}: cannot write: the file is read-only (its permissions, its folder's or its mount's); "
                     "it was not changed",
                     path);
}

// A write-ahead log with commits not yet copied into the main file.
bool HasUnfinishedLog(const std::string& path) {
  struct stat wal {};
  return ::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0;
}

// Returns the new stack's id, or 0 for an empty stack (stored as NULL).
int64_t InsertStack(Database& db, const std::vector<ResolvedFrame>& frames, bool* ok) {
  if (frames.empty()) return 0;
  if (!db.Exec("INSERT INTO stacks DEFAULT VALUES")) return *ok = false, 0;
  int64_t stack = db.LastInsertId();
  Statement insert = db.Prepare(
      "INSERT INTO frames(stack_id, depth, function, file, line, \"column\", pc, module, module_offset) "
      "VALUES(?,?,?,?,?,?,?,?,?)");
  for (size_t depth = 0; depth < frames.size(); ++depth) {
    const ResolvedFrame& f = frames[depth];
    insert.Reset();
    insert.Bind(1, stack).Bind(2, static_cast<int64_t>(depth)).Bind(3, f.function).Bind(4, f.file);
    insert.Bind(5, static_cast<int64_t>(f.line)).Bind(6, static_cast<int64_t>(f.column));
    insert.Bind(7, AsSql(f.pc)).Bind(8, f.module).Bind(9, AsSql(f.module_offset));
    if (!insert.Run()) return *ok = false, 0;
  }
  return stack;
}

// The rows of `table` (accesses or syncs, which have the same columns) for
// one finding; `insert` keeps the statement, and its error.
void InsertAccesses(Database& db, const char* table, int64_t finding_id,
                                const std::vector<FindingAccess>& list, Statement* insert, bool* ok) {
  *insert = db.Prepare(fmt::format(
      "INSERT INTO {}(finding_id, ordinal, role, op, api, framework_op, stream, stream_handle, stream_flags, "
      "on_host, device, thread, mode, address, size, trace_index, timestamp_ns, stack_id, stream_kind, "
      "stream_ordinal, stream_created_by, stream_created_stack_id, stream_first_op, stream_first_stack_id, event, "
      "event_ordinal, event_created_by, event_created_stack_id, scope) "
      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
      table));
  Statement& access = *insert;
  for (size_t i = 0; *ok && i < list.size(); ++i) {
    const FindingAccess& a = list[i];
    const int64_t stack = InsertStack(db, a.stack, ok);
    const int64_t created = InsertStack(db, a.stream_origin.created_at, ok);
    const int64_t first = InsertStack(db, a.stream_origin.first_used_at, ok);
    const int64_t event_created = InsertStack(db, a.event_origin.created_at, ok);
    access.Reset();
    access.Bind(1, finding_id).Bind(2, static_cast<int64_t>(i)).Bind(3, a.role).Bind(4, a.op);
    access.Bind(5, a.api).Bind(6, a.framework_op).Bind(7, a.stream);
    access.Bind(8, AsSql(a.stream_handle)).Bind(9, int64_t{a.stream_flags});
    access.Bind(10, int64_t{a.on_host}).Bind(11, int64_t{a.device}).Bind(12, int64_t{a.thread});
    access.Bind(13, AccessModeName(a.mode)).Bind(14, AsSql(a.address)).Bind(15, AsSql(a.size));
    access.Bind(16, AsSql(a.trace_index)).Bind(17, AsSql(a.timestamp_ns));
    access.BindIdOrNull(18, stack).Bind(19, a.stream_kind).Bind(20, int64_t{a.stream_origin.ordinal});
    access.Bind(21, a.stream_origin.created_by).BindIdOrNull(22, created).Bind(23, a.stream_origin.first_op);
    access.BindIdOrNull(24, first).Bind(25, AsSql(a.event)).Bind(26, int64_t{a.event_origin.ordinal});
    access.Bind(27, a.event_origin.created_by).BindIdOrNull(28, event_created).Bind(29, a.scope);
    *ok = *ok && access.Run();
  }
}

}  // namespace

Store::Store(std::string path, std::unique_ptr<Database> db)
    : path_(std::move(path)), db_(std::move(db)) {}

Store::~Store() = default;

std::unique_ptr<Store> Store::OpenExisting(const std::string& path, std::string* error) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    *error = path + ": no such file";
    return nullptr;
  }
  if (!S_ISREG(info.st_mode)) {
    *error = path + ": not a regular file";
    return nullptr;
  }
  OpenOptions options;
  options.read_only = true;
  options.create_if_missing = false;
  options.check_integrity = true;
  return Open(path, error, options);
}

std::unique_ptr<Store> Store::Open(const std::string& path, std::string* error,
                                   const OpenOptions& options) {
  std::string local_error;
  if (!error) error = &local_error;
  auto db = std::make_unique<Database>(path, options.read_only,
                                       options.create_if_missing, error);
  if (!db->ok()) return nullptr;
  db->SetBusyTimeout(options.busy_timeout_ms);

  int version = CompatibleSchemaVersion(*db, error);
  if (version < 0 && options.read_only && OnReadOnlyFolder(path) && HasUnfinishedLog(path)) {
    *error = fmt::format("{}: cannot be read here: its write-ahead log ({}-wal) holds commits, and SQLite needs "
                         "a -shm file beside it to read them, which it cannot create in this read-only folder; "
                         "copy the database with its -wal file to a writable folder",
                         path, path);
    return nullptr;
  }
  if (version < 0 && options.read_only && OnReadOnlyFolder(path)) {
    // A WAL database on a read-only folder or mount: SQLite cannot make the
    // -shm file it reads through. Nothing can write there and no log is left
    // to apply, so the main file is read as immutable.
    std::string retry_error;
    auto immutable = std::make_unique<Database>(path, true, false, &retry_error, true);
    if (immutable->ok()) {
      const int retried = CompatibleSchemaVersion(*immutable, &retry_error);
      if (retried >= 0) {
        db = std::move(immutable);
        version = retried;
        error->clear();
      }
    }
  }
  if (version < 0 && !options.read_only && OnReadOnlyFolder(path)) {
    *error = ReadOnlyMessage(path);
    return nullptr;
  }
  if (version < 0) return nullptr;
  if (options.read_only && version == 0) {
    *error = fmt::format("{}: empty, not a streamcheck database", path);
    return nullptr;
  }
  if (options.check_integrity && version > 0) {
    Statement check = db->Prepare("PRAGMA quick_check");
    std::string verdict = check.Step() ? check.Text(0) : check.error() + db->error();
    if (verdict != "ok") {
      *error = fmt::format("{}: the database is corrupt ({}); it was not changed", path, verdict);
      return nullptr;
    }
  }
  if (version > 0) {
    if (const std::string missing = MissingTable(*db, version); !missing.empty()) {
      *error = fmt::format("{}: the database is damaged: its table '{}' is missing; it was not changed", path,
                           missing);
      return nullptr;
    }
  }
  // SQLite opens a file it may not write read-only without a word, and
  // its writes then fail one by one: say so once, before anything is written.
  if (!options.read_only && sqlite3_db_readonly(db->handle(), "main") == 1) {
    *error = ReadOnlyMessage(path);
    return nullptr;
  }
  // Read-only opens accept older schemas: the readers touch only tables that
  // every version has, or check first (counters).
  if (!options.read_only) {
    if (!UseWriteAheadLog(*db, options.busy_timeout_ms) || !Migrate(*db, error)) {
      if (error->empty()) *error = Explain(path, db->error());
      return nullptr;
    }
    db->Exec("PRAGMA foreign_keys=ON");
  }
  std::unique_ptr<Store> store(new Store(path, std::move(db)));
  store->busy_timeout_ms_ = options.busy_timeout_ms;
  return store;
}

bool Store::InOneTransaction(const std::function<bool()>& writes) {
  Transaction tx(*db_);
  if (!tx.ok()) return Fail(db_->error());
  if (!writes()) return false;
  if (!tx.Commit()) return Fail(db_->error());
  return true;
}

bool Store::Fail(std::string message) {
  locked_out_ = IsLockMessage(message);
  last_error_ = Explain(path_, message);
  ++failed_writes_;
  return false;
}

int64_t Store::BeginRun(const RunInfo& run) {
  Statement insert = db_->Prepare(
      "INSERT INTO runs(mode, command, host, gpu, tool_version, start_time_ns) "
      "VALUES(?,?,?,?,?,?)");
  insert.Bind(1, run.mode).Bind(2, run.command).Bind(3, run.host).Bind(4, run.gpu);
  insert.Bind(5, run.tool_version).Bind(6, run.start_time_ns ? run.start_time_ns : NowNs());
  if (!insert.Run()) return Fail(insert.error() + db_->error()), -1;
  return db_->LastInsertId();
}

bool Store::EndRun(int64_t run, int exit_status) {
  Statement update = db_->Prepare("UPDATE runs SET end_time_ns = ?, exit_status = ? WHERE id = ?");
  update.Bind(1, NowNs()).Bind(2, static_cast<int64_t>(exit_status)).Bind(3, run);
  if (!update.Run()) return Fail(update.error() + db_->error());
  return true;
}

int64_t Store::AddProcess(int64_t run, const ProcessInfo& process) {
  Statement insert = db_->Prepare(
      "INSERT INTO processes(run_id, pid, command, host, rank) VALUES(?,?,?,?,?)");
  insert.Bind(1, run).Bind(2, process.pid).Bind(3, process.command).Bind(4, process.host);
  insert.Bind(5, static_cast<int64_t>(process.rank));
  if (!insert.Run()) return Fail(insert.error() + db_->error()), -1;
  return db_->LastInsertId();
}

bool Store::AddCounters(int64_t run, int64_t process, std::string_view category,
                        const std::map<std::string, uint64_t>& counts) {
  Transaction tx(*db_);
  if (!tx.ok()) return Fail(db_->error());
  Statement upsert = db_->Prepare(
      "INSERT INTO counters(run_id, process_id, category, name, value) VALUES(?,?,?,?,?) "
      "ON CONFLICT(run_id, process_id, category, name) DO UPDATE SET value = value + excluded.value");
  for (const auto& [name, value] : counts) {
    upsert.Reset();
    upsert.Bind(1, run).Bind(2, process).Bind(3, category).Bind(4, name).Bind(5, AsSql(value));
    if (!upsert.Run()) return Fail(upsert.error());
  }
  if (!tx.Commit()) return Fail(db_->error());
  return true;
}

bool Store::AddSourceRoots(int64_t run, const std::set<std::string>& paths) {
  if (paths.empty()) return true;
  Transaction tx(*db_);
  if (!tx.ok()) return Fail(db_->error());
  Statement insert = db_->Prepare("INSERT OR IGNORE INTO source_roots(run_id, path) VALUES(?,?)");
  for (const std::string& path : paths) {
    insert.Reset();
    insert.Bind(1, run).Bind(2, path);
    if (!insert.Run()) return Fail(insert.error());
  }
  if (!tx.Commit()) return Fail(db_->error());
  return true;
}

int64_t Store::AddFinding(int64_t run, int64_t process, uint64_t local_id, const Finding& f) {
  Transaction tx(*db_);
  if (!tx.ok()) return Fail(db_->error()), -1;
  bool ok = true;

  const FindingBuffer& buffer = f.buffer;
  int64_t alloc_stack = InsertStack(*db_, buffer.allocation_stack, &ok);
  Statement alloc = db_->Prepare(
      "INSERT INTO allocations(address, size, memory_kind, known, allocated_by, stack_id) "
      "VALUES(?,?,?,?,?,?)");
  alloc.Bind(1, AsSql(buffer.address)).Bind(2, AsSql(buffer.size));
  alloc.Bind(3, MemoryKindName(buffer.memory_kind)).Bind(4, int64_t{buffer.known_allocation});
  alloc.Bind(5, buffer.allocated_by).BindIdOrNull(6, alloc_stack);
  ok = ok && alloc.Run();
  int64_t allocation = db_->LastInsertId();

  const std::string_view severity = SeverityOf(f);
  Statement finding = db_->Prepare(
      "INSERT INTO findings(run_id, process_id, local_id, origin, rule, kind, severity, "
      "confidence, message, reason, fix, allocation_id, count, fingerprint, order_gap, uncertainty, aware_thread) "
      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  finding.Bind(1, run).BindIdOrNull(2, process).Bind(3, AsSql(local_id));
  finding.Bind(4, OriginName(f.origin)).Bind(5, f.rule).Bind(6, FindingKindName(f.kind));
  finding.Bind(7, severity).Bind(8, ConfidenceName(f.confidence)).Bind(9, f.message);
  finding.Bind(10, f.reason).Bind(11, f.fix).Bind(12, allocation).Bind(13, AsSql(f.count));
  finding.Bind(14, f.fingerprint).Bind(15, f.order_gap).Bind(16, fmt::format("{}", fmt::join(f.uncertainty, ",")));
  finding.Bind(17, int64_t{f.aware_thread});
  ok = ok && finding.Run();
  int64_t finding_id = db_->LastInsertId();

  Statement accesses, syncs;
  if (ok) InsertAccesses(*db_, "accesses", finding_id, f.accesses, &accesses, &ok);
  if (ok) InsertAccesses(*db_, "syncs", finding_id, f.syncs, &syncs, &ok);
  if (!ok) {
    // The first statement that failed says why (the others did not run).
    for (const Statement* failed : {&alloc, &finding, &accesses, &syncs})
      if (!failed->error().empty()) return Fail(failed->error()), -1;
    return Fail(db_->error()), -1;
  }
  if (!tx.Commit()) return Fail(db_->error()), -1;
  return finding_id;
}

bool Store::SetFindingCount(int64_t run, int64_t process, uint64_t local_id, uint64_t count) {
  Statement update = db_->Prepare(
      "UPDATE findings SET count = ? WHERE run_id = ? AND process_id IS ? AND local_id = ?");
  update.Bind(1, AsSql(count)).Bind(2, run).BindIdOrNull(3, process).Bind(4, AsSql(local_id));
  if (!update.Run()) return Fail(update.error() + db_->error());
  return true;
}

const std::string& Store::path() const { return path_; }
const std::string& Store::last_error() const { return last_error_; }
Database& Store::database() { return *db_; }

}  // namespace streamcheck::store
