// CUDA graphs: capture does not run work; launches run nodes in stream order
// with their internal dependencies; launches of one exec are ordered.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kS3 = 0x30, kE = 0xe1, kE2 = 0xe2;
constexpr Handle kGraph = 0x6000, kExec = 0x7000;
constexpr Address kA = 0x1000, kB = 0x2000;

TraceBuilder Given() {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).StreamCreate(kS3, kStreamNonBlocking);
  t.EventCreate(kE).EventCreate(kE2).Malloc(kA, 64).Malloc(kB, 64);
  return t;
}

TEST(Graphs, CapturedWorkDoesNotRunAtCaptureTime) {
  auto t = Given();
  t.BeginCapture(kS1).Kernel(kS1, "captured_writer", {W(kA, 64)}).EndCapture(kS1, kGraph).Instantiate(kExec, kGraph);
  t.Kernel(kS2, "reader", {R(kA, 64)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Graphs, LaunchRacesWithAnotherStream) {
  auto t = Given();
  t.BeginCapture(kS1).Kernel(kS1, "captured_writer", {W(kA, 64)}).EndCapture(kS1, kGraph).Instantiate(kExec, kGraph);
  t.Launch(kExec, kS1).Kernel(kS2, "reader", {R(kA, 64)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].op, "captured_writer");
  EXPECT_EQ(fs[0].accesses[0].stream_handle, kS1);  // the stream it was launched on
}

TEST(Graphs, LaunchOrderedByEvent) {
  auto t = Given();
  t.BeginCapture(kS1).Kernel(kS1, "captured_writer", {W(kA, 64)}).EndCapture(kS1, kGraph).Instantiate(kExec, kGraph);
  t.Launch(kExec, kS1).Record(kE, kS1).Wait(kS2, kE).Kernel(kS2, "reader", {R(kA, 64)});
  EXPECT_TRUE(t.Run().empty());
}

TEST(Graphs, LaunchRunsAfterPriorWorkOfItsStream) {
  auto t = Given();
  t.BeginCapture(kS1).Kernel(kS1, "captured_reader", {R(kA, 64)}).EndCapture(kS1, kGraph).Instantiate(kExec, kGraph);
  t.Kernel(kS1, "producer", {W(kA, 64)}).Launch(kExec, kS1).Kernel(kS1, "overwrite", {W(kA, 64)});
  EXPECT_TRUE(t.Run().empty());
}

TEST(Graphs, RepeatedLaunchesOfOneExecAreOrdered) {
  auto t = Given();
  t.BeginCapture(kS1).Kernel(kS1, "step", {RW(kA, 64)}).EndCapture(kS1, kGraph).Instantiate(kExec, kGraph);
  t.Launch(kExec, kS1).Launch(kExec, kS2).Launch(kExec, kS1);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Graphs, CaptureForkJoinIsClean) {
  auto t = Given();
  t.BeginCapture(kS1).Kernel(kS1, "init", {W(kA, 64), W(kB, 64)}).Record(kE, kS1).Wait(kS2, kE);
  t.Kernel(kS1, "left", {RW(kA, 64)}).Kernel(kS2, "right", {RW(kB, 64)});
  t.Record(kE2, kS2).Wait(kS1, kE2).Kernel(kS1, "combine", {R(kA, 64), R(kB, 64)});
  t.EndCapture(kS1, kGraph).Instantiate(kExec, kGraph).Launch(kExec, kS3).StreamSync(kS3);
  t.HostRead(kA, 64);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Graphs, RaceBetweenUnorderedNodesOfOneGraph) {
  auto t = Given();
  t.BeginCapture(kS1).Record(kE, kS1).Wait(kS2, kE);
  t.Kernel(kS1, "left", {W(kA, 64)}).Kernel(kS2, "right", {W(kA, 64)});
  t.Record(kE2, kS2).Wait(kS1, kE2).EndCapture(kS1, kGraph).Instantiate(kExec, kGraph).Launch(kExec, kS1);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].kind, FindingKind::kWriteAfterWrite);
  EXPECT_NE(fs[0].reason.find("no dependency path"), std::string::npos) << fs[0].reason;
}

TEST(Graphs, ApiBuiltGraphFollowsItsDependencies) {
  auto t = Given();
  t.GraphCreate(kGraph).GraphKernelNode(kGraph, 1, {}, "n1", {W(kA, 64)});
  t.GraphKernelNode(kGraph, 2, {1}, "n2", {R(kA, 64)}).GraphKernelNode(kGraph, 3, {1}, "n3", {R(kA, 64)});
  t.Instantiate(kExec, kGraph).Launch(kExec, kS1);
  EXPECT_TRUE(t.Run().empty());

  auto racy = Given();
  racy.GraphCreate(kGraph).GraphKernelNode(kGraph, 1, {}, "n1", {W(kA, 64)});
  racy.GraphKernelNode(kGraph, 2, {}, "n2", {R(kA, 64)});
  racy.Instantiate(kExec, kGraph).Launch(kExec, kS1);
  EXPECT_EQ(racy.Run().size(), 1u);

  auto added = Given();
  added.GraphCreate(kGraph).GraphKernelNode(kGraph, 1, {}, "n1", {W(kA, 64)});
  added.GraphKernelNode(kGraph, 2, {}, "n2", {R(kA, 64)}).GraphDependency(kGraph, 2, {1});
  added.Instantiate(kExec, kGraph).Launch(kExec, kS1);
  EXPECT_TRUE(added.Run().empty());
}

