"""Pools the rounds of one or more run_bench.sh logs: for each variant, the
median of each round's difference to (and ratio to) the native run of the
same round and workload, with a 95% bootstrap interval over rounds; with
BASE= runs, also the traced run against the other build's in each round. Single
runs of the GPU machine disagree by more than the effects measured (the
native program alone moves from run to run); rounds pooled over several runs
give a figure whose uncertainty is stated.

Usage: pool_rounds.py [--fast] BENCH_LOG [BENCH_LOG ...]   (run_bench.sh's stdout)
--fast: each run's fast chunks (their 10th percentile, timing.py) instead of
its median chunk; logs from before that figure existed have none."""
import collections
import random
import re
import statistics
import sys

MEDIAN = re.compile(r"^(\w+) (.+?): .*=([0-9.]+) steal=")
FAST = re.compile(r"^(\w+) (.+?): .*fast_\w+=([0-9.]+) .*steal=")


def rounds_of(paths, line_pattern):
    """(workload, variant) -> [(difference, ratio)] against the native run of
    its round, and (workload, "traced / traced, base") -> the same for the
    traced run against the other build's (BASE=) in one round."""
    paired = collections.defaultdict(list)
    for path in paths:
        round_of = {}  # workload -> {variant: value} of its current round
        for line in open(path):
            m = line_pattern.match(line)
            if not m:
                continue
            kind, variant, value = m.group(1), m.group(2), float(m.group(3))
            if variant == "native":
                round_of[kind] = {}
            if kind not in round_of:
                continue
            this_round = round_of[kind]
            this_round[variant] = value
            if variant != "native":
                paired[(kind, variant)].append((value - this_round["native"], value / this_round["native"]))
            if variant == "traced, base" and "traced" in this_round:
                paired[(kind, "traced / traced, base")].append((this_round["traced"] - value, this_round["traced"] / value))
    return paired


def interval(values, draws=2000):
    rng = random.Random(1)  # the same logs give the same figures
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(draws))
    return medians[int(0.025 * draws)], medians[int(0.975 * draws) - 1]


def main(args):
    fast = "--fast" in args
    paths = [a for a in args if a != "--fast"]
    if not paths:
        sys.exit(__doc__)
    print("per round against its native run (or the base build's, where named): median difference [95% interval], "
          "median ratio [95% interval]")
    for (kind, variant), pairs in rounds_of(paths, FAST if fast else MEDIAN).items():
        differences = [d for d, _ in pairs]
        ratios = [r for _, r in pairs]
        (dl, dh), (rl, rh) = interval(differences), interval(ratios)
        print(f"  {kind} {variant:34s} n={len(pairs):3d}  {statistics.median(differences):+8.3f} "
              f"[{dl:+.3f}, {dh:+.3f}]  x{statistics.median(ratios):.3f} [x{rl:.3f}, x{rh:.3f}]")


if __name__ == "__main__":
    main(sys.argv[1:])
