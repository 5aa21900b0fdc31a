// Fast mode guesses how far a kernel's pointer reaches (only the byte it
// starts at is certain): a race met only in guessed bytes is a possible one,
// a warning that names --precise; where both sides' certain bytes meet it
// stays an error. Each case has a racy and an ordered (fixed) variant.
#include <gtest/gtest.h>

#include "tests/runtime/finding_matchers.h"
#include "tests/runtime/trace_builder.h"

namespace streamcheck::testing {
namespace {

constexpr Handle kS1 = 0x10, kS2 = 0x20, kEvent = 0xe1;
constexpr Address kBuf = 0x10000, kPinned = 0x90000;

TraceBuilder Given() {
  TraceBuilder t;
  t.StreamCreate(kS1, kStreamNonBlocking).StreamCreate(kS2, kStreamNonBlocking).EventCreate(kEvent);
  t.Malloc(kBuf, 4096).Malloc(kPinned, 4096, MemoryKind::kPinnedHost);
  return t;
}

// Orders kS2 after everything kS1 did so far.
void Order(TraceBuilder& t) { t.Record(kEvent, kS1).Wait(kS2, kEvent); }

TEST(GuessedExtents, KernelsOnDisjointSlicesWhoseGuessesOverlapAreAWarning) {
  // The per-stream chunks of simpleStreams/simpleHyperQ: the first launch's
  // pointer is the allocation's base, guessed to reach its end, before the
  // later chunks' pointers bound it.
  auto racy = Given();
  racy.Kernel(kS1, "chunk0", {Guessed(W(kBuf, 4096))}).Kernel(kS2, "chunk1", {Guessed(W(kBuf + 2048, 2048))});
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "cross-stream-race");
  EXPECT_TRUE(fs[0].at_most_warning);
  EXPECT_EQ(SeverityOf(fs[0]), "warning");
  EXPECT_EQ(fs[0].confidence, Confidence::kPossible);
  EXPECT_NE(fs[0].message.find("possible"), std::string::npos) << fs[0].message;
  EXPECT_NE(fs[0].reason.find("--precise"), std::string::npos) << fs[0].reason;
  EXPECT_EQ(fs[0].uncertainty, std::vector<std::string>{"guessed-extent"});  // for the reports' words

