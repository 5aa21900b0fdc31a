// Per-test scopes through the tracer (tracer/scopes/, docs/SCOPES.md): the
// preloaded library's ABI (tracer/preload/scopes.c, linked into this binary
// and exported, as `streamcheck run` preloads it) routes each call to the
// tracer once it registers; scopes opened before the tracer came still hold
// their thread's work; streamcheck_scope_errors waits for the analysis and
// reports each error occurrence once; the trace keeps the scopes for replay;
// and bad input is a code and a message, never a crash.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#define STREAMCHECK_SCOPE_ABI_DEFINITION
#include "include/streamcheck/scope.h"
#include "runtime/engine.h"
#include "runtime/trace/replay.h"
#include "runtime/trace/trace_io.h"
#include "tests/runtime/trace_builder.h"
#include "tracer/preload/scope_hooks.h"
#include "tracer/scopes/scope_hooks.h"
#include "tracer/tracer.h"

namespace streamcheck::tracer {
namespace {

constexpr Handle kS1 = 0x55, kS2 = 0x66;
constexpr Address kBuf = 0x7f0000000000;

// Under the tracer's lock, as the CUPTI callbacks make them.
void Emit(Tracer& t, TraceRecord r) {
  std::lock_guard<TracerLock> lock(t.tracer_lock());
  t.Emit(r);
}

void Streams(Tracer& t) {
  for (Handle stream : {kS1, kS2}) {
    TraceRecord create;
    create.op = OpCode::kStreamCreate;
    create.stream = stream;
    create.flags = 1;  // non-blocking
    Emit(t, create);
  }
  TraceRecord malloc;
  malloc.op = OpCode::kMalloc;
  malloc.dst = kBuf;
  malloc.size = 4096;
  Emit(t, malloc);
}

void Launch(Tracer& t, Handle stream, const char* kernel, AccessMode mode) {
  TraceRecord launch;
  launch.op = OpCode::kKernelLaunch;
  launch.stream = stream;
  {
    std::lock_guard<TracerLock> lock(t.tracer_lock());
    launch.name = t.Intern(kernel);
  }
  launch.accesses = {{kBuf, 4096, mode}};
  Emit(t, launch);
}

void Synchronize(Tracer& t) {
  TraceRecord sync;
  sync.op = OpCode::kDeviceSynchronize;
  Emit(t, sync);
}

std::string Errors(long* count) {
  char text[4096];
  *count = streamcheck_scope_errors(text, sizeof text);
  return text;
}

class ScopeHooks : public ::testing::Test {
 protected:
  ScopeHooks() : trace_(::testing::TempDir() + "scope_hooks." + std::to_string(getpid()) + ".trace") {}
  ~ScopeHooks() override {
    streamcheck_set_scope_hooks(nullptr);
    std::remove(trace_.c_str());
  }
  // A tracer as CUDA's injection makes one: its hooks registered.
  std::unique_ptr<Tracer> StartTracer() {
    TracerConfig config;
    config.trace_path = trace_;
    config.capture_stacks = false;
    auto tracer = std::make_unique<Tracer>(config);
    RegisterScopeHooks(tracer.get());
    return tracer;
  }
  // The findings a replay of the trace makes.
  std::vector<Finding> Replayed(EngineStats* stats = nullptr) {
    std::string error;
    auto source = OpenTrace(trace_, &error);
    EXPECT_TRUE(source) << error;
    testing::CollectingSink sink;
    Engine engine(&sink);
    if (source) ReplayInto(*source, engine);
    engine.Finish();
    if (stats) *stats = engine.stats();
    return sink.findings;
  }

  std::string trace_;
};

TEST_F(ScopeHooks, WithoutATracerScopesAreKeptAndNothingIsFound) {
  EXPECT_EQ(streamcheck_scope_traced(), STREAMCHECK_SCOPE_WAITING);
  EXPECT_EQ(streamcheck_scope_begin("tests/test_a.py::test_x"), STREAMCHECK_SCOPE_OK);
  const char* names[4];
  ASSERT_EQ(streamcheck_open_scopes(names, 4), 1u);
  EXPECT_STREQ(names[0], "tests/test_a.py::test_x");
  long count = -1;
  EXPECT_EQ(Errors(&count), "");
  EXPECT_EQ(count, 0);
  EXPECT_EQ(streamcheck_scope_end(), STREAMCHECK_SCOPE_OK);
  EXPECT_EQ(streamcheck_open_scopes(names, 4), 0u);
}

// pytest opens a test's scope, the test initializes CUDA, CUDA loads the
// tracer: the scope opened before still holds the test's work. (A thread of
// its own: the tracer meets it for the first time.)
TEST_F(ScopeHooks, AScopeOpenedBeforeTheTracerCameHoldsItsWork) {
  std::thread test([this] {
    streamcheck_scope_begin("tests/test_io.py::test_first");
    auto tracer = StartTracer();
    EXPECT_EQ(streamcheck_scope_traced(), STREAMCHECK_SCOPE_TRACING);
    Streams(*tracer);
    Launch(*tracer, kS1, "fill", AccessMode::kWrite);
    Launch(*tracer, kS2, "consume", AccessMode::kRead);
    long count = 0;
    const std::string text = Errors(&count);
    EXPECT_EQ(count, 1) << text;
    EXPECT_NE(text.find("cross-stream-race: consume"), std::string::npos) << text;
    EXPECT_NE(text.find("fix: "), std::string::npos) << text;
    streamcheck_scope_end();
    tracer->Finish();
  });
  test.join();
  const std::vector<Finding> fs = Replayed();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].accesses[0].scope, "tests/test_io.py::test_first");
  EXPECT_EQ(fs[0].accesses[1].scope, "tests/test_io.py::test_first");
}

