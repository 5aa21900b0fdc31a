"""Is this machine's CPU speed steady? Times a fixed pure-Python loop in
slices of about 1 ms (at full speed) for SECONDS and prints the slices'
10th, 50th and 90th percentiles, the share of slices within 30% of the 10th
percentile ("fast"), and the first runs of fast (F) and slow (S) slices.

On the H100 virtual machines of tests/gpu/bench/results/README.md the slices
took 1.0 ms or 1.9 ms and nothing in between, flipping every few to few
hundred slices, and two copies pinned to two given CPUs could both stay slow:
the reason timing.py reports the fast chunks next to the median.

Usage: host_speed.py [SECONDS] [LABEL]   (pin it with taskset to test one CPU)"""
import statistics
import sys
import time


def probe_ms():
    t0 = time.perf_counter()
    d = {}
    for i in range(20000):
        d[i & 1023] = i
    return (time.perf_counter() - t0) * 1e3


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    label = sys.argv[2] if len(sys.argv) > 2 else "host"
    slices = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        slices.append(probe_ms())
    q = statistics.quantiles(slices, n=20)
    fast = [s < q[1] * 1.3 for s in slices]
    runs, current, length = [], fast[0], 0
    for f in fast:
        if f == current:
            length += 1
        else:
            runs.append(("F" if current else "S") + str(length))
            current, length = f, 1
    runs.append(("F" if current else "S") + str(length))
    print(f"{label} slices={len(slices)} p10={q[1]:.2f}ms p50={q[9]:.2f}ms p90={q[17]:.2f}ms "
          f"fast_share={sum(fast) / len(fast):.2f} runs={' '.join(runs[:60])}")


if __name__ == "__main__":
    main()