// cudaStreamBeginCaptureToGraph: the captured work joins a graph that
// exists, after the nodes given (cudaStreamEndCapture may then return no
// graph); without a dependency the two nodes race within one launch.
TEST(Graphs, CaptureIntoAGraphThatExistsJoinsItAfterTheNodesGiven) {
  auto t = Given();
  t.GraphCreate(kGraph).GraphKernelNode(kGraph, 1, {}, "n1", {W(kA, 64)});
  t.BeginCaptureToGraph(kS1, kGraph, {1}).Kernel(kS1, "captured_reader", {R(kA, 64)}).EndCapture(kS1, 0);
  t.Kernel(kS2, "other_writer", {W(kA, 64)});  // captured work has not run: no race with it
  t.StreamSync(kS2).Instantiate(kExec, kGraph).Launch(kExec, kS1);
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());

  auto racy = Given();
  racy.GraphCreate(kGraph).GraphKernelNode(kGraph, 1, {}, "n1", {W(kA, 64)});
  racy.BeginCaptureToGraph(kS1, kGraph, {}).Kernel(kS1, "captured_reader", {R(kA, 64)}).EndCapture(kS1, kGraph);
  racy.Instantiate(kExec, kGraph).Launch(kExec, kS1);
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
}

// A conditional node's body graph is made by the driver, never seen: work
// captured into it does not run at capture time, and is not modeled.
TEST(Graphs, CaptureIntoAnUnknownGraphRunsNothing) {
  auto t = Given();
  t.BeginCaptureToGraph(kS1, 0x6666, {}).Kernel(kS1, "body_writer", {W(kA, 64)}).EndCapture(kS1, 0);
  t.Kernel(kS2, "writer", {W(kA, 64)});
  EXPECT_TRUE(t.Run().empty()) << Summary(t.Run());
}

TEST(Graphs, ExecUpdateReplacesTheNodes) {
  auto t = Given();
  t.GraphCreate(kGraph).GraphKernelNode(kGraph, 1, {}, "n1", {W(kA, 64)});
  t.Instantiate(kExec, kGraph);
  t.GraphCreate(0x6001).GraphKernelNode(0x6001, 1, {}, "n1_updated", {W(kB, 64)});
  t.ExecUpdate(kExec, 0x6001).Launch(kExec, kS1).Kernel(kS2, "reader", {R(kB, 64), R(kA, 64)});
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].op, "n1_updated");
}

// cudaGraphExecUpdate in a loop (a program updating a kernel's parameters
// each step): the exec's new nodes take the lanes it had, so updating adds
// no lanes, and a race with the previous launch's nodes is still found.
TEST(Graphs, AnExecUpdatedAgainAndAgainAddsNoLanes) {
  auto lanes_after = [](int updates) {
    auto t = Given();
    for (int i = 0; i < updates; ++i) {
      const Handle g = kGraph + 1 + i;
      t.GraphCreate(g).GraphKernelNode(g, 1, {}, "n1", {W(kA, 64)}).GraphKernelNode(g, 2, {}, "n2", {W(kB, 64)});
      (i == 0 ? t.Instantiate(kExec, g) : t.ExecUpdate(kExec, g)).Launch(kExec, kS1);
    }
    EngineStats stats;
    EXPECT_TRUE(t.Run(&stats).empty()) << Summary(t.Run());
    return stats.lanes;
  };
  EXPECT_EQ(lanes_after(1), lanes_after(50));

  auto racy = Given();
  racy.GraphCreate(kGraph).GraphKernelNode(kGraph, 1, {}, "writer", {W(kA, 64)}).Instantiate(kExec, kGraph);
  racy.Launch(kExec, kS1).GraphCreate(0x6001).GraphKernelNode(0x6001, 1, {}, "updated", {R(kB, 64)});
  racy.ExecUpdate(kExec, 0x6001).Launch(kExec, kS1).Kernel(kS2, "reader", {R(kA, 64)});
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].op, "writer");
}

