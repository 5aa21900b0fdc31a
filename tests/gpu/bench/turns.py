"""Turn-taking: the native program and its traced variants run at once, but
time their chunks one at a time, in a fixed rotation (native, traced, ...,
native, traced, ...), so that every traced chunk has native chunks timed just
before and just after it.

Why: the GPU machine is a virtual machine whose CPUs switch between two
speeds every few to few hundred milliseconds (timing.py). Variants run one
after another, seconds apart, each meet the machine in whatever state those
seconds had, and their ratio moves by more than the tracer's cost. Chunks a
few milliseconds apart mostly meet the same state: the ratio of a traced
chunk to the native chunks around it is what the tracer costs there and
then, and the median of those ratios over a whole run is steady where the
ratio of the runs' own medians is not.

The protocol (the workloads' side is Turn, below; launch_rate.cu has its
own): each process gets three FIFOs by environment. It writes a byte to
BENCH_TURN_READY once started (imports, CUDA context), then, before its
warm-up and before each timed chunk, reads a byte from BENCH_TURN_WAIT, and
after it writes one to BENCH_TURN_PASS, the next process's WAIT. A process
waiting for its turn sleeps in read(), so while one chunk is timed nothing
else of the benchmark runs. Each chunk starts with a few untimed steps: the
process before it evicted this one's caches, and warming them again is not
what the tracer costs. At the end each process writes its chunks' times (a
JSON list, in order) to BENCH_TURN_CHUNKS.

A job of several processes (a DDP job under torchrun, every rank with the
FIFOs in its environment) takes its turn through its rank 0 (RANK=0, or no
RANK): the other ranks' Turn is inactive, and the job's ranks meet at a
barrier of their own (on the CPU: gloo) after rank 0 took the turn and
before it gives it, so that the whole job waits while another is timed
(timing.py's `sync`).

The CPU matters as much as the moment: the machine's slow state belongs to
a CPU (a process on one CPU runs slow for seconds while one on another runs
fast), so each process's timed thread is moved to the one CPU BENCH_TURN_CPU
names once its CUDA context exists. Threads started before that (the
tracer's analysis worker, the driver's) keep the CPUs the process was
started on, which should not include that one.

Usage:
  turns.py run --workload NAME --log FILE [--cpu N] --variant LABEL 'COMMAND' [--variant ...]
      the first variant is the native one; prints each variant's paired ratio
      to it and appends the round's chunks to FILE (a JSON line)
  turns.py pool FILE [FILE ...]
      pools the rounds of one or more logs: per workload and variant, the
      median paired ratio over every rotation, with a 95% interval"""
import argparse
import collections
import json
import math
import os
import random
import select
import shlex
import statistics
import subprocess
import sys
import tempfile
import time


class Turn:
    """A workload's place in the rotation; every method does nothing when the
    process was not started by `turns.py run`."""

    def __init__(self, env=None):
        env = os.environ if env is None else env
        self._paths = {k: env.get("BENCH_TURN_" + k) for k in ("READY", "WAIT", "PASS", "CHUNKS")}
        # The job runs in turns (every rank of it knows); this process takes them.
        self.in_turns = all(self._paths.values())
        self.active = self.in_turns and int(env.get("RANK") or 0) == 0
        self._wait = self._pass = None
        if self.active and env.get("BENCH_TURN_CPU"):
            os.sched_setaffinity(0, {int(env["BENCH_TURN_CPU"])})  # this thread only
        if self.active:
            # Read-write: opening never blocks, and a write to a FIFO whose
            # reader has already finished still succeeds.
            self._wait = os.open(self._paths["WAIT"], os.O_RDWR)
            self._pass = os.open(self._paths["PASS"], os.O_RDWR)

    def ready(self):
        if self.active:
            fd = os.open(self._paths["READY"], os.O_RDWR)
            os.write(fd, b"r")
            os.close(fd)

    def take(self):
        if self.active:
            while not os.read(self._wait, 1):
                pass

    def give(self):
        if self.active:
            os.write(self._pass, b"t")

    def save(self, chunks):
        if self.active:
            with open(self._paths["CHUNKS"], "w") as f:
                json.dump(chunks, f)


def paired(native, variant):
    """Each of the variant's chunks with the native chunks timed just before
    and after it (their geometric mean): the rotation puts native chunk i
    before variant chunk i and native chunk i + 1 after it."""
    n = min(len(variant), len(native) - 1)
    return [(variant[i], math.sqrt(native[i] * native[i + 1])) for i in range(n)]


def paired_ratios(native, variant):
    return [v / around for v, around in paired(native, variant)]


def paired_differences(native, variant):
    return [v - around for v, around in paired(native, variant)]


def median_interval(sequences, draws=2000, block=4):
    """The median of all values of `sequences` (one per round, in time order),
    and a 95% block-bootstrap interval: neighbouring chunks share the
    machine's state, so blocks of `block` of them are drawn together, never
    across rounds."""
    blocks = [seq[i:i + block] for seq in sequences for i in range(0, len(seq), block)]
    values = [v for seq in sequences for v in seq]
    if not values:
        return float("nan"), float("nan"), float("nan")
    rng = random.Random(1)  # the same logs give the same figures
    medians = []
    for _ in range(draws):
        drawn = []
        while len(drawn) < len(values):
            drawn.extend(rng.choice(blocks))
        medians.append(statistics.median(drawn))
    medians.sort()
    return statistics.median(values), medians[int(0.025 * draws)], medians[int(0.975 * draws) - 1]


