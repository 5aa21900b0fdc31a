// The soak's stand-in for a traced program (tests/soak/run_soak.py), where no
// GPU is: under `streamcheck run` it joins run's run through the run session
// as the tracer does (tracer/tracer.cpp: best effort, never failing the
// program), and reports FINDINGS distinct findings, each seen a few times,
// SLEEP_US apart, then finishes its process as the tracer does at exit.
// Usage: soak_writer FINDINGS SLEEP_US. Prints "soak_writer: N findings" on
// stdout, the program's own output, and exits 0.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "store/run_session.h"

int main(int argc, char** argv) {
  using namespace streamcheck;
  if (argc != 3) {
    std::fprintf(stderr, "usage: soak_writer FINDINGS SLEEP_US\n");
    return 3;
  }
  const int findings = std::atoi(argv[1]);
  const int sleep_us = std::atoi(argv[2]);
  store::SessionConfig config;
  if (const char* db = std::getenv("STREAMCHECK_DB")) config.db_path = db;
  if (const char* run = std::getenv("STREAMCHECK_RUN_ID")) config.existing_run = std::atoll(run);
  if (const char* wait = std::getenv("STREAMCHECK_BUSY_TIMEOUT_MS")) config.open.busy_timeout_ms = std::atoi(wait);
  config.run.mode = "run";
  config.run.command = "soak_writer";
  config.best_effort = true;
  config.frames_name_sources = true;
  std::string error;
  auto session = store::RunSession::Open(config, &error);
  for (const std::string& warning : session->warnings()) std::fprintf(stderr, "soak_writer: %s\n", warning.c_str());
  store::ProcessOutput* output = session->AddProcess(store::ProcessInfo{getpid(), "soak_writer", "", -1});
  Finding race;
  race.rule = "cross-stream-race";
  race.kind = FindingKind::kReadAfterWrite;
  FindingAccess access;
  access.op = "soak_kernel";
  access.stack = {SourceFrame("soak_step", "soak_writer.cpp", 40)};
  race.accesses = {access, access};
  for (int i = 1; i <= findings; ++i) {
    race.fingerprint = "soak-" + std::to_string(i);
    race.message = "soak finding " + std::to_string(i);
    output->OnFinding(i, race);
    if (i % 3 == 0) output->OnFindingCount(i, 3);
    if (sleep_us > 0) ::usleep(sleep_us);
  }
  EngineStats stats;
  stats.records = static_cast<uint64_t>(findings) * 2;
  session->FinishProcess(output, &stats);
  std::printf("soak_writer: %d findings\n", findings);
  return 0;
}
