// What the store fuzzer (store_report_fuzzer.cpp) and its CI test
// (store_fuzz_test.cpp) do with one input: the bytes become a database file
// that every report format, --baseline and merge read. Nothing may crash or
// throw; a report that succeeds must be valid JSON where it is JSON; a
// failure must say what and where (exit 2 with a message).
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "report/report_command.h"
#include "store/merge.h"

namespace streamcheck::testing {

inline void ExpectOrAbort(bool ok) {
  if (!ok) std::abort();
}

inline void ReadStoreBytes(const uint8_t* data, size_t size) {
  const std::string dir = "/tmp/streamcheck-store-fuzz-" + std::to_string(getpid());
  std::string command = "mkdir -p " + dir;
  ExpectOrAbort(std::system(command.c_str()) == 0);
  const std::string db = dir + "/input.db";
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((db + suffix).c_str());
  std::ofstream(db, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));

  for (const char* format : {"text", "summary", "json", "sarif", "html"}) {
    report::ReportRequest request;
    request.db_path = db;
    request.format = format;
    std::ostringstream out, err;
    const int code = report::RunReport(request, out, err);
    ExpectOrAbort(code == 0 || code == 2);
    ExpectOrAbort(code == 0 || !err.str().empty());
    if (code == 0 && (request.format == "json" || request.format == "sarif"))
      ExpectOrAbort(!nlohmann::json::parse(out.str(), nullptr, false).is_discarded());
  }
  report::ReportRequest baseline;
  baseline.db_path = db;
  baseline.baseline_path = db;
  baseline.run = report::kLatestRun;
  std::ostringstream out, err;
  const int code = report::RunReport(baseline, out, err);
  ExpectOrAbort(code == 0 || code == 2);

  const std::string merged = dir + "/merged.db";
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((merged + suffix).c_str());
  std::ostringstream merge_err;
  const int merge_code = store::RunMerge(merged, {db}, merge_err);
  ExpectOrAbort(merge_code == 0 || (merge_code == 2 && !merge_err.str().empty()));
}

}  // namespace streamcheck::testing