def summary_lines(workload, rounds):
    """One line per variant but the first (native) of `rounds` (dicts of label -> chunk times, in rotation order)."""
    labels = list(rounds[0])
    lines = []
    for label in labels[1:]:
        ratios = [paired_ratios(r[labels[0]], r[label]) for r in rounds if label in r]
        differences = [paired_differences(r[labels[0]], r[label]) for r in rounds if label in r]
        ratio, low, high = median_interval(ratios)
        difference, dlow, dhigh = median_interval(differences)
        lines.append(f"turns {workload} {label}: paired x{ratio:.3f} [x{low:.3f}, x{high:.3f}]  "
                     f"{difference:+.4f} [{dlow:+.4f}, {dhigh:+.4f}]  "
                     f"rounds={len(ratios)} rotations={sum(map(len, ratios))}")
    # "traced" against each other traced variant (another build, a part
    # left out): their chunks of one rotation are timed next to each other.
    for label in labels[1:]:
        if label == "traced" or "traced" not in labels:
            continue
        ratios = [[t / o for t, o in zip(r["traced"], r[label])] for r in rounds if label in r]
        ratio, low, high = median_interval(ratios)
        lines.append(f"turns {workload} traced against {label}: x{ratio:.3f} [x{low:.3f}, x{high:.3f}]")
    return lines


def run_round(args):
    variants = [(label, shlex.split(command)) for label, command in args.variant]
    if len(variants) < 2:
        sys.exit("turns.py run: at least two variants (the native one first)")
    with tempfile.TemporaryDirectory(prefix="turns.") as tmp:
        fifos = [os.path.join(tmp, f"turn{k}") for k in range(len(variants))]
        ready_path = os.path.join(tmp, "ready")
        for path in fifos + [ready_path]:
            os.mkfifo(path)
        ready = os.open(ready_path, os.O_RDWR)
        first = os.open(fifos[0], os.O_RDWR)
        processes = []
        for k, (label, command) in enumerate(variants):
            env = dict(os.environ, BENCH_TURN_CPU="" if args.cpu is None else str(args.cpu),
                       BENCH_TURN_READY=ready_path, BENCH_TURN_WAIT=fifos[k],
                       BENCH_TURN_PASS=fifos[(k + 1) % len(variants)],
                       BENCH_TURN_CHUNKS=os.path.join(tmp, f"chunks{k}.json"))
            processes.append(subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True))
        deadline = time.monotonic() + args.timeout

        def check_children():
            for (label, _), p in zip(variants, processes):
                if p.poll() not in (None, 0):
                    fail(f"variant '{label}' exited with status {p.returncode}")
            if time.monotonic() > deadline:
                fail(f"no result after {args.timeout} s")

        def fail(why):
            for p in processes:
                if p.poll() is None:
                    p.kill()
            sys.exit(f"turns.py: {args.workload}: {why}")

        started = 0
        while started < len(variants):  # nobody times a chunk while another still starts up
            check_children()
            if select.select([ready], [], [], 0.5)[0]:
                started += len(os.read(ready, len(variants)))
        os.write(first, b"t")
        while any(p.poll() is None for p in processes):
            check_children()
            time.sleep(0.2)
        check_children()
        chunks = collections.OrderedDict()
        for k, ((label, _), p) in enumerate(zip(variants, processes)):
            out = p.stdout.read()
            print(f"{label}: {out.strip()}", flush=True)
            with open(os.path.join(tmp, f"chunks{k}.json")) as f:
                chunks[label] = json.load(f)
    with open(args.log, "a") as log:
        log.write(json.dumps({"workload": args.workload, "chunks": chunks}) + "\n")
    for line in summary_lines(args.workload, [chunks]):
        print(line, flush=True)


def pool(paths):
    by_workload = collections.OrderedDict()
    for path in paths:
        with open(path) as f:
            for line in f:
                entry = json.loads(line)
                by_workload.setdefault(entry["workload"], []).append(entry["chunks"])
    print("paired ratio of each variant's chunk to the native chunks just before and after it: median over every "
          "rotation [95% interval]; difference (same units as the workload's chunks)")
    for workload, rounds in by_workload.items():
        for line in summary_lines(workload, rounds):
            print(line)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="one round: the variants in turns")
    run.add_argument("--workload", required=True)
    run.add_argument("--log", required=True, help="JSON lines: each round's chunks, appended")
    run.add_argument("--variant", nargs=2, action="append", metavar=("LABEL", "COMMAND"), required=True)
    run.add_argument("--cpu", type=int, help="the CPU every variant's timed thread runs on (BENCH_TURN_CPU)")
    run.add_argument("--timeout", type=float, default=600)
    pooled = sub.add_parser("pool", help="pool the rounds of logs")
    pooled.add_argument("logs", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "run":
        run_round(args)
    else:
        pool(args.logs)


if __name__ == "__main__":
    main(sys.argv[1:])
