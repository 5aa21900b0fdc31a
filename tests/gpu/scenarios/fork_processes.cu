// Processes: a child forked before CUDA is initialized uses CUDA on its own
// (its own tracer, its own process in the database); a child forked after the
// parent initialized CUDA only exits (the tracer's fork handler must leave the
// parent's outputs alone). Only the first child's work differs by variant.
#include <sys/wait.h>
#include <unistd.h>

#include "race_then_exit.cuh"

static int WaitFor(pid_t child) {
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  const pid_t cuda_child = fork();
  if (cuda_child == 0) {
    ProduceConsume(racy);
    std::exit(0);
  }
  if (WaitFor(cuda_child) != 0) return 10;
  ProduceConsume(false);
  const pid_t plain_child = fork();
  if (plain_child == 0) std::exit(0);
  if (WaitFor(plain_child) != 0) return 11;
  ProduceConsume(false);
  return 0;
}
