"""How the PyTorch overhead benchmarks time a step: warm up, then run `count`
calls in chunks of `chunk` calls, each timed between two device
synchronizations (so queued GPU work is inside it), and give two figures of
the chunks' mean host time per call: their median, and their 10th
percentile ("fast").

Why two: the GPU machine is a virtual machine whose CPUs run at one of two
speeds, flipping every few hundred milliseconds as its neighbours' load
comes and goes (a pure-Python probe in 5 ms slices takes 1.0 ms or 1.9 ms,
the same code in the same process). A median over a second mixes the two in
whatever proportion that second had, so two processes' medians differ by up
to 2x with nothing changed. Short chunks each fall within one state, and
the fast 10% of them compare like with like: the program at the machine's
full speed. The warm-up runs for `warmup` calls and at least `warmup_s`
seconds: an idle GPU clocks down (345 MHz) and takes a while to clock up
again, and the run that comes first after an idle spell must not pay for
that alone.

Started by turns.py, the process times its chunks in turns with the other
variants (turns.py says why): it waits for its turn before its warm-up and
before each chunk, runs `settle` untimed calls at the start of each chunk
(another process had the CPU just before), and leaves its chunks' times for
turns.py."""
import statistics
import time

import torch
from turns import Turn


def ms_per_call(step, count, warmup, chunk=64, warmup_s=0.5, settle=None, sync=None):
    """(median, fast) milliseconds per call over count // chunk chunks (at
    least 10); in turns, `settle` untimed calls start each chunk (default:
    an eighth of the chunk, at least one). `sync`, for a job of several
    ranks: a barrier of the job's ranks on the CPU, met after rank 0 took
    its turn and before it gives it (turns.py)."""
    turn = Turn()
    meet = sync if (sync is not None and turn.in_turns) else (lambda: None)

    def take():
        turn.take()
        meet()

    def give():
        meet()
        turn.give()

    turn.ready()
    take()
    start = time.perf_counter()
    done = 0
    while done < warmup or time.perf_counter() - start < warmup_s:
        step()
        done += 1
    torch.cuda.synchronize()
    give()
    chunks = max(10, count // chunk)
    per_chunk = max(1, count // chunks)
    settle = (max(1, per_chunk // 8) if settle is None else settle) if turn.in_turns else 0
    means = []
    for _ in range(chunks):
        take()
        for _ in range(settle):
            step()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(per_chunk):
            step()
        torch.cuda.synchronize()
        means.append((time.perf_counter() - t0) * 1e3 / per_chunk)
        give()
    turn.save(means)
    return statistics.median(means), statistics.quantiles(means, n=10)[0]


def report(name, count_name, count, per, timing):
    """The line run_bench.sh reads: the median last (after the last '='), the fast figure before it."""
    median, fast = timing
    print(f"{name} {count_name}={count} fast_ms_per_{per}={fast:.4f} ms_per_{per}={median:.4f}")
