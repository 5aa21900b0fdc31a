// tracer/preload/mpi_interposers.c against stand-in MPIs of both ABIs
// (tests/tracer/fake_mpi/): every call reaches MPI's own function with its
// arguments, result and errno unchanged; hooks registered as the tracer
// registers them see each call around it with the bytes its datatype and
// count span (MPI_IN_PLACE, the root of a broadcast), the requests it
// starts and which ones a wait or test completed, whether MPI's handles are
// pointers (Open MPI) or ints (MPICH), and whether MPI is in the global
// scope or a local one (mpi4py). A process without MPI does not appear to
// have it.
#include <gtest/gtest.h>

#include <string>

#include "tests/common/run_command.h"

namespace {

using Outcome = streamcheck::testing::CommandResult;

Outcome RunProbe(bool preload, const std::string& scope, const char* program, const std::string& hooks,
                 const std::string& entry = "") {
  return streamcheck::testing::RunCommand((preload ? std::string("LD_PRELOAD=") + EXIT_HOOK_LIB + " " : "") +
                                          MPI_INTERPOSER_PROBE + " " + scope + " " + program + " " + hooks + " " +
                                          entry);
}

size_t Count(const std::string& text, const std::string& word) {
  size_t n = 0;
  for (size_t at = text.find(word); at != std::string::npos; at = text.find(word, at + word.size())) ++n;
  return n;
}

// `entry` of mpi_program.c, hooked, under both ABIs: the hooks see `expected`
// around MPI's own calls, `calls` of which reached MPI.
void ExpectHookedCalls(const std::string& entry, const std::string& expected, int calls) {
  for (const char* program : {FAKE_MPI_PROGRAM_OMPI, FAKE_MPI_PROGRAM_MPICH}) {
    const Outcome o = RunProbe(true, "global", program, "hooked", entry);
    EXPECT_EQ(o.exit_code, 0) << o.output;
    EXPECT_EQ(o.output, "preloaded: yes\nMPI_Init visible: no\n" + expected + "calls that reached mpi: " +
                            std::to_string(calls) + "\n")
        << entry << " with " << program;
  }
}

const char kMpiCalls[] =
    "mpi: MPI_Send\nmpi: MPI_Recv\nmpi: MPI_Irecv\nmpi: MPI_Isend\nmpi: MPI_Test\nmpi: MPI_Waitany\n"
    "mpi: MPI_Waitall\nmpi: MPI_Bcast\nmpi: MPI_Bcast\nmpi: MPI_Allreduce\nmpi: MPI_Iallreduce\nmpi: MPI_Wait\n"
    "mpi: MPI_Send_init\nmpi: MPI_Start\nmpi: MPI_Test\nmpi: MPI_Request_free\nmpi: MPI_Send\n";
const char kProgramEnd[] =
    "program: results 0, failed call 1, errno 42\n"
    "calls that reached mpi: 17\n";

// In-place is 1 in Open MPI and -1 in MPICH; the rest is the same.
std::string HookedOutput() {
  return std::string("preloaded: yes\nMPI_Init visible: no\n") +
         "enter MPI_Send kind=1 buffer=0x10000+40:1\nmpi: MPI_Send\nleave MPI_Send result=0\n"
         "enter MPI_Recv kind=1 buffer=0x80000+32:2\nmpi: MPI_Recv\nleave MPI_Recv result=0\n"
         "enter MPI_Irecv kind=2 buffer=0x80000+64:2\nmpi: MPI_Irecv\nleave MPI_Irecv result=0 new_request=0x700\n"
         "enter MPI_Isend kind=2 buffer=0x10000+64:1\nmpi: MPI_Isend\nleave MPI_Isend result=0 new_request=0x701\n"
         "enter MPI_Test kind=5 request=0x700\nmpi: MPI_Test\nleave MPI_Test result=0 completed=0\n"
         "enter MPI_Waitany kind=5 request=0x700 request=0x701\nmpi: MPI_Waitany\n"
         "leave MPI_Waitany result=0 completed=0 completed=1\n"
         "enter MPI_Waitall kind=5 request=0x700\nmpi: MPI_Waitall\nleave MPI_Waitall result=0 completed=1\n"
         "enter MPI_Bcast kind=1 buffer=0x10000+24:1\nmpi: MPI_Bcast\nleave MPI_Bcast result=0\n"
         "enter MPI_Bcast kind=1 buffer=0x80000+24:2\nmpi: MPI_Bcast\nleave MPI_Bcast result=0\n"
         "enter MPI_Allreduce kind=1 buffer=0x80000+20:3\nmpi: MPI_Allreduce\nleave MPI_Allreduce result=0\n"
         "enter MPI_Iallreduce kind=2 buffer=0x10000+16:1 buffer=0x80000+16:2\nmpi: MPI_Iallreduce\n"
         "leave MPI_Iallreduce result=0 new_request=0x702\n"
         "enter MPI_Wait kind=5 request=0x702\nmpi: MPI_Wait\nleave MPI_Wait result=0 completed=1\n"
         "enter MPI_Send_init kind=3 buffer=0x10000+8:1\nmpi: MPI_Send_init\n"
         "leave MPI_Send_init result=0 new_request=0x703\n"
         "enter MPI_Start kind=4 request=0x703\nmpi: MPI_Start\nleave MPI_Start result=0\n"
         "enter MPI_Test kind=5 request=0x703\nmpi: MPI_Test\nleave MPI_Test result=0 completed=1\n"
         "enter MPI_Request_free kind=6 request=0x703\nmpi: MPI_Request_free\nleave MPI_Request_free result=0\n"
         "enter MPI_Send kind=1 buffer=0x10000+4:1\nmpi: MPI_Send\nleave MPI_Send result=1\n" +
         kProgramEnd;
}

TEST(MpiInterposers, HooksSeeEveryCallAroundMpisOwnWithOpenMpisAbi) {
  const Outcome o = RunProbe(true, "global", FAKE_MPI_PROGRAM_OMPI, "hooked");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.output, HookedOutput());
}

