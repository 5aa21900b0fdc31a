// tracer/libraries/mpi/mpi_operations.h: which MPI calls start and end
// operations, by the MPI standard's "Nonblocking Communication": a blocking
// call around itself, a nonblocking one until the wait or test that
// completes its request (a test that says "not yet" ends nothing), a
// persistent request at each MPI_Start, a failed call at once.
#include "tracer/libraries/mpi/mpi_operations.h"

#include <gtest/gtest.h>

namespace streamcheck::tracer {
namespace {

StreamcheckMpiCall Call(int32_t kind, const char* name) {
  StreamcheckMpiCall c{};
  c.kind = kind;
  c.name = name;
  return c;
}

StreamcheckMpiCall WithBuffer(StreamcheckMpiCall c, uint64_t address, uint64_t size, int32_t mode) {
  c.buffers[c.buffer_count++] = {address, size, mode};
  return c;
}

std::string Describe(const std::vector<MpiRecord>& records) {
  std::string out;
  for (const MpiRecord& r : records) {
    out += std::string(OpCodeName(r.op)) + " " + std::to_string(r.id);
    for (const MemoryAccess& a : r.accesses)
      out += " " + std::to_string(a.addr) + "+" + std::to_string(a.size) + ":" + std::string(AccessModeName(a.mode));
    out += "\n";
  }
  return out;
}

TEST(MpiRequests, ABlockingCallIsOneOperationAroundIt) {
  MpiRequests requests;
  std::vector<MpiRecord> out;
  std::string problem;
  StreamcheckMpiCall send = WithBuffer(Call(STREAMCHECK_MPI_BLOCKING, "MPI_Send"), 4096, 40, STREAMCHECK_MPI_READ);
  requests.Enter(&send, &out, &problem);
  EXPECT_EQ(Describe(out), "mpi_start 1 4096+40:read\n");
  out.clear();
  requests.Leave(send, &out);
  EXPECT_EQ(Describe(out), "mpi_complete 1\n");
  EXPECT_TRUE(problem.empty());
}

TEST(MpiRequests, ANonblockingCallEndsAtTheCompletionOfItsRequest) {
  MpiRequests requests;
  std::vector<MpiRecord> out;
  std::string problem;
  StreamcheckMpiCall irecv = WithBuffer(Call(STREAMCHECK_MPI_NONBLOCKING, "MPI_Irecv"), 8192, 64, STREAMCHECK_MPI_WRITE);
  requests.Enter(&irecv, &out, &problem);
  irecv.new_request = 0x700;
  requests.Leave(irecv, &out);
  EXPECT_EQ(Describe(out), "mpi_start 1 8192+64:write\n");
  EXPECT_EQ(requests.pending(), 1u);

  const uint64_t handles[] = {0x700};
  uint8_t completed[] = {0};
  StreamcheckMpiCall test = Call(STREAMCHECK_MPI_COMPLETE, "MPI_Test");
  test.requests = handles;
  test.request_count = 1;
  test.completed = completed;
  out.clear();
  requests.Enter(&test, &out, &problem);
  requests.Leave(test, &out);
  EXPECT_TRUE(out.empty()) << "a test that said not yet";
  completed[0] = 1;
  requests.Leave(test, &out);
  EXPECT_EQ(Describe(out), "mpi_complete 1\n");
  EXPECT_EQ(requests.pending(), 0u);
}

TEST(MpiRequests, AFailedNonblockingCallEndsAtOnce) {
  MpiRequests requests;
  std::vector<MpiRecord> out;
  std::string problem;
  StreamcheckMpiCall isend = WithBuffer(Call(STREAMCHECK_MPI_NONBLOCKING, "MPI_Isend"), 1, 1, STREAMCHECK_MPI_READ);
  requests.Enter(&isend, &out, &problem);
  isend.result = 1;
  requests.Leave(isend, &out);
  EXPECT_EQ(Describe(out), "mpi_start 1 1+1:read\nmpi_complete 1\n");
  EXPECT_EQ(requests.pending(), 0u);
}

TEST(MpiRequests, APersistentRequestStartsAnOperationAtEachStart) {
  MpiRequests requests;
  std::vector<MpiRecord> out;
  std::string problem;
  StreamcheckMpiCall init = WithBuffer(Call(STREAMCHECK_MPI_PERSISTENT_INIT, "MPI_Send_init"), 64, 8, STREAMCHECK_MPI_READ);
  requests.Enter(&init, &out, &problem);
  init.new_request = 0x900;
  requests.Leave(init, &out);
  EXPECT_TRUE(out.empty()) << "making the request moves nothing";
  const uint64_t handles[] = {0x900};
  const uint8_t done[] = {1};
  for (int round = 0; round < 2; ++round) {
    StreamcheckMpiCall start = Call(STREAMCHECK_MPI_START, "MPI_Start");
    start.requests = handles;
    start.request_count = 1;
    requests.Enter(&start, &out, &problem);
    requests.Leave(start, &out);
    StreamcheckMpiCall wait = Call(STREAMCHECK_MPI_COMPLETE, "MPI_Wait");
    wait.requests = handles;
    wait.request_count = 1;
    wait.completed = done;
    requests.Leave(wait, &out);
  }
  EXPECT_EQ(Describe(out), "mpi_start 1 64+8:read\nmpi_complete 1\nmpi_start 2 64+8:read\nmpi_complete 2\n");
  StreamcheckMpiCall free_call = Call(STREAMCHECK_MPI_FREE, "MPI_Request_free");
  free_call.requests = handles;
  free_call.request_count = 1;
  requests.Leave(free_call, &out);
  out.clear();
  StreamcheckMpiCall start = Call(STREAMCHECK_MPI_START, "MPI_Start");
  start.requests = handles;
  start.request_count = 1;
  requests.Enter(&start, &out, &problem);
  EXPECT_TRUE(out.empty()) << "a freed request is not followed";
}

TEST(MpiRequests, UnknownExtentsAreNamedNotGuessed) {
  MpiRequests requests;
  std::vector<MpiRecord> out;
  std::string problem;
  StreamcheckMpiCall send = Call(STREAMCHECK_MPI_BLOCKING, "MPI_Send");
  send.unknown_extent = 1;
  requests.Enter(&send, &out, &problem);
  requests.Leave(send, &out);
  EXPECT_TRUE(out.empty());
  EXPECT_NE(problem.find("MPI_Send"), std::string::npos);
}

}  // namespace
}  // namespace streamcheck::tracer
