// A crash (SIGSEGV) straight after the racing launches, with no host
// synchronization between: the tracer's analysis worker may not have reached
// them yet, so the crash handler must let it finish before the signal kills
// the process. The finding must be in the database all the same.
#include <csignal>

#include "race_then_exit.cuh"

int main(int argc, char** argv) {
  LaunchProducerConsumer(Racy(argc, argv));
  std::raise(SIGSEGV);
  return 0;
}