TEST(MpiInterposers, HooksSeeEveryCallAroundMpisOwnWithMpichsAbi) {
  const Outcome o = RunProbe(true, "global", FAKE_MPI_PROGRAM_MPICH, "hooked");
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.output, HookedOutput());
}

// mpi4py's extension is loaded into a scope of its own, and MPI with it.
TEST(MpiInterposers, MpiInALocalScopeIsFoundToo) {
  for (const char* program : {FAKE_MPI_PROGRAM_OMPI, FAKE_MPI_PROGRAM_MPICH}) {
    const Outcome o = RunProbe(true, "local", program, "hooked");
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(o.output, HookedOutput()) << program;
  }
}

// A wait on more requests than the interposers keep in their frame follows
// every one of them: each is handed to the hooks and marked completed (a
// request left out would keep its receive buffer in use for ever).
TEST(MpiInterposers, AWaitOnAHundredRequestsCompletesEveryOne) {
  for (const char* program : {FAKE_MPI_PROGRAM_OMPI, FAKE_MPI_PROGRAM_MPICH}) {
    const Outcome o = RunProbe(true, "global", program, "hooked", "run_many_requests");
    EXPECT_EQ(o.exit_code, 0) << o.output;
    const size_t enter = o.output.find("enter MPI_Waitall");
    const size_t leave = o.output.find("leave MPI_Waitall");
    ASSERT_NE(enter, std::string::npos) << o.output;
    ASSERT_NE(leave, std::string::npos) << o.output;
    const std::string entered = o.output.substr(enter, o.output.find('\n', enter) - enter);
    const std::string left = o.output.substr(leave, o.output.find('\n', leave) - leave);
    EXPECT_EQ(Count(entered, " request="), 100u) << entered;
    EXPECT_NE(entered.find("request=0x700 "), std::string::npos) << entered;
    EXPECT_NE(entered.find("request=0x763"), std::string::npos) << entered;  // the 100th
    EXPECT_EQ(Count(left, " completed=1"), 100u) << left;
    EXPECT_EQ(Count(left, " completed=0"), 0u) << left;
  }
}

