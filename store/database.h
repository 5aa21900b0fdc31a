// A thin RAII layer over the SQLite C API: a connection, prepared statements
// and transactions. Errors carry SQLite's message and the file name, since
// they end up in front of users ("database is locked", "file is not a database").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace streamcheck::store {

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  // Parameters are numbered from 1, as in SQLite.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, std::string_view value);
  Statement& BindNull(int index);
  // Binds NULL for 0 (ids meaning "none").
  Statement& BindIdOrNull(int index, int64_t id);

  // Returns true while a row is available; false when done or on error (see error()).
  bool Step();
  // Runs a statement that returns no rows; true on success.
  bool Run();
  void Reset();

  int64_t Int(int column) const;
  std::string Text(int column) const;
  bool IsNull(int column) const;

  const std::string& error() const { return error_; }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  std::string error_;
};

class Database {
 public:
  // Opens without creating unless `create`. Returns nullopt-like empty
  // handle on failure; check ok() and error().
  // `immutable` (read-only only): SQLite's immutable URI mode, for a file on
  // a read-only folder or mount, where no -shm file can be made to read a WAL
  // database; safe there, because nothing can change it.
  Database(const std::string& path, bool read_only, bool create, std::string* error, bool immutable = false);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  bool ok() const { return db_ != nullptr; }
  // Runs one or more statements that return no rows.
  bool Exec(std::string_view sql);
  Statement Prepare(std::string_view sql);
  // The single integer a query returns, or nullopt (on error or no row).
  std::optional<int64_t> QueryInt(std::string_view sql);
  int64_t LastInsertId() const;
  void SetBusyTimeout(int ms);

  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }
  // Restores an earlier error message (a cleanup statement must not hide it).
  void KeepError(std::string error) { error_ = std::move(error); }
  sqlite3* handle() { return db_; }

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
  std::string error_;
};

// Rolls back unless Commit() succeeded. BEGIN IMMEDIATE takes the write lock
// up front, so a locked database fails here rather than halfway through.
// Inside another transaction it is a savepoint, so merge can wrap many
// single-finding writes into one all-or-nothing copy.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  bool ok() const { return began_; }
  bool Commit();

 private:
  Database& db_;
  bool nested_;
  bool began_ = false;
  bool done_ = false;
};

}  // namespace streamcheck::store
