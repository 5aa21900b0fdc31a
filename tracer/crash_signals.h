// Signals that end the program by default (a crash, abort(), a kill, Ctrl-C,
// a closed pipe, a batch system's limits): findings are committed to the
// database as the analysis worker finds them, so before the signal does what
// it would have done, the worker is given time to reach what was queued and
// the trace writer's buffer is written out (Tracer::SaveForCrash). Since the
// program's synchronizations no longer wait for the worker, this and the
// drains at exit, _exit() and fork are what keep a dying program's findings.
#pragma once

namespace streamcheck::tracer {

class Tracer;

// Installs the handler for each such signal whose disposition is still the
// default: a handler the program installed, or SIG_IGN, is never replaced.
// SIGSEGV's is the guard pages' chain where that is installed (signal_chain.h).
void InstallCrashSignalHandlers(Tracer* tracer);

}  // namespace streamcheck::tracer
