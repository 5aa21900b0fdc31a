// What the binary's end-to-end tests share: `streamcheck` run in a shell,
// a scratch folder per test binary, and the findings a database holds.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "store/reader.h"
#include "store/store.h"
#include "tests/common/run_command.h"
#include "tests/common/temp_dir.h"

namespace streamcheck::cli_testing {

// stdout and stderr together.
inline testing::CommandResult Streamcheck(const std::string& args) {
  return testing::RunCommand(std::string(STREAMCHECK_BINARY) + " " + args + " 2>&1");
}

// A file in the test process's scratch folder, removed with the process
// (CTest runs each test in a process of its own, and a folder left behind per
// process filled /tmp with hundreds of them).
inline std::string TempPath(const std::string& name) {
  static const testing::TempDir scratch;
  return scratch / name;
}

inline std::vector<Finding> StoredFindings(const std::string& db_path) {
  std::string error;
  auto db = store::Store::Open(db_path, &error, {.read_only = true});
  EXPECT_TRUE(db) << error;
  std::vector<store::StoredFinding> stored;
  std::vector<Finding> out;
  if (!db || !store::ReadFindings(*db, {}, &stored, &error)) return out;
  for (auto& s : stored) out.push_back(s.finding);
  return out;
}

}  // namespace streamcheck::cli_testing
