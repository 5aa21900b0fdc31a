// cudaDeviceReset destroys every stream, event and allocation: work after it
// (often at the same addresses) must not be compared with work before it.
#include "race_then_exit.cuh"

int main(int argc, char** argv) {
  const bool racy = Racy(argc, argv);
  ProduceConsume(racy);
  CHECK(cudaDeviceReset());
  ProduceConsume(false);
  return 0;
}