// Each occurrence is reported once, to the scope it happened in; a race
// whose earlier side another test left in flight fails the later test and
// names both.
TEST_F(ScopeHooks, ErrorsAreTheScopesOwnEachOccurrenceOnce) {
  auto tracer = StartTracer();
  Streams(*tracer);
  long count = -1;
  streamcheck_scope_begin("test_clean");
  Launch(*tracer, kS1, "fill", AccessMode::kWrite);
  Synchronize(*tracer);
  EXPECT_EQ(Errors(&count), "");
  EXPECT_EQ(count, 0);
  streamcheck_scope_end();

  streamcheck_scope_begin("test_leaves_work_in_flight");
  Launch(*tracer, kS1, "fill", AccessMode::kWrite);
  EXPECT_EQ(Errors(&count), "");
  EXPECT_EQ(count, 0);
  streamcheck_scope_end();

  streamcheck_scope_begin("test_reuses_the_buffer");
  Launch(*tracer, kS2, "consume", AccessMode::kRead);
  std::string text = Errors(&count);
  EXPECT_EQ(count, 1) << text;
  EXPECT_NE(text.find("earlier access in test_leaves_work_in_flight"), std::string::npos) << text;
  EXPECT_NE(text.find("later access in test_reuses_the_buffer"), std::string::npos) << text;
  EXPECT_EQ(Errors(&count), "") << "reported once";
  EXPECT_EQ(count, 0);
  streamcheck_scope_end();

  // The same race again in a test of the same name: a new occurrence of
  // the same finding, reported again.
  Synchronize(*tracer);
  streamcheck_scope_begin("test_leaves_work_in_flight");
  Launch(*tracer, kS1, "fill", AccessMode::kWrite);
  streamcheck_scope_end();
  streamcheck_scope_begin("test_reuses_the_buffer");
  Launch(*tracer, kS2, "consume", AccessMode::kRead);
  text = Errors(&count);
  EXPECT_EQ(count, 1) << text;
  streamcheck_scope_end();
  tracer->Finish();

  const std::vector<Finding> fs = Replayed();
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].count, 2u);
  EXPECT_EQ(fs[0].accesses[0].scope, "test_leaves_work_in_flight");
  EXPECT_EQ(fs[0].accesses[1].scope, "test_reuses_the_buffer");
}

TEST_F(ScopeHooks, BadInputIsACodeNeverACrash) {
  auto tracer = StartTracer();
  Streams(*tracer);
  EXPECT_EQ(streamcheck_scope_end(), STREAMCHECK_SCOPE_NONE_OPEN);
  EXPECT_EQ(streamcheck_scope_begin(nullptr), STREAMCHECK_SCOPE_NAME_ALTERED);
  EXPECT_EQ(streamcheck_scope_begin(""), STREAMCHECK_SCOPE_NAME_ALTERED);
  EXPECT_EQ(streamcheck_scope_begin("caf\xc3\xa9 \xff\xfe ok"), STREAMCHECK_SCOPE_NAME_ALTERED);
  EXPECT_EQ(streamcheck_scope_begin(std::string(5000, 'x').c_str()), STREAMCHECK_SCOPE_NAME_ALTERED);
  EXPECT_EQ(streamcheck_scope_begin("\xe2\x82\xac fine"), STREAMCHECK_SCOPE_OK);
  const char* names[8];
  ASSERT_EQ(streamcheck_open_scopes(names, 8), 5u);
  EXPECT_STREQ(names[0], "(null scope name)");
  EXPECT_STREQ(names[1], "(empty scope name)");
  EXPECT_STREQ(names[2], "caf\xc3\xa9 \\xff\\xfe ok");
  EXPECT_EQ(std::string(names[3]).size(), size_t{STREAMCHECK_SCOPE_MAX_NAME});
  EXPECT_TRUE(std::string(names[3]).ends_with("xx..."));
  Launch(*tracer, kS1, "fill", AccessMode::kWrite);
  Launch(*tracer, kS2, "consume", AccessMode::kRead);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(streamcheck_scope_end(), STREAMCHECK_SCOPE_OK);
  EXPECT_EQ(streamcheck_scope_end(), STREAMCHECK_SCOPE_NONE_OPEN);
  tracer->Finish();
  EngineStats stats;
  const std::vector<Finding> fs = Replayed(&stats);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_TRUE(fs[0].accesses[1].scope.starts_with("(null scope name) > (empty scope name) > caf\xc3\xa9 \\xff\\xfe"))
      << fs[0].accesses[1].scope;
  EXPECT_TRUE(fs[0].accesses[1].scope.ends_with("... > \xe2\x82\xac fine"));
  EXPECT_EQ(stats.anomalies["scope ended with none open on its thread"], 2u);
}

}  // namespace
}  // namespace streamcheck::tracer