  auto fixed = Given();
  fixed.Kernel(kS1, "chunk0", {Guessed(W(kBuf, 4096))});
  Order(fixed);
  fixed.Kernel(kS2, "chunk1", {Guessed(W(kBuf + 2048, 2048))});
  EXPECT_TRUE(fixed.Run().empty()) << Summary(fixed.Run());
}

TEST(GuessedExtents, TheSamePointerHandedToBothKernelsIsAnError) {
  auto racy = Given();
  racy.Kernel(kS1, "producer", {Guessed(W(kBuf, 4096))}).Kernel(kS2, "consumer", {Guessed(R(kBuf, 4096))});
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_FALSE(fs[0].at_most_warning);
  EXPECT_EQ(SeverityOf(fs[0]), "error");
  EXPECT_EQ(fs[0].confidence, Confidence::kCertain);
  EXPECT_TRUE(fs[0].uncertainty.empty());
  // The rest of the two guessed ranges counts towards the same error.
  EXPECT_EQ(fs[0].count, 1u);

  auto fixed = Given();
  fixed.Kernel(kS1, "producer", {Guessed(W(kBuf, 4096))});
  Order(fixed);
  fixed.Kernel(kS2, "consumer", {Guessed(R(kBuf, 4096))});
  EXPECT_TRUE(fixed.Run().empty()) << Summary(fixed.Run());
}

TEST(GuessedExtents, APointerFoundInsideAStructIsAGuessEvenWhereItStarts) {
  // A kernel taking a struct of device pointers by value may use any of
  // them or none: fast mode assumes every one, each wholly guessed.
  auto racy = Given();
  racy.Kernel(kS1, "uses_some_members", {InStruct(U(kBuf, 4096))}).Kernel(kS2, "reader", {Guessed(R(kBuf, 4096))});
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(SeverityOf(fs[0]), "warning");
  EXPECT_EQ(fs[0].confidence, Confidence::kPossible);

  auto fixed = Given();
  fixed.Kernel(kS1, "uses_some_members", {InStruct(U(kBuf, 4096))});
  Order(fixed);
  fixed.Kernel(kS2, "reader", {Guessed(R(kBuf, 4096))});
  EXPECT_TRUE(fixed.Run().empty()) << Summary(fixed.Run());
}

TEST(GuessedExtents, KernelsThatBothTakeTheBufferNonConstAreAWarning) {
  // simpleStreams' init_array(int* data, int* factor) on every stream reads
  // *factor through a pointer that is not const: neither launch is known to
  // write it.
  auto racy = Given();
  racy.Kernel(kS1, "init_array", {Guessed(U(kBuf, 4))}).Kernel(kS2, "init_array", {Guessed(U(kBuf, 4))});
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(SeverityOf(fs[0]), "warning");
  EXPECT_NE(fs[0].reason.find("neither is known to write"), std::string::npos) << fs[0].reason;
  EXPECT_EQ(fs[0].uncertainty, (std::vector<std::string>{"unknown-mode", "guessed-mode"}));
  // Against a pointer to const, the non-const one is the producer: an error.
  auto producer = Given();
  producer.Kernel(kS1, "fill", {Guessed(U(kBuf, 4))}).Kernel(kS2, "sum", {Guessed(R(kBuf, 4))});
  ASSERT_EQ(producer.Run().size(), 1u);
  EXPECT_EQ(SeverityOf(producer.Run()[0]), "error");

  auto fixed = Given();
  fixed.Kernel(kS1, "init_array", {Guessed(U(kBuf, 4))});
  Order(fixed);
  fixed.Kernel(kS2, "init_array", {Guessed(U(kBuf, 4))});
  EXPECT_TRUE(fixed.Run().empty()) << Summary(fixed.Run());
}

TEST(GuessedExtents, ACopyOverTheBytesAKernelPointerStartsAtIsAnError) {
  auto racy = Given();
  racy.Copy(kS1, kBuf + 1024, kPinned, 1024, CopyKind::kHostToDevice, true);
  racy.Kernel(kS2, "reader", {Guessed(R(kBuf + 1024, 3072))});
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(SeverityOf(fs[0]), "error");

  auto fixed = Given();
  fixed.Copy(kS1, kBuf + 1024, kPinned, 1024, CopyKind::kHostToDevice, true);
  Order(fixed);
  fixed.Kernel(kS2, "reader", {Guessed(R(kBuf + 1024, 3072))});
  EXPECT_TRUE(fixed.Run().empty()) << Summary(fixed.Run());
}

TEST(GuessedExtents, ACopyMetOnlyByAKernelsGuessedTailIsAWarning) {
  // The kernel's pointer starts before the copied chunk; only its guess reaches it.
  auto racy = Given();
  racy.Copy(kS1, kBuf + 2048, kPinned, 1024, CopyKind::kHostToDevice, true);
  racy.Kernel(kS2, "reader", {Guessed(R(kBuf, 4096))});
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(SeverityOf(fs[0]), "warning");
  EXPECT_EQ(fs[0].accesses[0].address, kBuf + 2048);  // the copy's bytes, not the kernel's first one
}

TEST(GuessedExtents, ExactAccessesOverlappingAnywhereAreAnError) {
  // What --precise and framework ops give: every byte observed.
  auto racy = Given();
  racy.Kernel(kS1, "writer", {W(kBuf + 100, 100)}).Kernel(kS2, "reader", {R(kBuf, 4096)});
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(SeverityOf(fs[0]), "error");
  EXPECT_EQ(fs[0].confidence, Confidence::kCertain);

  auto disjoint = Given();
  disjoint.Kernel(kS1, "writer", {W(kBuf, 2048)}).Kernel(kS2, "writer2", {W(kBuf + 2048, 2048)});
  EXPECT_TRUE(disjoint.Run().empty()) << Summary(disjoint.Run());
}

TEST(GuessedExtents, ACertainRaceOfTheSameTwoSitesLaterIsStillReportedAsAnError) {
  // Iteration 1 meets only in guessed bytes (a warning); iteration 2 hands the
  // same pointer to both: the same two call sites, now an error of their own.
  TraceBuilder body;
  body.Kernel(kS1, "producer", {Guessed(W(kBuf, 4096))}).Kernel(kS2, "consumer", {Guessed(R(kBuf + 8, 8))});
  TraceBuilder same_pointer;
  same_pointer.Kernel(kS1, "producer", {Guessed(W(kBuf, 4096))}).Kernel(kS2, "consumer", {Guessed(R(kBuf, 8))});
  auto t = Given();
  CollectingSink sink;
  Engine engine(&sink);
  for (const auto& r : t.records()) engine.Process(r);
  for (const auto& r : body.records()) engine.Process(r);
  ASSERT_EQ(sink.findings.size(), 1u) << Summary(sink.findings);
  EXPECT_EQ(SeverityOf(sink.findings[0]), "warning");
  // The builder's stacks make each call its own site; reuse the first
  // builder's records with the pointer changed so the sites stay the same.
  std::vector<TraceRecord> again = body.records();
  for (TraceRecord& r : again)
    for (MemoryAccess& a : r.accesses)
      if (a.addr == kBuf + 8) a.addr = kBuf;
  for (const auto& r : again) engine.Process(r);
  engine.Finish();
  ASSERT_EQ(sink.findings.size(), 3u) << Summary(sink.findings);
  EXPECT_EQ(SeverityOf(sink.findings[1]), "warning");  // write-after-read of the second iteration's write
  EXPECT_EQ(SeverityOf(sink.findings[2]), "error");
  EXPECT_EQ(sink.findings[2].kind, FindingKind::kReadAfterWrite);
  // The warning and the error of the same two sites are two findings, to
  // reports that fold ranks' findings by fingerprint and to baselines too.
  EXPECT_EQ(sink.findings[0].kind, FindingKind::kReadAfterWrite);
  EXPECT_NE(sink.findings[0].fingerprint, sink.findings[2].fingerprint);
}

TEST(GuessedExtents, TheGuessedFlagSurvivesHostAccesses) {
  // A host access is always exact: a guessed kernel extent reaching the
  // bytes the host writes is only possible.
  auto racy = Given();
  racy.Kernel(kS1, "reader", {Guessed(R(kPinned, 4096))}).HostWrite(kPinned + 64, 64);
  const auto fs = racy.Run();
  ASSERT_EQ(fs.size(), 1u) << Summary(fs);
  EXPECT_EQ(fs[0].rule, "host-device-race");
  EXPECT_EQ(SeverityOf(fs[0]), "warning");

  auto certain = Given();
  certain.Kernel(kS1, "reader", {Guessed(R(kPinned, 4096))}).HostWrite(kPinned, 64);
  ASSERT_EQ(certain.Run().size(), 1u);
  EXPECT_EQ(SeverityOf(certain.Run()[0]), "error");

  auto fixed = Given();
  fixed.Kernel(kS1, "reader", {Guessed(R(kPinned, 4096))}).StreamSync(kS1).HostWrite(kPinned + 64, 64);
  EXPECT_TRUE(fixed.Run().empty()) << Summary(fixed.Run());
}

TEST(GuessedExtents, SeverityFollowsTheRuleForCertainFindings) {
  Finding f;
  f.rule = "cross-stream-race";
  EXPECT_EQ(SeverityOf(f), "error");
  f.at_most_warning = true;
  EXPECT_EQ(SeverityOf(f), "warning");
  f.rule = "wait-on-unrecorded-event";
  EXPECT_EQ(SeverityOf(f), "warning");
  f.rule = "no-such-rule";
  EXPECT_EQ(SeverityOf(f), "warning");
}

}  // namespace
}  // namespace streamcheck::testing
