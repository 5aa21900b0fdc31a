// What a traced program may do to itself, which the tracer must survive
// without harming it (issue 44): run_harm_tests.sh runs each mode with and
// without `streamcheck run` and compares output and exit status, then checks
// the database. Each mode makes cross-stream races at distinct lines (each
// its own finding) around the harm:
//   fds DIR     opens files until EMFILE, races while none is left, closes them
//   oom DIR     limits its address space (RLIMIT_AS, after CUDA is up: CUDA
//               reserves address space at init, and a limit before it fails
//               cudaInit with or without the tracer) and allocates until
//               malloc fails, races while none is left, frees
//   vanish DIR  renames DIR (the database's folder) away in the middle
//   remove DIR  deletes DIR (and the database) in the middle
//   kill DIR    is killed by SIGKILL after its first race
// Prints only what is the same with and without the tracer; exits 0 (kill:
// by the signal, 137 to the shell).
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../scenarios/common.cuh"

namespace {

struct Buffers {
  float* a;
  float* b;
  cudaStream_t s1, s2;
};

Buffers Make() {
  Buffers x{};
  CHECK(cudaStreamCreateWithFlags(&x.s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&x.s2, cudaStreamNonBlocking));
  CHECK(cudaMalloc(&x.a, kN * sizeof(float)));
  CHECK(cudaMalloc(&x.b, kN * sizeof(float)));
  return x;
}

// One race: s2 reads what s1 may still write. The launches' line is the
// finding's place, so each caller passes a different `which`.
const char* Race(const Buffers& x, int which) {
  switch (which) {
    case 1: spin_then_fill<<<64, 256, 0, x.s1>>>(x.a, 1000000, kN); scale<<<64, 256, 0, x.s2>>>(x.a, x.b, kN); break;
    case 2: spin_then_fill<<<64, 256, 0, x.s1>>>(x.a, 1000000, kN); scale<<<64, 256, 0, x.s2>>>(x.a, x.b, kN); break;
    default: spin_then_fill<<<64, 256, 0, x.s1>>>(x.a, 1000000, kN); scale<<<64, 256, 0, x.s2>>>(x.a, x.b, kN); break;
  }
  const cudaError_t launched = cudaGetLastError();
  const cudaError_t synced = cudaDeviceSynchronize();
  return cudaGetErrorName(launched != cudaSuccess ? launched : synced);
}

long VirtualBytes() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, status))
    if (std::sscanf(line, "VmSize: %ld kB", &kib) == 1) break;
  std::fclose(status);
  return kib * 1024;
}

int Fds(const Buffers& x) {
  std::printf("race 1: %s\n", Race(x, 1));
  std::vector<int> fds;
  for (;;) {
    const int fd = ::open("/dev/null", O_RDONLY);
    if (fd < 0) break;
    fds.push_back(fd);
  }
  std::printf("file descriptors: none left (%s)\n", std::strerror(EMFILE));
  std::printf("race 2: %s\n", Race(x, 2));
  for (int fd : fds) ::close(fd);
  std::printf("race 3: %s\n", Race(x, 3));
  return 0;
}

int Oom(const Buffers& x) {
  std::printf("race 1: %s\n", Race(x, 1));
  struct rlimit before {};
  getrlimit(RLIMIT_AS, &before);
  const long now = VirtualBytes();
  struct rlimit tight = before;
  tight.rlim_cur = static_cast<rlim_t>(now + (256l << 20));
  if (now < 0 || setrlimit(RLIMIT_AS, &tight) != 0) {
    std::printf("cannot limit the address space\n");
    return 4;
  }
  std::vector<void*> blocks;
  for (void* p; (p = std::malloc(1 << 20)) != nullptr;) blocks.push_back(p);
  std::printf("host memory: none left\n");
  // CUDA may need host memory for this too; whatever it says, it says the
  // same with and without the tracer.
  std::printf("race 2: %s\n", Race(x, 2));
  for (void* p : blocks) std::free(p);
  setrlimit(RLIMIT_AS, &before);
  std::printf("race 3: %s\n", Race(x, 3));
  return 0;
}

int Vanish(const Buffers& x, const std::string& dir, bool remove) {
  std::printf("race 1: %s\n", Race(x, 1));
  ::sleep(1);  // the tracer stores race 1 meanwhile
  const std::string command = remove ? "rm -rf '" + dir + "'" : "mv '" + dir + "' '" + dir + ".gone'";
  if (std::system(command.c_str()) != 0) {
    std::printf("cannot %s the folder\n", remove ? "remove" : "rename");
    return 4;
  }
  std::printf("the database's folder: %s\n", remove ? "removed" : "renamed");
  std::printf("race 2: %s\n", Race(x, 2));
  return 0;
}

int Kill(const Buffers& x) {
  std::printf("race 1: %s\n", Race(x, 1));
  ::sleep(1);  // the tracer stores race 1 meanwhile
  std::printf("killed now\n");
  std::fflush(stdout);
  ::raise(SIGKILL);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s fds|oom|vanish|remove|kill DIR\n", argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const Buffers x = Make();
  int status = 2;
  if (mode == "fds") status = Fds(x);
  else if (mode == "oom") status = Oom(x);
  else if (mode == "vanish" || mode == "remove") status = Vanish(x, argv[2], mode == "remove");
  else if (mode == "kill") status = Kill(x);
  std::fflush(stdout);
  return status;
}
