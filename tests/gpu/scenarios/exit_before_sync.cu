// _exit() straight after the racing launches, with no host synchronization
// between: no exit handler runs, and the tracer's analysis worker may not
// have reached the launches yet. The _exit() hook `streamcheck run` preloads
// (tracer/preload/exit_hook.c) lets it finish first: the finding must be stored and
// the exit status passed through.
#include <unistd.h>

#include "race_then_exit.cuh"

int main(int argc, char** argv) {
  LaunchProducerConsumer(Racy(argc, argv));
  _exit(9);
}
