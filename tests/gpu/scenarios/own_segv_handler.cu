// A program with its own SIGSEGV handler (installed before CUDA starts, as a
// runtime or a crash reporter does) that it relies on: it reads a page it
// made inaccessible and recovers in the handler. The guard pages' faults must
// never reach that handler, and its own fault must reach it exactly as
// without the tracer. Racy: a pinned buffer is read while a copy fills it.
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#include "host_access.cuh"

static sigjmp_buf g_jump;
static volatile int g_calls = 0;
static void OnSegv(int, siginfo_t*, void*) {
  g_calls = g_calls + 1;
  siglongjmp(g_jump, 1);
}

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  struct sigaction sa {};
  sa.sa_sigaction = OnSegv;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
  PinnedCopyInFlight copy;
  if (!racy) CHECK(cudaStreamSynchronize(copy.stream));
  HostRead(copy.pinned, kN);
  auto* own = static_cast<volatile char*>(mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (sigsetjmp(g_jump, 1) == 0) (void)own[0];
  copy.Free();
  std::printf("own handler calls: %d\n", g_calls);
  Done("own_segv_handler", racy);
  return 0;
}
