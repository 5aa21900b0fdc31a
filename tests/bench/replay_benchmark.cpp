// Replay throughput of the engine (issue: >= 10M operations/s on one core).
// Memory against trace length is measured per process (peak RSS of
// `streamcheck replay` on the 1M and 10M traces this writes to /tmp), since
// an in-process RSS delta is hidden by malloc reusing freed memory.
#include <benchmark/benchmark.h>

#include <unistd.h>

#include <cstdio>
#include <string>

#include "runtime/engine.h"
#include "runtime/trace/replay.h"
#include "runtime/trace/trace_io.h"
#include "tests/bench/recorded_loop.h"
#include "tests/bench/workload.h"

namespace streamcheck::bench {
namespace {

WorkloadShape Shape(int64_t pattern) {
  WorkloadShape shape;
  shape.pattern = pattern == 1 ? AccessPattern::kUniformRandom : AccessPattern::kProducerConsumer;
  if (pattern == 2) shape.certainty = AccessCertainty::kFirstByte;
  return shape;
}

// The timed loops' work, out of line so that callgrind can count it alone:
//   valgrind --tool=callgrind --toggle-collect='*ProcessChunk*' --toggle-collect='*RecordedLoop::Pass*'
//     replay_benchmark --benchmark_filter=... --benchmark_min_time=0   (one iteration each)
// gives the engine's instructions per record (Ir / the `records` counter).
[[gnu::noinline]] void ProcessChunk(Engine& engine, const std::vector<TraceRecord>& chunk) {
  for (const TraceRecord& r : chunk) engine.Process(r);
}

// Engine only: the steady state of the workload, records already decoded.
// Arg: 0 = producer/consumer pattern, 1 = uniformly random accesses, 2 = the
// producer/consumer pattern with fast mode's guessed extents (each kernel
// access a certain first byte and a guessed tail).
void BM_EngineSteadyState(benchmark::State& state) {
  WorkloadGenerator gen(Shape(state.range(0)));
  Engine engine(nullptr);
  for (const TraceRecord& r : gen.Prelude()) engine.Process(r);
  std::vector<TraceRecord> chunk(100000);
  for (TraceRecord& r : chunk) gen.Next(&r);
  // Once untimed: the buffers' first accesses (a guessed extent splits the
  // interval Fresh made) are not the steady state.
  for (const TraceRecord& r : chunk) engine.Process(r);
  for (auto _ : state) ProcessChunk(engine, chunk);
  state.SetItemsProcessed(state.iterations() * chunk.size());
  engine.Finish();
  state.counters["records"] = double(state.iterations() * chunk.size());
  state.counters["findings"] = double(engine.stats().findings);
  state.counters["memory_bytes"] = double(engine.stats().memory_bytes);
}
BENCHMARK(BM_EngineSteadyState)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

// Engine only: a recorded trace of a real program (testdata/traces/) played
// again and again into one engine (recorded_loop.h), records already decoded.
// An iteration is as many passes as make 100k records.
void BM_RecordedTrace(benchmark::State& state, const char* trace) {
  RecordedLoop loop(std::string(STREAMCHECK_SOURCE_DIR "/testdata/traces/") + trace);
  if (loop.empty()) {
    state.SkipWithError("cannot read the trace");
    return;
  }
  Engine engine(nullptr);
  loop.First(engine);
  uint64_t records = 0;
  for (auto _ : state) {
    uint64_t n = 0;
    while (n < 100000) n += loop.Pass(engine);
    records += n;
  }
  state.SetItemsProcessed(int64_t(records));
  engine.Finish();
  state.counters["records"] = double(records);
  state.counters["findings"] = double(engine.stats().findings);
  state.counters["occurrences"] = double(engine.stats().finding_occurrences);
  state.counters["anomalies"] = double(engine.stats().anomalies.size());
  state.counters["lanes"] = double(engine.stats().lanes);
  state.counters["memory_bytes"] = double(engine.stats().memory_bytes);
}
BENCHMARK_CAPTURE(BM_RecordedTrace, fsdp2, "distributed/fsdp2.fixed.rank0.sctrace")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RecordedTrace, fsdp2_racy, "distributed/fsdp2.racy.rank0.sctrace")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RecordedTrace, ddp, "distributed/ddp.fixed.rank0.sctrace")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RecordedTrace, allreduce_async, "distributed/allreduce_async.fixed.rank0.sctrace")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RecordedTrace, reduce_overhead, "pytorch_reduce_overhead.sctrace")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RecordedTrace, cuda_graph, "pytorch_cuda_graph.fixed.sctrace")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RecordedTrace, all_reads_checked, "pytorch_all_reads_checked.fixed.sctrace")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RecordedTrace, pinned_host_loop, "pinned_host_loop.racy.sctrace")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_RecordedTrace, pageable_async_copy, "pageable_async_copy.fixed.sctrace")
    ->Unit(benchmark::kMillisecond);

// Writes the workload (prelude + `ops` operations) as a binary trace once.
std::string TracePath(int64_t ops, int64_t pattern) {
  const std::string path =
      "/tmp/streamcheck_bench_" + std::to_string(ops) + "_" + std::to_string(pattern) + ".sctrace";
  if (access(path.c_str(), R_OK) == 0) return path;
  std::string error;
  auto writer = CreateBinaryTraceWriter(path + ".tmp", &error);
  if (!writer) return "";
  WorkloadGenerator gen(Shape(pattern));
  for (const TraceRecord& r : gen.Prelude()) writer->Append(r);
  TraceRecord r;
  for (int64_t i = 0; i < ops; ++i) {
    gen.Next(&r);
    writer->Append(r);
  }
  if (!writer->Close()) return "";
  std::rename((path + ".tmp").c_str(), path.c_str());
  return path;
}

// The whole replay: decode the binary trace and run the engine over it.
// Args: operations, pattern (0 producer/consumer, 1 uniformly random).
void BM_ReplayTraceFile(benchmark::State& state) {
  const int64_t ops = state.range(0);
  const std::string path = TracePath(ops, state.range(1));
  if (path.empty()) {
    state.SkipWithError("cannot write the benchmark trace");
    return;
  }
  uint64_t records = 0, findings = 0;
  for (auto _ : state) {
    std::string error;
    auto source = OpenTrace(path, &error);
    Engine engine(nullptr);
    ReplayInto(*source, engine);
    engine.Finish();
    records = engine.stats().records;
    findings = engine.stats().findings;
  }
  state.SetItemsProcessed(state.iterations() * records);
  state.counters["records"] = double(records);
  state.counters["findings"] = double(findings);
}
BENCHMARK(BM_ReplayTraceFile)
    ->Args({1000000, 0})
    ->Args({10000000, 0})
    ->Args({10000000, 1})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
}  // namespace streamcheck::bench

BENCHMARK_MAIN();