// A graph captured, instantiated, launched and destroyed in a loop: each new
// exec's launch is ordered after the destroyed one's nodes (the same
// stream), so it takes their lanes instead of new ones.
TEST(Graphs, GraphsMadeAndDestroyedInALoopAddNoLanes) {
  auto lanes_after = [](int iterations) {
    auto t = Given();
    for (int i = 0; i < iterations; ++i) {
      const Handle g = kGraph + 1 + i, exec = kExec + 1 + i;
      t.BeginCapture(kS1).Kernel(kS1, "captured", {W(kA, 64)}).EndCapture(kS1, g).Instantiate(exec, g);
      t.Launch(exec, kS1).ExecDestroy(exec);
    }
    EngineStats stats;
    EXPECT_TRUE(t.Run(&stats).empty()) << Summary(t.Run());
    return stats.lanes;
  };
  EXPECT_EQ(lanes_after(1), lanes_after(50));
}

// A destroyed exec's lane goes only to a launch ordered after its nodes: a
// launch on another stream still races with them.
TEST(Graphs, ADestroyedExecsLaneServesOnlyALaunchOrderedAfterIt) {
  auto t = Given();
  t.BeginCapture(kS1).Kernel(kS1, "old_writer", {W(kA, 64)}).EndCapture(kS1, kGraph).Instantiate(kExec, kGraph);
  t.Launch(kExec, kS1).ExecDestroy(kExec);
  t.BeginCapture(kS2).Kernel(kS2, "new_reader", {R(kA, 64)}).EndCapture(kS2, 0x6001).Instantiate(0x7001, 0x6001);
  t.Launch(0x7001, kS2);
  const auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].op, "old_writer");
  EXPECT_EQ(fs[0].accesses[1].op, "new_reader");
}

}  // namespace
}  // namespace streamcheck::testing

namespace streamcheck::testing {
namespace {

// GraphLaunch keeps its nodes' clocks between launches (a scratch list): a
// launch of another exec must start each node's clock afresh, or a node would
// inherit what a node of an earlier launch had seen. Here the second graph's
// reader, on another stream, must still race with the first graph's writer.
TEST(Graphs, ALaunchSeesNoClockOfAnEarlierLaunchsNodes) {
  constexpr Handle kGraph2 = 0x6001, kExec2 = 0x7001;
  auto t = Given();
  t.BeginCapture(kS1)
      .Kernel(kS1, "first", {W(kB, 64)})
      .Kernel(kS1, "second", {R(kB, 64)})
      .Kernel(kS1, "chained_writer", {W(kA, 64)})
      .EndCapture(kS1, kGraph)
      .Instantiate(kExec, kGraph);
  // The reader is the third node of its graph too: the slot of the node that wrote.
  t.BeginCapture(kS2)
      .Kernel(kS2, "other_first", {W(kB + 64, 64)})
      .Kernel(kS2, "other_second", {R(kB + 64, 64)})
      .Kernel(kS2, "reader", {R(kA, 64)})
      .EndCapture(kS2, kGraph2)
      .Instantiate(kExec2, kGraph2);
  t.Launch(kExec, kS1).Launch(kExec2, kS2);
  auto fs = t.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].accesses[0].op, "chained_writer");
  EXPECT_EQ(fs[0].accesses[1].op, "reader");
}

// GraphLaunch keeps a node's clock only on the exec's chain lanes (the rest
// is the launch's entry): a node on one chain must still learn, through its
// dependencies, what nodes of other chains did several hops back, and the
// stream's later work every node. n1 writes A; n2 (after n1) and n3 (after
// n1, another chain) read it; n4 (after n3) reads it; n6 (after n2 and n4)
// writes A again. With n5, which depends on nothing, reading A, only n5 races.
TEST(Graphs, NodesOfSeveralChainsAreOrderedThroughTheirDependencies) {
  for (const bool with_n5 : {false, true}) {
    auto t = Given();
    t.GraphCreate(kGraph).GraphKernelNode(kGraph, 1, {}, "n1", {W(kA, 64)});
    t.GraphKernelNode(kGraph, 2, {1}, "n2", {R(kA, 64)}).GraphKernelNode(kGraph, 3, {1}, "n3", {R(kA, 64)});
    t.GraphKernelNode(kGraph, 4, {3}, "n4", {R(kA, 64)});
    if (with_n5) t.GraphKernelNode(kGraph, 5, {}, "n5", {R(kA, 64)});
    t.GraphKernelNode(kGraph, 6, {2, 4}, "n6", {W(kA, 64), W(kB, 64)});
    // Twice: the second launch's first nodes come after the first launch's last.
    t.Instantiate(kExec, kGraph).Launch(kExec, kS1).Launch(kExec, kS1);
    t.Kernel(kS1, "after", {RW(kA, 64), RW(kB, 64)}).Record(kE, kS1).Wait(kS2, kE).Kernel(kS2, "later", {W(kA, 64)});
    auto fs = t.Run();
    if (!with_n5) {
      EXPECT_TRUE(fs.empty()) << Summary(fs);
      continue;
    }
    ASSERT_FALSE(fs.empty());
    for (const Finding& f : fs)
      EXPECT_TRUE(f.accesses[0].op == "n5" || f.accesses[1].op == "n5") << Summary(fs);
  }
}

}  // namespace
}  // namespace streamcheck::testing
