// The store fuzzer's checks in CI, over deterministic damage to a real
// database: every page's bytes overwritten in turn, the file cut short, its
// header changed. Each input goes through every report format, --baseline and
// merge (store_fuzz_input.h); a crash, an exception or invalid JSON fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "store/database.h"
#include "store/store.h"
#include "tests/store/store_fixtures.h"
#include "tests/store/store_fuzz_input.h"

namespace streamcheck::store {
namespace {

using testing::RaceFinding;
using testing::ReadAll;
using testing::ScratchDir;

std::string ValidDatabase(const ScratchDir& dir) {
  const std::string path = dir.File("seed.db");
  {
    std::string error;
    auto store = Store::Open(path, &error);
    EXPECT_TRUE(store) << error;
    const int64_t run = store->BeginRun({.mode = "replay", .command = "seed"});
    Finding hostile = RaceFinding("b");
    hostile.accesses[0].op = "k\xff\x1b[31m";
    hostile.accesses[1].stack = {{"f\xfe", "/proc/self/environ", 1, 0, 0}};
    store->AddFinding(run, 0, 1, RaceFinding("a"));
    store->AddFinding(run, 0, 2, hostile);
    store->AddCounters(run, 0, "stats", {{"findings", 2}});
    store->EndRun(run, 0);
  }
  return ReadAll(path);  // closed: the WAL is in the main file
}

void Read(const std::string& bytes) {
  testing::ReadStoreBytes(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

TEST(StoreFuzz, ValidAndDamagedDatabasesNeverCrashAReport) {
  ScratchDir dir;
  const std::string seed = ValidDatabase(dir);
  ASSERT_GT(seed.size(), 4096u);
  Read(seed);
  Read("");
  Read("SQLite format 3");
  for (size_t cut : {size_t{100}, size_t{4096}, seed.size() / 2, seed.size() - 1}) Read(seed.substr(0, cut));
  std::mt19937 random(29);
  for (size_t page = 0; page * 4096 < seed.size(); ++page) {
    for (int round = 0; round < 3; ++round) {
      std::string damaged = seed;
      const size_t at = page * 4096 + random() % 4096;
      for (size_t i = at; i < std::min(damaged.size(), at + 1 + random() % 16); ++i)
        damaged[i] = static_cast<char>(random());
      Read(damaged);
    }
  }
  std::filesystem::remove_all("/tmp/streamcheck-store-fuzz-" + std::to_string(getpid()));
}

}  // namespace
}  // namespace streamcheck::store
