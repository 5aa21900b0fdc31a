// The preloaded library's interposers in a real program (thread_order_probe):
// each kind of synchronization hands the main thread's knowledge to another
// thread (epoch 2), or, where it orders nothing, does not (epoch 1).
#include <gtest/gtest.h>

#include <string>

#include "tests/common/run_command.h"

namespace {

std::string Probe(const std::string& check, const std::string& preload = EXIT_HOOK_LIB,
                  const std::string& mode = "") {
  const auto r = streamcheck::testing::RunCommand((preload.empty() ? "" : "LD_PRELOAD=" + preload + " ") +
                                                  THREAD_ORDER_PROBE + " " + check + " " + mode + " 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return r.output;
}

TEST(ThreadOrderPreload, EachSynchronizationHandsKnowledgeOver) {
  for (const char* check : {"mutex", "trylock", "timedlock", "recursive", "spinlock", "rwlock-write-read",
                            "rwlock-read-write", "condition", "semaphore", "semaphore-timed", "barrier", "once",
                            "create", "join"})
    EXPECT_EQ(Probe(check), std::string(check) + " 2\n");
}

TEST(ThreadOrderPreload, ForkedChildrenDoNotInheritHeldLocks) {
  EXPECT_EQ(Probe("fork"), "fork 2\n");
}

TEST(ThreadOrderPreload, WhatOrdersNothingHandsNothingOver) {
  EXPECT_EQ(Probe("atomic"), "atomic 1\n");  // lock-free handovers are not seen
  EXPECT_EQ(Probe("rwlock-read-read"), "rwlock-read-read 1\n");  // readers are not ordered with each other
}

TEST(ThreadOrderPreload, CallsFromIgnoredCodeAreNotObserved) {
  // What the tracer does for the CUDA driver's, CUPTI's and its own code.
  EXPECT_EQ(Probe("mutex", EXIT_HOOK_LIB, "ignore-main"), "mutex 1\n");
}

TEST(ThreadOrderPreload, CodeIgnoredLaterIsNotObservedFromThen) {
  // A thread remembers each call site's verdict; ranges added later (the
  // tracer's plugins, libraries loaded since) still leave those sites out.
  EXPECT_EQ(Probe("ignored-later"), "ignored-later 2\nignored-later 2\n");
}

TEST(ThreadOrderPreload, WithoutTheLibraryTheProgramRunsAsItIs) {
  EXPECT_EQ(Probe("mutex", ""), "no library\n");
}

}  // namespace
