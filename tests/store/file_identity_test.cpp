#include "store/file_identity.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/store/store_fixtures.h"

namespace streamcheck::store {
namespace {

using testing::ScratchDir;
using testing::WriteAll;

TEST(FileIdentity, ADatabaseIsItsFileAndSQLitesFilesBesideIt) {
  ScratchDir dir;
  const std::string db = dir.File("f.db");
  WriteAll(db, "x");
  WriteAll(db + "-wal", "log");
  EXPECT_TRUE(IsDatabaseFile(db, db));
  EXPECT_TRUE(IsDatabaseFile(db, db + "-wal"));
  EXPECT_TRUE(IsDatabaseFile(db, db + "-shm")) << "not made yet: by folder and name";
  EXPECT_TRUE(IsDatabaseFile(db, db + "-journal"));
  EXPECT_FALSE(IsDatabaseFile(db, db + "-other"));
  EXPECT_FALSE(IsDatabaseFile(db, dir.File("g.db")));
  // Other names of the same files: a symlink to the log, a hard link, a
  // spelling through "..", and side files of a database reached by a symlink
  // (SQLite keeps them beside the real file).
  std::filesystem::create_symlink(db + "-wal", dir.File("alias"));
  EXPECT_TRUE(IsDatabaseFile(db, dir.File("alias")));
  std::filesystem::create_hard_link(db + "-wal", dir.File("hard"));
  EXPECT_TRUE(IsDatabaseFile(db, dir.File("hard")));
  std::filesystem::create_directories(dir.File("sub"));
  EXPECT_TRUE(IsDatabaseFile(db, dir.File("sub/../f.db-journal")));
  std::filesystem::create_symlink(db, dir.File("sub/link.db"));
  EXPECT_TRUE(IsDatabaseFile(dir.File("sub/link.db"), db + "-shm"));
  EXPECT_FALSE(IsDatabaseFile(dir.File("sub/link.db"), dir.File("sub/link.db-shm")));
  EXPECT_FALSE(IsDatabaseFile("", db));
}

}  // namespace
}  // namespace streamcheck::store
