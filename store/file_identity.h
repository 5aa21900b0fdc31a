// Which file a path names, by device and inode rather than by spelling: an
// output must never be one of the inputs, however the two were written. A
// database is more than its file: SQLite keeps commits in DB-wal, locks in
// DB-shm and a rollback journal in DB-journal beside it, and writing any of
// those loses what the database holds.
#pragma once

#include <string>

namespace streamcheck::store {

// Whether two paths name the same file. False when either does not exist.
bool SameFile(const std::string& a, const std::string& b);

// SQLite's files beside a database, by the suffix of their name.
inline constexpr const char* kDatabaseSideSuffixes[] = {"-wal", "-shm", "-journal"};

// Whether writing `path` would write the database `db` or one of its side
// files: an existing file by device and inode (any name, link or symlink),
// one not made yet by its folder's identity and its name (SQLite puts the
// side files beside the database's real path, symlinks resolved).
bool IsDatabaseFile(const std::string& db, const std::string& path);

}  // namespace streamcheck::store
