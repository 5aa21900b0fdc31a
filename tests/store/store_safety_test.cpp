// Old, newer, foreign, corrupt and locked databases: a clear error, and
// nothing already stored is lost or changed.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "store/database.h"
#include "store/migrations.h"
#include "store/reader.h"
#include "store/store.h"
#include "tests/store/store_fixtures.h"

namespace streamcheck::store {
namespace {

using testing::RaceFinding;
using testing::ReadAll;
using testing::ScratchDir;
using testing::WriteAll;

// A store with one run and one finding, closed (so the WAL is checkpointed).
void MakeStore(const std::string& path) {
  std::string error;
  auto store = Store::Open(path, &error);
  ASSERT_TRUE(store) << error;
  int64_t run = store->BeginRun({.mode = "run", .command = "./app"});
  ASSERT_GT(store->AddFinding(run, 0, 1, RaceFinding()), 0);
  store->EndRun(run, 0);
}

TEST(StoreSafety, MigratesSchemaOneKeepingItsData) {
  ScratchDir dir;
  std::string path = dir.File("old.db");
  std::string error;
  {
    Database db(path, false, true, &error);
    ASSERT_TRUE(db.ok()) << error;
    ASSERT_TRUE(Migrate(db, &error, 1)) << error;
    ASSERT_TRUE(db.Exec("INSERT INTO runs(mode, command, host, gpu, tool_version, start_time_ns) "
                        "VALUES('run', 'old command', 'h', 'g', '0.0.1', 5)"));
    EXPECT_EQ(SchemaVersionOf(db, &error), 1);
  }
  auto store = Store::Open(path, &error);
  ASSERT_TRUE(store) << error;
  EXPECT_EQ(SchemaVersionOf(store->database(), &error), kSchemaVersion);
  std::vector<StoredRun> runs;
  ASSERT_TRUE(ReadRuns(*store, &runs, &error));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].info.command, "old command");
  EXPECT_TRUE(store->AddCounters(runs[0].id, 0, "stats", {{"records", 1}})) << store->last_error();
}

TEST(StoreSafety, ReadOnlyOpenReadsAnOldSchemaWithoutChangingIt) {
  ScratchDir dir;
  std::string path = dir.File("old.db");
  std::string error;
  {
    Database db(path, false, true, &error);
    ASSERT_TRUE(Migrate(db, &error, 1)) << error;
  }
  std::string before = ReadAll(path);
  auto store = Store::Open(path, &error, {.read_only = true});
  ASSERT_TRUE(store) << error;
  std::map<std::string, std::map<std::string, uint64_t>> counters;
  EXPECT_TRUE(ReadCounters(*store, 1, &counters, &error)) << error;
  store.reset();
  EXPECT_EQ(ReadAll(path), before);
}

TEST(StoreSafety, NewerSchemaIsRefusedAndLeftUntouched) {
  ScratchDir dir;
  std::string path = dir.File("newer.db");
  MakeStore(path);
  std::string error;
  {
    Database db(path, false, false, &error);
    ASSERT_TRUE(db.Exec("PRAGMA user_version = 99")) << db.error();
  }
  std::string before = ReadAll(path);
  EXPECT_FALSE(Store::Open(path, &error));
  EXPECT_NE(error.find("newer streamcheck"), std::string::npos) << error;
  EXPECT_NE(error.find("99"), std::string::npos) << error;
  EXPECT_EQ(ReadAll(path), before);
}

TEST(StoreSafety, GarbageFileIsRefusedAndLeftUntouched) {
  ScratchDir dir;
  std::string path = dir.File("garbage.db");
  std::string garbage(8192, 'x');
  WriteAll(path, garbage);
  std::string error;
  EXPECT_FALSE(Store::Open(path, &error));
  EXPECT_NE(error.find("not a"), std::string::npos) << error;
  EXPECT_EQ(ReadAll(path), garbage);
}

