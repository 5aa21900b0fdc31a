#include "tracer/thread_state.h"

#include <memory>

namespace streamcheck::tracer::internal {

constinit thread_local ThreadState* t_thread_state __attribute__((tls_model("initial-exec"))) = nullptr;

namespace {

// Trivially destructible, so still readable after the thread's destructors ran.
thread_local bool t_state_destroyed = false;
thread_local ThreadId t_destroyed_id = 0;

// Destroys the thread's state at thread exit; the pointer is cleared first,
// so a callback from a later destructor makes a new state instead of using
// a destroyed one.
struct StateOwner {
  std::unique_ptr<ThreadState> state;
  ~StateOwner() {
    t_thread_state = nullptr;
    t_state_destroyed = true;
    if (state) t_destroyed_id = state->id;
  }
};

}  // namespace

__attribute__((noinline, cold)) ThreadState& CreateThreadState() {
  auto* state = new ThreadState;
  if (!t_state_destroyed) {
    thread_local StateOwner owner;
    owner.state.reset(state);
  } else {
    // Past the thread's destructors: nothing would delete it. It lives
    // until the process ends, as the thread's last calls need it to.
    state->id = t_destroyed_id;
  }
  t_thread_state = state;
  return *state;
}

}  // namespace streamcheck::tracer::internal
