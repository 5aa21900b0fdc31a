// tracer/preload/nccl_interposers.c against a stand-in NCCL
// (tests/tracer/fake_nccl/): every call reaches NCCL's own function with its
// arguments and result unchanged, hooks registered as the tracer registers
// them see each call around it with what the communicator says of itself,
// NCCL's own calls of its API nest inside the program's, and it works
// whether NCCL is in the global scope or in a local one.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/run_command.h"

namespace {

using Outcome = streamcheck::testing::CommandResult;

Outcome RunProbe(bool preload, const std::string& scope, const std::string& hooks) {
  return streamcheck::testing::RunCommand((preload ? std::string("LD_PRELOAD=") + EXIT_HOOK_LIB + " " : "") +
                                          NCCL_INTERPOSER_PROBE + " " + scope + " " + FAKE_NCCL_PROGRAM + " " + hooks);
}

const char kNcclCalls[] =
    "nccl: ncclAllReduce\n"
    "nccl: ncclBcast\n"
    "nccl: ncclBroadcast\n"
    "nccl: ncclGroupStart\n"
    "nccl: ncclSend\n"
    "nccl: ncclRecv\n"
    "nccl: ncclGroupEnd\n"
    "nccl: ncclAllGather\n"
    "nccl: ncclAllReduce\n"
    "nccl: ncclCommDestroy\n";
const char kProgramEnd[] =
    "program: results 0, failed call 2\n"
    "calls that reached nccl: 10\n";

TEST(NcclInterposers, HooksSeeEveryCallAroundNcclsOwn) {
  const Outcome o = RunProbe(true, "global", "hooked");
  EXPECT_EQ(o.exit_code, 0);
  const std::string facts = " stream=0x5000 nranks=4 rank=1 device=3\n";
  EXPECT_EQ(o.output,
            "preloaded: yes\n"
            "enter ncclAllReduce function=1 send=0x10000 recv=0x80000 count=100 type=7 root=-1" + facts +
            "nccl: ncclAllReduce\n"
            "leave ncclAllReduce result=0\n"
            "enter ncclBcast function=3 send=0x10000 recv=0x10000 count=8 type=4 root=0" + facts +
            "nccl: ncclBcast\n"
            "enter ncclBroadcast function=2 send=0x10000 recv=0x10000 count=8 type=4 root=0" + facts +
            "nccl: ncclBroadcast\n"
            "leave ncclBroadcast result=0\n"
            "leave ncclBcast result=0\n"
            "enter ncclGroupStart function=12\n"
            "nccl: ncclGroupStart\n"
            "leave ncclGroupStart result=0\n"
            "enter ncclSend function=10 send=0x10000 recv=0 count=16 type=7 root=2" + facts +
            "nccl: ncclSend\n"
            "leave ncclSend result=0\n"
            "enter ncclRecv function=11 send=0 recv=0x80000 count=16 type=7 root=2" + facts +
            "nccl: ncclRecv\n"
            "leave ncclRecv result=0\n"
            "enter ncclGroupEnd function=13\n"
            "nccl: ncclGroupEnd\n"
            "leave ncclGroupEnd result=0\n"
            "enter ncclAllGather function=5 send=0x10000 recv=0x80000 count=32 type=6 root=-1" + facts +
            "nccl: ncclAllGather\n"
            "leave ncclAllGather result=0\n"
            "enter ncclAllReduce function=1 send=0x10000 recv=0x80000 count=1 type=7 root=-1" + facts +
            "nccl: ncclAllReduce\n"
            "leave ncclAllReduce result=2\n"
            "enter ncclCommDestroy function=0\n"
            "nccl: ncclCommDestroy\n"
            "leave ncclCommDestroy result=0\n" +
            kProgramEnd);
}

// Python loads extensions (and with them PyTorch's NCCL) into scopes of
// their own: the program's calls still reach the interposers, which find
// NCCL by its name among the loaded libraries.
TEST(NcclInterposers, NcclInALocalScopeIsFoundToo) {
  const Outcome global = RunProbe(true, "global", "hooked");
  const Outcome local = RunProbe(true, "local", "hooked");
  EXPECT_EQ(local.exit_code, 0);
  EXPECT_EQ(local.output, global.output);
}

TEST(NcclInterposers, WithoutHooksCallsOnlyPassThrough) {
  for (const char* scope : {"global", "local"}) {
    const Outcome o = RunProbe(true, scope, "unhooked");
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(o.output, std::string("preloaded: yes\n") + kNcclCalls + kProgramEnd) << scope;
  }
  const Outcome o = RunProbe(false, "global", "hooked");
  EXPECT_EQ(o.output, std::string("preloaded: no\n") + kNcclCalls + kProgramEnd);
}

}  // namespace
