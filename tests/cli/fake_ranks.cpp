// Stands in for the tracers of a job's ranks under `streamcheck run`, where
// no GPU is: it joins run's run through the run session as each traced
// process does (tracer/tracer.cpp), and for each rank named on its command
// line adds a process that found the same race once and counted one finding
// of NCCL's own work, and writes the counters only a tracer knows: its host
// guards (off under `run --no-host-guards`, STREAMCHECK_HOST_GUARDS=0) and
// how its host threads were ordered (FAKE_SHARED_STAMPS objects past the
// preloaded library's table).
#include <cstdlib>
#include <cstdio>
#include <string>

#include <unistd.h>

#include "store/run_session.h"

int main(int argc, char** argv) {
  using namespace streamcheck;
  const char* db = std::getenv("STREAMCHECK_DB");
  const char* run = std::getenv("STREAMCHECK_RUN_ID");
  if (db == nullptr || run == nullptr) {
    std::fprintf(stderr, "fake_ranks: not under streamcheck run\n");
    return 3;
  }
  store::SessionConfig config;
  config.db_path = db;
  config.existing_run = std::atoll(run);
  config.run.mode = "run";
  std::string error;
  auto session = store::RunSession::Open(config, &error);
  if (!session) {
    std::fprintf(stderr, "fake_ranks: %s\n", error.c_str());
    return 3;
  }
  Finding race;
  race.rule = "cross-stream-race";
  race.kind = FindingKind::kReadAfterWrite;
  race.message = "the same race on every rank";
  race.fingerprint = "fp-every-rank";
  FindingAccess access;
  access.op = "all_reduce";
  access.stack = {SourceFrame("train_step", "train.py", 12)};
  race.accesses = {access, access};
  for (int i = 1; i < argc; ++i) {
    store::ProcessOutput* output =
        session->AddProcess(store::ProcessInfo{getpid(), "fake rank", "", std::atoi(argv[i])});
    output->OnFinding(1, race);
    EngineStats stats;
    stats.library_internal["nccl: wait-on-unrecorded-event"] = 1;
    session->FinishProcess(output, &stats);
    const char* guards = std::getenv("STREAMCHECK_HOST_GUARDS");
    if (guards != nullptr && std::string(guards) == "0")
      session->AddCounters(output, store::counters::kHostGuards,
                           {{std::string(store::counters::kHostGuardsEnabled), 0},
                            {std::string(store::counters::kHostGuardsOffByRequest), 1}});
    const char* shared = std::getenv("FAKE_SHARED_STAMPS");
    session->AddCounters(output, store::counters::kHostThreads,
                         {{std::string(store::counters::kOrderedByObservedSynchronization), 1},
                          {std::string(store::counters::kObjectsSharingAStamp),
                           shared != nullptr ? std::strtoull(shared, nullptr, 10) : 0}});
  }
  return session->failed_writes() == 0 ? 0 : 3;
}