TEST(StoreSafety, CorruptPagesAreReportedWithoutChangingTheFile) {
  ScratchDir dir;
  std::string path = dir.File("corrupt.db");
  MakeStore(path);
  std::string bytes = ReadAll(path);
  ASSERT_GT(bytes.size(), 3 * 4096u);
  // Page 3 holds a table's b-tree: overwrite it with junk.
  for (size_t i = 2 * 4096; i < 3 * 4096; ++i) bytes[i] = static_cast<char>(0xA5);
  WriteAll(path, bytes);
  std::string error;
  EXPECT_FALSE(Store::Open(path, &error, {.create_if_missing = false, .check_integrity = true}));
  EXPECT_NE(error.find("corrupt"), std::string::npos) << error;
  EXPECT_EQ(ReadAll(path), bytes);
}

TEST(StoreSafety, AnotherApplicationsDatabaseIsRefused) {
  ScratchDir dir;
  std::string path = dir.File("foreign.db");
  std::string error;
  {
    Database db(path, false, true, &error);
    ASSERT_TRUE(db.Exec("CREATE TABLE photos(id INTEGER); INSERT INTO photos VALUES(1)"));
  }
  std::string before = ReadAll(path);
  EXPECT_FALSE(Store::Open(path, &error));
  EXPECT_NE(error.find("another application"), std::string::npos) << error;
  EXPECT_EQ(ReadAll(path), before);
}

TEST(StoreSafety, MissingFileIsNotCreatedForReaders) {
  ScratchDir dir;
  std::string path = dir.File("missing.db");
  std::string error;
  EXPECT_FALSE(Store::Open(path, &error, {.create_if_missing = false}));
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(StoreSafety, LockedDatabaseFailsClearlyAndLosesNothing) {
  ScratchDir dir;
  std::string path = dir.File("locked.db");
  MakeStore(path);
  std::string error;
  auto store = Store::Open(path, &error, {.busy_timeout_ms = 50});
  ASSERT_TRUE(store) << error;

  Database holder(path, false, false, &error);
  ASSERT_TRUE(holder.Exec("BEGIN IMMEDIATE; INSERT INTO runs(mode, command, host, gpu, "
                          "tool_version, start_time_ns) VALUES('run', 'holder', '', '', '', 1)"))
      << holder.error();
  EXPECT_EQ(store->BeginRun({.mode = "run"}), -1);
  EXPECT_NE(store->last_error().find("locked"), std::string::npos) << store->last_error();
  EXPECT_EQ(store->AddFinding(1, 0, 2, RaceFinding()), -1);
  EXPECT_EQ(store->failed_writes(), 2u);
  ASSERT_TRUE(holder.Exec("COMMIT"));

  // Both the earlier data and the holder's write survive; writing works again.
  EXPECT_GT(store->BeginRun({.mode = "run"}), 0) << store->last_error();
  std::vector<StoredRun> runs;
  ASSERT_TRUE(ReadRuns(*store, &runs, &error));
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[1].info.command, "holder");
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error));
  EXPECT_EQ(findings.size(), 1u);
}

// A database at this build's version needs no migration and so no write
// lock to open: a traced program starting while another process writes got
// "locked", went on without the database, and its findings were lost (the
// soak of issue 44 found it).
TEST(StoreSafety, AnUpToDateDatabaseOpensWhileAnotherProcessWrites) {
  ScratchDir dir;
  std::string path = dir.File("busy.db");
  MakeStore(path);
  std::string error;
  Database holder(path, false, false, &error);
  ASSERT_TRUE(holder.Exec("BEGIN IMMEDIATE; INSERT INTO runs(mode, command, host, gpu, "
                          "tool_version, start_time_ns) VALUES('run', 'holder', '', '', '', 1)"));
  auto store = Store::Open(path, &error, {.check_integrity = true, .busy_timeout_ms = 50});
  EXPECT_TRUE(store) << error;
  ASSERT_TRUE(holder.Exec("COMMIT"));
}

