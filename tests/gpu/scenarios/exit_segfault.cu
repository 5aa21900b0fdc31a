// A crash (SIGSEGV) right after the race: findings kept, the signal's exit
// status passed through.
#include <csignal>

#include "race_then_exit.cuh"

int main(int argc, char** argv) {
  ProduceConsume(Racy(argc, argv));
  std::raise(SIGSEGV);
  return 0;
}
