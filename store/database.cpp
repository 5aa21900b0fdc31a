#include "store/database.h"

#include <sqlite3.h>

#include <utility>

namespace streamcheck::store {

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)), error_(std::move(other.error_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
    error_ = std::move(other.error_);
  }
  return *this;
}

Statement& Statement::Bind(int index, int64_t value) {
  if (stmt_) sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Statement& Statement::Bind(int index, std::string_view value) {
  if (stmt_) sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::BindNull(int index) {
  if (stmt_) sqlite3_bind_null(stmt_, index);
  return *this;
}

Statement& Statement::BindIdOrNull(int index, int64_t id) {
  return id == 0 ? BindNull(index) : Bind(index, id);
}

bool Statement::Step() {
  if (!stmt_) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) error_ = sqlite3_errmsg(db_);
  return false;
}

bool Statement::Run() {
  if (!stmt_) return false;
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) {
    sqlite3_reset(stmt_);
    return true;
  }
  error_ = sqlite3_errmsg(db_);
  sqlite3_reset(stmt_);
  return false;
}

void Statement::Reset() {
  if (stmt_) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
}

int64_t Statement::Int(int column) const { return sqlite3_column_int64(stmt_, column); }

std::string Statement::Text(int column) const {
  // By its length: a name may hold a NUL byte, and bytes are kept as they are.
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (!text) return {};
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt_, column)));
}

bool Statement::IsNull(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

namespace {

// A file: URI for `path` (every byte but the unreserved ones percent-encoded).
std::string FileUri(const std::string& path, const char* query) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string uri = "file:";
  for (unsigned char c : path) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' || c == '.' ||
        c == '-' || c == '_') {
      uri.push_back(static_cast<char>(c));
    } else {
      uri += '%';
      uri += kHex[c >> 4];
      uri += kHex[c & 15];
    }
  }
  return uri + "?" + query;
}

}  // namespace

Database::Database(const std::string& path, bool read_only, bool create, std::string* error, bool immutable)
    : path_(path) {
  int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE;
  if (create && !read_only) flags |= SQLITE_OPEN_CREATE;
  sqlite3* db = nullptr;
  int rc = read_only ? sqlite3_open_v2(FileUri(path, immutable ? "immutable=1" : "mode=ro").c_str(), &db,
                                       flags | SQLITE_OPEN_URI, nullptr)
                     : sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    error_ = path + ": cannot open: " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    if (db) sqlite3_close(db);
    if (error) *error = error_;
    return;
  }
  db_ = db;
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() {
  if (db_) sqlite3_close_v2(db_);
}

bool Database::Exec(std::string_view sql) {
  std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return true;
  error_ = message ? message : sqlite3_errmsg(db_);
  sqlite3_free(message);
  return false;
}

Statement Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK) {
    error_ = sqlite3_errmsg(db_);
    return Statement();
  }
  return Statement(db_, stmt);
}

std::optional<int64_t> Database::QueryInt(std::string_view sql) {
  Statement stmt = Prepare(sql);
  if (!stmt.ok()) return std::nullopt;
  if (!stmt.Step()) {
    if (!stmt.error().empty()) error_ = stmt.error();
    return std::nullopt;
  }
  return stmt.Int(0);
}

int64_t Database::LastInsertId() const { return sqlite3_last_insert_rowid(db_); }

void Database::SetBusyTimeout(int ms) { sqlite3_busy_timeout(db_, ms); }

Transaction::Transaction(Database& db)
    : db_(db), nested_(sqlite3_get_autocommit(db.handle()) == 0) {
  began_ = db_.Exec(nested_ ? "SAVEPOINT nested" : "BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!began_ || done_) return;
  // SQLite may have rolled back already (a full disk, an I/O error): a second
  // ROLLBACK would only replace the real error with "no transaction is active".
  if (sqlite3_get_autocommit(db_.handle()) != 0) return;
  const std::string error = db_.error();
  db_.Exec(nested_ ? "ROLLBACK TO nested; RELEASE nested" : "ROLLBACK");
  db_.KeepError(error);
}

bool Transaction::Commit() {
  if (!began_ || done_) return false;
  done_ = db_.Exec(nested_ ? "RELEASE nested" : "COMMIT");
  return done_;
}

}  // namespace streamcheck::store