TEST(StoreSafety, MigrationOfALockedDatabaseFailsClearly) {
  ScratchDir dir;
  std::string path = dir.File("old-locked.db");
  std::string error;
  Database holder(path, false, true, &error);
  ASSERT_TRUE(Migrate(holder, &error, 1)) << error;
  ASSERT_TRUE(holder.Exec("BEGIN IMMEDIATE; INSERT INTO runs(mode, command, host, gpu, "
                          "tool_version, start_time_ns) VALUES('run', 'holder', '', '', '', 1)"));
  EXPECT_FALSE(Store::Open(path, &error, {.busy_timeout_ms = 50}));
  EXPECT_NE(error.find("locked"), std::string::npos) << error;
  ASSERT_TRUE(holder.Exec("COMMIT"));
  EXPECT_EQ(SchemaVersionOf(holder, &error), 1);
  auto store = Store::Open(path, &error);
  ASSERT_TRUE(store) << error;
  std::vector<StoredRun> runs;
  ASSERT_TRUE(ReadRuns(*store, &runs, &error));
  EXPECT_EQ(runs.size(), 1u);
}

// Parallel test shards under `streamcheck run --db one.db`: every process
// opens the new file at once, and each must get a store (the schema made once).
TEST(StoreSafety, StoresOpenedTogetherOnANewFileAllSucceed) {
  ScratchDir dir;
  constexpr int kFiles = 20, kOpeners = 8;
  for (int f = 0; f < kFiles; ++f) {
    const std::string path = dir.File("shared-" + std::to_string(f) + ".db");
    std::vector<std::string> errors(kOpeners);
    std::vector<int> opened(kOpeners, 0);
    std::vector<std::thread> openers;
    for (int i = 0; i < kOpeners; ++i)
      openers.emplace_back([&, i] { opened[i] = Store::Open(path, &errors[i]) != nullptr; });
    for (std::thread& t : openers) t.join();
    for (int i = 0; i < kOpeners; ++i) ASSERT_TRUE(opened[i]) << path << ": " << errors[i];
    std::string error;
    auto store = Store::Open(path, &error);
    ASSERT_TRUE(store) << error;
    EXPECT_EQ(SchemaVersionOf(store->database(), &error), kSchemaVersion);
  }
}

}  // namespace
}  // namespace streamcheck::store

namespace streamcheck::store {
namespace {

// A schema-3 file with a finding, as an older streamcheck wrote it.
void MakeSchemaThreeStore(const std::string& path) {
  std::string error;
  Database db(path, false, true, &error);
  ASSERT_TRUE(db.ok()) << error;
  ASSERT_TRUE(Migrate(db, &error, 3)) << error;
  ASSERT_TRUE(db.Exec(
      "INSERT INTO runs(id, mode, command, host, gpu, tool_version, start_time_ns) VALUES(1, 'run', './app', 'h', "
      "'g', '0.1.0', 5);"
      "INSERT INTO stacks(id) VALUES(1);"
      "INSERT INTO frames(stack_id, depth, function, file, line, \"column\", pc) VALUES(1, 0, 'main', 'a.cu', 31, 0, 16);"
      "INSERT INTO allocations(id, address, size, memory_kind, known, allocated_by, stack_id) "
      "VALUES(1, 4096, 4096, 'device', 1, 'cudaMalloc', NULL);"
      "INSERT INTO findings(id, run_id, process_id, local_id, origin, rule, kind, severity, confidence, message, "
      "reason, fix, allocation_id, count, fingerprint) VALUES(1, 1, NULL, 1, 'dynamic', 'cross-stream-race', "
      "'read-after-write', 'error', 'certain', 'old message', 'old reason', 'old fix', 1, 1, 'fp');"
      "INSERT INTO accesses VALUES(1, 0, 'earlier', 'fill', 'cudaLaunchKernel', '', 'legacy default stream of device "
      "0', 0, 0, 0, 0, 1, 'write', 4096, 4096, 1, 1, NULL);"
      "INSERT INTO accesses VALUES(1, 1, 'later', 'scale', 'cudaLaunchKernel', '', 'stream 0x55 (non-blocking) on "
      "device 0', 85, 1, 0, 0, 1, 'read', 4096, 4096, 2, 2, 1);"))
      << db.error();
}

TEST(StoreSafety, SchemaThreeFindingsReadWithoutTheNewColumns) {
  ScratchDir dir;
  const std::string path = dir.File("v3.db");
  MakeSchemaThreeStore(path);
  const std::string before = ReadAll(path);
  std::string error;
  {
    auto store = Store::Open(path, &error, {.read_only = true});
    ASSERT_TRUE(store) << error;
    std::vector<StoredFinding> findings;
    ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error)) << error;
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings[0].finding;
    EXPECT_EQ(f.message, "old message");
    EXPECT_TRUE(f.order_gap.empty());
    EXPECT_TRUE(f.syncs.empty());
    ASSERT_EQ(f.accesses.size(), 2u);
    EXPECT_EQ(f.accesses[1].stream, "stream 0x55 (non-blocking) on device 0");
    EXPECT_TRUE(f.accesses[1].stream_kind.empty());
    EXPECT_EQ(f.accesses[1].stack[0].line, 31u);
  }
  EXPECT_EQ(ReadAll(path), before) << "a read-only open changes nothing";
}

