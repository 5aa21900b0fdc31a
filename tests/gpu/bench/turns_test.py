"""turns.py without a GPU: stand-in workloads take their turns through the
real FIFO protocol; the test checks that chunks never overlap, that they run
in rotation, that a failing variant ends the round instead of hanging it,
and the pairing arithmetic."""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import turns  # noqa: E402

# A stand-in workload: `chunks` chunks of `seconds` each, every start and end
# appended to a shared journal with this variant's label; exits with `status`
# after `fail_after` chunks when given.
WORKLOAD = r"""
import os, sys, time
sys.path.insert(0, {here!r})
from turns import Turn
label, journal, chunks, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
fail_after = int(sys.argv[5]) if len(sys.argv) > 5 else -1
turn = Turn()
turn.ready(); turn.take(); turn.give()  # the warm-up's turn
times = []
for c in range(chunks):
    if c == fail_after:
        sys.exit(3)
    turn.take()
    with open(journal, "a") as j: j.write(f"start {{label}} {{time.monotonic()}}\n")
    time.sleep(seconds)
    times.append(seconds * (2 if label == "slow" else 1))
    with open(journal, "a") as j: j.write(f"end {{label}} {{time.monotonic()}}\n")
    turn.give()
turn.save(times)
print(f"{{label}} done on CPUs {{sorted(os.sched_getaffinity(0))}}")
"""

# A stand-in job of two ranks (what a torchrun job is to timing.py): rank 0
# takes the job's turns, both ranks meet at the job's barrier after the take
# and before the give, and every rank journals each chunk it runs.
JOB = r"""
import multiprocessing, os, sys, time
sys.path.insert(0, {here!r})
from turns import Turn
label, journal, chunks, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
def rank(r, barrier):
    os.environ["RANK"] = str(r)
    turn = Turn()
    meet = barrier.wait if turn.in_turns else (lambda: None)
    def take(): turn.take(); meet()
    def give(): meet(); turn.give()
    turn.ready(); take(); give()
    times = []
    for c in range(chunks):
        take()
        with open(journal, "a") as j: j.write(f"start {{label}} {{r}} {{time.monotonic()}}\n")
        time.sleep(seconds)
        times.append(seconds)
        with open(journal, "a") as j: j.write(f"end {{label}} {{r}} {{time.monotonic()}}\n")
        give()
    turn.save(times)
barrier = multiprocessing.Barrier(2)
ranks = [multiprocessing.Process(target=rank, args=(r, barrier)) for r in range(2)]
[p.start() for p in ranks]; [p.join() for p in ranks]
sys.exit(max(p.exitcode for p in ranks))
"""


class TurnsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.script = os.path.join(self.tmp.name, "workload.py")
        with open(self.script, "w") as f:
            f.write(WORKLOAD.format(here=HERE))
        self.journal = os.path.join(self.tmp.name, "journal")
        self.log = os.path.join(self.tmp.name, "log.json")

    def tearDown(self):
        self.tmp.cleanup()

    def run_turns(self, variants, timeout=60, cpu=None):
        args = [sys.executable, os.path.join(HERE, "turns.py"), "run", "--workload", "stand-in", "--log", self.log,
                "--timeout", "30"] + ([] if cpu is None else ["--cpu", str(cpu)])
        for label, extra in variants:
            args += ["--variant", label, f"{sys.executable} {self.script} {label} {self.journal} {extra}"]
        return subprocess.run(args, capture_output=True, text=True, timeout=timeout)

    def test_chunks_run_one_at_a_time_in_rotation(self):
        cpu = max(os.sched_getaffinity(0))
        result = self.run_turns([("native", "6 0.01"), ("traced", "6 0.01"), ("slow", "6 0.01")], cpu=cpu)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.journal) as f:
            events = [line.split() for line in f]
        # Strictly alternating start/end: no chunk starts while another runs.
        self.assertEqual([e[0] for e in events], ["start", "end"] * 18)
        self.assertEqual([e[1] for e in events[::2]], ["native", "traced", "slow"] * 6)
        self.assertTrue(all(float(a[2]) <= float(b[2]) for a, b in zip(events, events[1:])))
        # The log keeps every chunk; "slow" reports twice the native time.
        with open(self.log) as f:
            entry = json.loads(f.read())
        self.assertEqual(list(entry["chunks"]), ["native", "traced", "slow"])
        self.assertIn("turns stand-in slow: paired x2.000", result.stdout)
        self.assertIn("turns stand-in traced: paired x1.000", result.stdout)
        # Each variant's timed thread on the CPU asked for.
        self.assertIn(f"native: native done on CPUs [{cpu}]", result.stdout)
        self.assertIn(f"slow: slow done on CPUs [{cpu}]", result.stdout)

    def test_jobs_of_two_ranks_take_turns_whole(self):
        job = os.path.join(self.tmp.name, "job.py")
        with open(job, "w") as f:
            f.write(JOB.format(here=HERE))
        args = [sys.executable, os.path.join(HERE, "turns.py"), "run", "--workload", "ddp", "--log", self.log,
                "--timeout", "30"]
        for label in ("native", "traced"):
            args += ["--variant", label, f"{sys.executable} {job} {label} {self.journal} 4 0.01"]
        result = subprocess.run(args, capture_output=True, text=True, timeout=60)
        self.assertEqual(result.returncode, 0, result.stderr)
        with open(self.journal) as f:
            events = [line.split() for line in f]
        # Both ranks of a job run each of its chunks; no rank of the other job
        # runs meanwhile: the jobs' chunks alternate whole.
        self.assertEqual(len(events), 2 * 2 * 4 * 2)  # jobs x ranks x chunks x (start, end)
        running = set()
        for kind, label, rank, _ in events:
            if kind == "start":
                self.assertTrue(all(other == label for other, _ in running), events)
                running.add((label, rank))
            else:
                running.remove((label, rank))
        starts = [label for kind, label, _, _ in events if kind == "start"]
        turns_taken = [label for i, label in enumerate(starts) if i == 0 or starts[i - 1] != label]
        self.assertEqual(turns_taken, ["native", "traced"] * 4)
        self.assertIn("turns ddp traced: paired x", result.stdout)

    def test_a_failing_variant_ends_the_round(self):
        started = time.monotonic()
        result = self.run_turns([("native", "6 0.01"), ("traced", "6 0.01 2")])
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("variant 'traced' exited with status 3", result.stderr)
        self.assertLess(time.monotonic() - started, 20)

    def test_pairing_uses_the_native_chunks_around_each_variant_chunk(self):
        native = [1.0, 4.0, 1.0]
        variant = [4.0, 4.0, 9.0]  # the last has no native chunk after it: left out
        self.assertEqual(turns.paired_ratios(native, variant), [2.0, 2.0])
        self.assertEqual(turns.paired_differences(native, variant), [2.0, 2.0])

    def test_pooled_interval_holds_the_median(self):
        median, low, high = turns.median_interval([[1.0, 1.1, 1.2, 1.3], [1.15, 1.25]])
        self.assertAlmostEqual(median, 1.175)
        self.assertLessEqual(low, median)
        self.assertLessEqual(median, high)

    def test_outside_a_round_a_turn_does_nothing(self):
        turn = turns.Turn(env={})
        self.assertFalse(turn.active)
        turn.ready(), turn.take(), turn.give(), turn.save([1.0])

    def test_a_job_of_ranks_takes_turns_through_rank_0(self):
        fifo = os.path.join(self.tmp.name, "fifo")
        os.mkfifo(fifo)
        env = {f"BENCH_TURN_{k}": fifo for k in ("READY", "WAIT", "PASS")}
        env["BENCH_TURN_CHUNKS"] = os.path.join(self.tmp.name, "chunks.json")
        for rank, takes in (("0", True), ("", True), ("1", False), ("3", False)):
            turn = turns.Turn(env=dict(env, RANK=rank))
            self.assertTrue(turn.in_turns)
            self.assertEqual(turn.active, takes, f"RANK={rank!r}")
        other = turns.Turn(env=dict(env, RANK="1"))
        other.ready(), other.take(), other.give(), other.save([1.0])  # returns at once, writes nothing
        self.assertFalse(os.path.exists(env["BENCH_TURN_CHUNKS"]))


if __name__ == "__main__":
    unittest.main()