// The v collectives give each side the bytes from the lowest block to the
// highest (counts {3, 5} at elements {8, 2} of 4 bytes: 0x08 to 0x2c), the
// root's blocks only at the root, the other side's own count, MPI_IN_PLACE's
// blocks read and written, and a reduce-scatter this rank's count of the sum.
TEST(MpiInterposers, TheVCollectivesSpanTheirBlocks) {
  const std::string expected =
      "enter MPI_Gatherv kind=1 buffer=0x10000+20:1 buffer=0x80008+36:2\nmpi: MPI_Gatherv\n"
      "leave MPI_Gatherv result=0\n"
      "enter MPI_Gatherv kind=1 buffer=0x10000+20:1\nmpi: MPI_Gatherv\nleave MPI_Gatherv result=0\n"
      "enter MPI_Scatterv kind=1 buffer=0x10008+36:1 buffer=0x80000+20:2\nmpi: MPI_Scatterv\n"
      "leave MPI_Scatterv result=0\n"
      "enter MPI_Allgatherv kind=1 buffer=0x80008+36:3\nmpi: MPI_Allgatherv\nleave MPI_Allgatherv result=0\n"
      "enter MPI_Ialltoallv kind=2 buffer=0x10008+36:1 buffer=0x80008+36:2\nmpi: MPI_Ialltoallv\n"
      "leave MPI_Ialltoallv result=0 new_request=0x700\n"
      "enter MPI_Wait kind=5 request=0x700\nmpi: MPI_Wait\nleave MPI_Wait result=0 completed=1\n"
      "enter MPI_Reduce_scatter kind=1 buffer=0x10000+32:1 buffer=0x80000+20:2\nmpi: MPI_Reduce_scatter\n"
      "leave MPI_Reduce_scatter result=0\n";
  ExpectHookedCalls("run_v_collectives", expected, 7);
}

// Persistent collectives make a request with their buffers (kind 3, as
// MPI_Send_init), which MPI_Start starts.
TEST(MpiInterposers, PersistentCollectivesAreMadeWithTheirBuffers) {
  const std::string expected =
      "enter MPI_Allreduce_init kind=3 buffer=0x10000+24:1 buffer=0x80000+24:2\nmpi: MPI_Allreduce_init\n"
      "leave MPI_Allreduce_init result=0 new_request=0x700\n"
      "enter MPI_Bcast_init kind=3 buffer=0x80000+8:2\nmpi: MPI_Bcast_init\n"
      "leave MPI_Bcast_init result=0 new_request=0x701\n"
      "enter MPI_Start kind=4 request=0x700\nmpi: MPI_Start\nleave MPI_Start result=0\n"
      "enter MPI_Wait kind=5 request=0x700\nmpi: MPI_Wait\nleave MPI_Wait result=0 completed=1\n";
  ExpectHookedCalls("run_persistent_collectives", expected, 4);
}

// The large-count _c forms give the bytes of a count past an int's range.
TEST(MpiInterposers, LargeCountCallsSpanAllTheirBytes) {
  const std::string expected =
      "enter MPI_Send_c kind=1 buffer=0x10000+12000000000:1\nmpi: MPI_Send_c\nleave MPI_Send_c result=0\n"
      "enter MPI_Iallreduce_c kind=2 buffer=0x10000+12000000000:1 buffer=0x80000+12000000000:2\n"
      "mpi: MPI_Iallreduce_c\nleave MPI_Iallreduce_c result=0 new_request=0x700\n"
      "enter MPI_Wait kind=5 request=0x700\nmpi: MPI_Wait\nleave MPI_Wait result=0 completed=1\n";
  ExpectHookedCalls("run_large_counts", expected, 3);
}

