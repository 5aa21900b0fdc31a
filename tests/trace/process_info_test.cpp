// runtime/trace/trace_symbols.h: the process a trace came from, as replay
// reads it (a rank's trace of a distributed job keeps its rank and host).
#include <gtest/gtest.h>

#include "runtime/trace/trace_symbols.h"

namespace streamcheck {
namespace {

TEST(ProcessInfo, FieldsOfTheTracersText) {
  const std::string text = "pid=4242 rank=1 local_rank=1 host=gpu-node-3 command=python3 train.py --lr=0.1";
  EXPECT_EQ(ProcessInfoField(text, "pid"), "4242");
  EXPECT_EQ(ProcessInfoField(text, "rank"), "1");
  EXPECT_EQ(ProcessInfoField(text, "local_rank"), "1");
  EXPECT_EQ(ProcessInfoField(text, "host"), "gpu-node-3");
  EXPECT_EQ(ProcessInfoField(text, "command"), "python3 train.py --lr=0.1");
  // Only whole keys at a field's start: "lr" is in the command, not a field.
  EXPECT_EQ(ProcessInfoField(text, "lr"), "");
  EXPECT_EQ(ProcessInfoField("pid=1 command=./app", "rank"), "");
  EXPECT_EQ(ProcessInfoField("pid=1 command=./app rank=5", "rank"), "");  // the command's words are its own
  EXPECT_EQ(ProcessInfoField("", "pid"), "");
}

}  // namespace
}  // namespace streamcheck
