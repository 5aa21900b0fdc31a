"""How the PyTorch overhead benchmarks time a step: warm up, then run `count`
calls in `chunks` equal chunks, each timed between two device
synchronizations (so queued GPU work is inside it), and take the median of
the chunks' mean host time per call. The GPU machine is a virtual machine
whose neighbours steal time in bursts; the median keeps a burst that hits
one chunk out of the figure, for native and traced runs alike. The warm-up
runs for `warmup` calls and at least `warmup_s` seconds: an idle GPU clocks
down (345 MHz) and takes a while to clock up again, and the run that comes
first after an idle spell must not pay for that alone."""
import statistics
import time

import torch


def ms_per_call(step, count, warmup, chunks=10, warmup_s=0.5):
    start = time.perf_counter()
    done = 0
    while done < warmup or time.perf_counter() - start < warmup_s:
        step()
        done += 1
    per_chunk = max(1, count // chunks)
    means = []
    for _ in range(chunks):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(per_chunk):
            step()
        torch.cuda.synchronize()
        means.append((time.perf_counter() - t0) * 1e3 / per_chunk)
    return statistics.median(means)