// Over an MPI before 4.0, a program that takes the large-count forms where
// the process has them (mpi4py does) finds the preload's: a count that fits
// goes to MPI's int form, seen as that call, and the program's result is
// unchanged (before, MPI_ERR_OTHER, and mpi4py's Recv failed).
TEST(MpiInterposers, LargeCountFormsOverAnMpiWithoutThemUseTheIntForms) {
  const Outcome o = RunProbe(true, "global", FAKE_MPI_PROGRAM_OMPI31, "hooked", "run_large_counts_that_fit");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_EQ(o.output,
            "preloaded: yes\nMPI_Init visible: no\n"
            "enter MPI_Send kind=1 buffer=0x10000+40:1\nmpi: MPI_Send\nleave MPI_Send result=0\n"
            "enter MPI_Iallreduce kind=2 buffer=0x10000+64:1 buffer=0x80000+64:2\n"
            "mpi: MPI_Iallreduce\nleave MPI_Iallreduce result=0 new_request=0x700\n"
            "enter MPI_Wait kind=5 request=0x700\nmpi: MPI_Wait\nleave MPI_Wait result=0 completed=1\n"
            "calls that reached mpi: 3\n");
}

// One-sided calls start an operation with a request made by the
// interposers, which the window's synchronization completes: a flush only
// its target's, a fence and an unlock of every target the window's.
TEST(MpiInterposers, OneSidedCallsEndAtTheirWindowsSynchronization) {
  const std::string expected =
      "enter MPI_Put kind=2 buffer=0x10000+16:1\nmpi: MPI_Put\nleave MPI_Put result=0 new_request=0xfff0000000000001\n"
      "enter MPI_Get kind=2 buffer=0x80000+16:2\nmpi: MPI_Get\nleave MPI_Get result=0 new_request=0xfff0000000000002\n"
      "enter MPI_Put kind=2 buffer=0x10040+4:1\nmpi: MPI_Put\nleave MPI_Put result=0 new_request=0xfff0000000000003\n"
      "enter MPI_Win_flush kind=5 request=0xfff0000000000001\nmpi: MPI_Win_flush\n"
      "leave MPI_Win_flush result=0 completed=1\n"
      "enter MPI_Win_fence kind=5 request=0xfff0000000000002\nmpi: MPI_Win_fence\n"
      "leave MPI_Win_fence result=0 completed=1\n"
      "enter MPI_Rput kind=2 buffer=0x10000+4:1\nmpi: MPI_Rput\nleave MPI_Rput result=0 new_request=0x700\n"
      "enter MPI_Wait kind=5 request=0x700\nmpi: MPI_Wait\nleave MPI_Wait result=0 completed=1\n"
      "enter MPI_Fetch_and_op kind=2 buffer=0x10000+8:1 buffer=0x80000+8:2\nmpi: MPI_Fetch_and_op\n"
      "leave MPI_Fetch_and_op result=0 new_request=0xfff0000000000004\n"
      "enter MPI_Win_unlock_all kind=5 request=0xfff0000000000003 request=0xfff0000000000004\n"
      "mpi: MPI_Win_unlock_all\nleave MPI_Win_unlock_all result=0 completed=1 completed=1\n";
  ExpectHookedCalls("run_one_sided", expected, 9);
}

// Without hooks (no tracer, or before cuInit) and without the preloaded
// library, the program sees the same calls, results and errno.
TEST(MpiInterposers, WithoutATracerTheProgramRunsAsWithoutThem) {
  for (const char* program : {FAKE_MPI_PROGRAM_OMPI, FAKE_MPI_PROGRAM_MPICH}) {
    const Outcome unhooked = RunProbe(true, "local", program, "unhooked");
    const Outcome bare = RunProbe(false, "local", program, "unhooked");
    EXPECT_EQ(unhooked.exit_code, 0);
    EXPECT_EQ(unhooked.output, std::string("preloaded: yes\nMPI_Init visible: no\n") + kMpiCalls + kProgramEnd);
    EXPECT_EQ(bare.output, std::string("preloaded: no\nMPI_Init visible: no\n") + kMpiCalls + kProgramEnd);
  }
}

}  // namespace
