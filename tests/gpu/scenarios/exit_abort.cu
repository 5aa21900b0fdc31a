// abort() right after the race: the finding must already be in the database.
#include <cstdlib>

#include "race_then_exit.cuh"

int main(int argc, char** argv) {
  ProduceConsume(Racy(argc, argv));
  std::printf("about to abort\n");
  std::fflush(stdout);
  std::abort();
}
