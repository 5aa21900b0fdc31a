// fork() while a pinned buffer's pages are guarded (its copy is pending):
// the child, which uses no CUDA, runs and exits without faulting into the
// parent's guards or hanging on the tracer's locks; the parent then reads
// the buffer, without waiting for the copy (racy) or after synchronizing.
#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "host_access.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  PinnedCopyInFlight copy;
  std::fflush(stdout);
  const pid_t child = fork();
  if (child == 0) {
    std::vector<float> plain(1 << 16, 1.0f);  // the child's own work
    HostRead(plain.data(), static_cast<int>(plain.size()));
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (!racy) CHECK(cudaStreamSynchronize(copy.stream));
  HostRead(copy.pinned, kN);
  copy.Free();
  std::printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
  Done("fork_guarded", racy);
  return 0;
}