TEST(StoreSafety, SchemaThreeMigratesToTheNewestKeepingItsFindings) {
  ScratchDir dir;
  const std::string path = dir.File("v3.db");
  MakeSchemaThreeStore(path);
  std::string error;
  auto store = Store::Open(path, &error);
  ASSERT_TRUE(store) << error;
  EXPECT_EQ(SchemaVersionOf(store->database(), &error), kSchemaVersion);
  ASSERT_GT(store->AddFinding(1, 0, 2, testing::NamedRaceFinding()), 0) << store->last_error();
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error)) << error;
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].finding.message, "old message");
  EXPECT_EQ(findings[0].finding.accesses[1].stack[0].module, "");
  EXPECT_EQ(findings[1].finding.order_gap, "non-blocking-stream");
  EXPECT_EQ(findings[1].finding.syncs.size(), 1u);
}

// Schema 5: each access keeps its scope (the test it was made in); a
// store of schema 4 reads with none, and migrates keeping its findings.
TEST(StoreSafety, AccessesKeepTheirScopes) {
  ScratchDir dir;
  const std::string path = dir.File("scopes.db");
  std::string error;
  auto store = Store::Open(path, &error);
  ASSERT_TRUE(store) << error;
  Finding race = testing::NamedRaceFinding();
  race.accesses[0].scope = "tests/test_loader.py::test_fill";
  race.accesses[1].scope = "tests/test_loader.py::test_prefetch > warm-up";
  ASSERT_GT(store->AddFinding(store->BeginRun({"run", "pytest", "h", "g"}), 0, 1, race), 0) << store->last_error();
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error)) << error;
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].finding.accesses[0].scope, "tests/test_loader.py::test_fill");
  EXPECT_EQ(findings[0].finding.accesses[1].scope, "tests/test_loader.py::test_prefetch > warm-up");
  EXPECT_EQ(findings[0].finding.syncs[0].scope, "");
}

TEST(StoreSafety, SchemaFourReadsWithoutScopesAndMigrates) {
  ScratchDir dir;
  const std::string path = dir.File("v4.db");
  MakeSchemaThreeStore(path);
  {
    std::string error;
    Database db(path, false, false, &error);
    ASSERT_TRUE(Migrate(db, &error, 4)) << error;
  }
  std::string error;
  {
    auto old = Store::Open(path, &error, {.read_only = true});
    ASSERT_TRUE(old) << error;
    std::vector<StoredFinding> findings;
    ASSERT_TRUE(ReadFindings(*old, {}, &findings, &error)) << error;
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].finding.accesses[1].scope, "");
  }
  auto store = Store::Open(path, &error);
  ASSERT_TRUE(store) << error;
  EXPECT_EQ(SchemaVersionOf(store->database(), &error), 5);
  std::vector<StoredFinding> findings;
  ASSERT_TRUE(ReadFindings(*store, {}, &findings, &error)) << error;
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].finding.message, "old message");
  EXPECT_EQ(findings[0].finding.accesses[0].scope, "");
}

}  // namespace
}  // namespace streamcheck::store
