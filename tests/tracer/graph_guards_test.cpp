// Which pages a graph's launch guards (tracer/host/graph_guards.h): the
// captured work of every stream that joined the capture, the nodes added by
// the API, carried to the graph's instantiations; nothing of a stream outside
// the capture, nothing once the exec is destroyed.
#include "tracer/host/graph_guards.h"

#include <gtest/gtest.h>

namespace streamcheck::tracer::host {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kS3 = 0x30, kEvent = 0xe0, kGraph = 0x600, kExec = 0x700;

TraceRecord On(OpCode op, Handle stream = 0) {
  TraceRecord r;
  r.op = op;
  r.stream = stream;
  r.thread = 1;
  return r;
}

std::vector<GuardTable::Range> Bytes(Address at) { return {{at, 64, true}}; }

TEST(GraphGuards, AGraphLaunchGuardsTheWorkOfEveryStreamItsCaptureJoined) {
  GraphGuards g;
  EXPECT_FALSE(g.Captured(On(OpCode::kStreamBeginCapture, kS1), {}));
  EXPECT_TRUE(g.Captured(On(OpCode::kKernelLaunch, kS1), Bytes(0x1000)));
  TraceRecord record = On(OpCode::kEventRecord, kS1);
  record.event = kEvent;
  g.Captured(record, {});
  TraceRecord wait = On(OpCode::kStreamWaitEvent, kS2);
  wait.event = kEvent;
  g.Captured(wait, {});  // s2 joins the capture (cross-stream capture)
  EXPECT_TRUE(g.Captured(On(OpCode::kMemcpy, kS2), Bytes(0x2000)));
  EXPECT_FALSE(g.Captured(On(OpCode::kMemcpy, kS3), Bytes(0x3000)));  // not in the capture: runs now
  TraceRecord end = On(OpCode::kStreamEndCapture, kS1);
  end.graph = kGraph;
  g.Captured(end, {});
  EXPECT_FALSE(g.Captured(On(OpCode::kKernelLaunch, kS2), Bytes(0x4000)));  // the capture ended for s2 too
  TraceRecord instantiate = On(OpCode::kGraphInstantiate);
  instantiate.graph = kGraph;
  instantiate.graph_exec = kExec;
  g.Captured(instantiate, {});
  const std::vector<GuardTable::Range>* pages = g.OfExec(kExec);
  ASSERT_NE(pages, nullptr);
  ASSERT_EQ(pages->size(), 2u);
  EXPECT_EQ((*pages)[0].begin, 0x1000u);
  EXPECT_EQ((*pages)[1].begin, 0x2000u);
  TraceRecord destroy = On(OpCode::kGraphExecDestroy);
  destroy.graph_exec = kExec;
  g.Captured(destroy, {});
  EXPECT_EQ(g.OfExec(kExec), nullptr);
}

TEST(GraphGuards, NodesAddedByTheApiGoWithTheirGraph) {
  GraphGuards g;
  g.AddNode(kGraph, Bytes(0x1000));
  g.AddNode(kGraph, {});  // a node on device memory only
  TraceRecord instantiate = On(OpCode::kGraphInstantiate);
  instantiate.graph = kGraph;
  instantiate.graph_exec = kExec;
  g.Captured(instantiate, {});
  ASSERT_NE(g.OfExec(kExec), nullptr);
  EXPECT_EQ(g.OfExec(kExec)->size(), 1u);
  // A graph of device memory alone guards nothing at its launch.
  TraceRecord other = instantiate;
  other.graph = 0x601;
  other.graph_exec = 0x701;
  g.Captured(other, {});
  EXPECT_EQ(g.OfExec(0x701), nullptr);
}

}  // namespace
}  // namespace streamcheck::tracer::host
