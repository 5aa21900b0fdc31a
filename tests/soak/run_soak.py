#!/usr/bin/env python3
"""A soak of the whole tool (issue 44): for a while, at once and on the same
databases, a traced program writing findings (`streamcheck run` of
soak_writer, or of a real CUDA program on a GPU machine), replays of race
traces, `merge` into one database again and again, every report format and a
baseline comparison, with writers killed (SIGKILL) at random points. Then:

- every finding is in its database once (no run, process and engine id twice),
  and merging every database again adds nothing;
- every database passes PRAGMA integrity_check, and no pending file is left
  (what a lock kept out was folded in);
- no process crashed: each ended with its own exit status or our SIGKILL, and
  none printed a crash;
- every claim printed matches what is stored: a replay's "N findings ... stored
  in DB (run R)" is run R's count, a finished replay found all of its trace's
  findings, `run`'s "N findings ... in run R" likewise, merge's "K finding(s)
  into" is what the merged database gained, a report's "N findings" lies
  between the counts before and after it.

Sizes: small (CI: about 40 s on 2 cores), large (a GPU machine: 8 lanes for
8 minutes, an hour of work), or --seconds/--lanes. Prints the counts; exit 0
when everything held, 1 with each failure listed.
"""
import argparse
import json
import os
import random
import re
import resource
import signal
import sqlite3
import subprocess
import sys
import time

CRASH_WORDS = ("Segmentation fault", "Aborted", "terminate called", "core dumped", "AddressSanitizer",
               "runtime error:", "Bus error", "double free")


def races_trace(races, quiet=0, prefix="w"):
    """A text trace with `races` distinct cross-stream races (and `quiet`
    records that find nothing, to make a replay last)."""
    lines = ['stream_create thread=1 stream=0x55 flags=0x1 api="cudaStreamCreateWithFlags"',
             'stream_create thread=1 stream=0x66 flags=0x1 api="cudaStreamCreateWithFlags"',
             'define_stack id=1 frame="soak_step":"soak.cu":12']
    for i in range(races):
        address = "0x%x" % (0x10000000 + i * 0x1000)
        lines.append('malloc thread=1 dst=%s size=64 memory_kind=device api="cudaMalloc"' % address)
        lines.append('kernel_launch thread=1 stream=0x55 name="%s%d" api="cudaLaunchKernel" access=%s+64:write stack=1'
                     % (prefix, i, address))
        lines.append('kernel_launch thread=1 stream=0x66 name="r%d" api="cudaLaunchKernel" access=%s+64:read stack=1'
                     % (i, address))
        if quiet and i % 10 == 0:
            lines.extend(['kernel_launch thread=1 stream=0x55 name="quiet" api="cudaLaunchKernel" '
                          'access=%s+64:read stack=1' % address] * (quiet // max(1, races // 10)))
    return "\n".join(lines) + "\n"


class Soak:
    def __init__(self, args):
        self.args = args
        self.sc = args.streamcheck
        self.work = args.workdir
        self.rng = random.Random(args.seed)
        self.failures = []
        self.counts = {"started": {}, "killed": {}, "claims_checked": 0, "reports": 0, "merges": 0, "kept_beside": 0}
        self.claims = []  # (kind, db, run, number, ...)
        self.finished_runs = []  # (db, run, expected findings) of writers that ended on their own
        self.merge_busy = False
        self.running = []  # dicts: proc, kind, ...

    # --- setup -------------------------------------------------------------
    def path(self, name):
        return os.path.join(self.work, name)

    def setup(self):
        os.makedirs(self.work, exist_ok=True)
        for name in os.listdir(self.work):
            os.remove(self.path(name))
        self.dbs = [self.path("a.db"), self.path("b.db")]
        self.merged = self.path("merged.db")
        traces = {"races300.txt": races_trace(300), "races60_slow.txt": races_trace(60, quiet=150000, prefix="s"),
                  "empty.txt": races_trace(0)}
        for name, text in traces.items():
            with open(self.path(name), "w") as f:
                f.write(text)
        self.traces = [self.path("races300.txt"), self.path("races60_slow.txt")]
        bundled = sorted(os.path.join(self.args.traces, t) for t in os.listdir(self.args.traces)
                         if t.endswith(".racy.sctrace"))
        self.traces += bundled[:: max(1, len(bundled) // 6)][:6]
        # What a replay of each trace finds: its claim when it finishes.
        self.expected = {}
        for trace in self.traces:
            out = subprocess.run([self.sc, "replay", "-q", "--no-db", trace], capture_output=True, text=True)
            m = re.search(r"streamcheck: (\d+) findings?", out.stderr)
            if out.returncode != 0 or not m:
                self.fail("reference replay of %s: rc %d: %s" % (trace, out.returncode, out.stderr[-300:]))
                continue
            self.expected[trace] = int(m.group(1))
        self.traces = [t for t in self.traces if t in self.expected]

    def fail(self, message):
        self.failures.append(message)

    # --- jobs --------------------------------------------------------------
    def start(self, kind, argv, kill_after=None, **info):
        log = open(self.path("%s-%d.log" % (kind, sum(self.counts["started"].values()))), "w+")
        proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.counts["started"][kind] = self.counts["started"].get(kind, 0) + 1
        job = dict(proc=proc, kind=kind, argv=argv, log=log, start=time.time(), kill_at=None, killed=False, **info)
        if kill_after is not None:
            job["kill_at"] = time.time() + kill_after
        self.running.append(job)
        return job

    def count_findings(self, db, run=None):
        if not os.path.exists(db):
            return 0
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=30)
        try:
            if run is None:
                return con.execute("SELECT count(*) FROM findings").fetchone()[0]
            return con.execute("SELECT count(*) FROM findings WHERE run_id = ?", (run,)).fetchone()[0]
        except sqlite3.Error:
            return 0
        finally:
            con.close()

    def new_job(self):
        choice = self.rng.random()
        db = self.rng.choice(self.dbs)
        kill = self.rng.random() < 0.3
        if choice < 0.25:
            n = self.rng.randint(20, 400)
            sleep_us = self.rng.choice([0, 200, 2000])
            duration = n * (sleep_us + 300) / 1e6
            self.start("run", [self.sc, "run", "-q", "--busy-timeout", "300", "--db", db, "--", self.args.writer,
                               str(n), str(sleep_us)],
                       kill_after=self.rng.uniform(0, duration) if kill else None, db=db, expected=n)
        elif choice < 0.5:
            trace = self.rng.choice(self.traces)
            self.start("replay", [self.sc, "replay", "-q", "--busy-timeout", "300", "--db", db, trace],
                       kill_after=self.rng.uniform(0, 1.5) if kill else None, db=db, trace=trace)
        elif choice < 0.6 and self.args.gpu_program:
            self.start("gpu-run", [self.sc, "run", "-q", "--db", db, "--"] + self.args.gpu_program.split(),
                       kill_after=self.rng.uniform(0, 2) if kill else None, db=db)
        elif choice < 0.7 and not self.merge_busy and all(self.count_findings(d) for d in self.dbs):
            self.merge_busy = True
            before = self.count_findings(self.merged)
            self.start("merge", [self.sc, "merge", "--busy-timeout", "5000", self.merged] + self.dbs, before=before)
        elif choice < 0.92:
            fmt = self.rng.choice(["text", "summary", "json", "sarif", "html"])
            source = self.rng.choice(self.dbs + [self.merged])
            if not os.path.exists(source):
                return
            before = self.count_findings(source)
            out = self.path("report-%d.%s" % (self.counts["reports"], fmt))
            self.counts["reports"] += 1
            self.start("report", [self.sc, "report", source, "--format", fmt, "-o", out], source=source, fmt=fmt,
                       out=out, before=before)
        else:
            if not all(os.path.exists(d) for d in self.dbs):
                return
            self.start("baseline", [self.sc, "report", self.dbs[0], "--baseline", self.dbs[1], "--format",
                                    "summary", "--error-exitcode", "1"])

    # --- results -----------------------------------------------------------
    def finish(self, job):
        job["log"].seek(0)
        output = job["log"].read()
        job["log"].close()
        rc = job["proc"].returncode
        kind = job["kind"]
        for word in CRASH_WORDS:
            if word in output:
                self.fail("%s crashed (%s): %s" % (kind, word, output[-400:]))
        if job["killed"]:
            self.counts["killed"][kind] = self.counts["killed"].get(kind, 0) + 1
            if rc != -signal.SIGKILL:
                self.fail("%s killed but ended with %s" % (kind, rc))
            return
        if rc is not None and rc < 0:
            self.fail("%s died of signal %d: %s" % (kind, -rc, output[-400:]))
            return
        kept = re.search(r"(\d+) findings were kept in", output)
        self.counts["kept_beside"] += int(kept.group(1)) if kept else 0
        getattr(self, "finish_" + kind.replace("-", "_"))(job, rc, output)

    def finish_replay(self, job, rc, output):
        m = re.search(r"streamcheck: (\d+) findings? \(\d+ occurrences\)(?:, \d+ suppressed)?; (?:(\d+) of them )?"
                      r"stored in (\S+) \(run (\d+)\)", output)
        if rc == 2 and ("locked" in output or "kept in" in output) and not m:
            return  # refused at open (the lock), nothing claimed
        if rc not in (0, 2) or not m:
            self.fail("replay rc %d without its claim: %s" % (rc, output[-400:]))
            return
        found, run = int(m.group(1)), int(m.group(4))
        if found != self.expected[job["trace"]]:
            self.fail("replay of %s found %d, not %d" % (job["trace"], found, self.expected[job["trace"]]))
        # Kept beside the database (a lock): the next writer folds them in,
        # so at the end the run holds every finding found.
        stored = found if ("kept in" in output or m.group(2) is None) else int(m.group(2))
        if "failed (" in output and "kept in" not in output:
            stored = int(m.group(2) or found)
        self.claims.append(("replay", job["db"], run, stored, output))
        self.finished_runs.append((job["db"], run, found))

    def finish_run(self, job, rc, output):
        m = re.search(r"streamcheck: (\d+) findings? \(\d+ occurrences\) in run (\d+), stored in (\S+)", output)
        if rc == 2 and "locked" in output and not m:
            return
        wanted = 128 + signal.SIGKILL if job.get("program_killed") else 0
        if rc not in (wanted, 2 if "findings were kept in" in output else wanted) or not m:
            self.fail("run rc %d without its claim: %s" % (rc, output[-400:]))
            return
        found, run = int(m.group(1)), int(m.group(2))
        # Kept beside the database (a lock at the end): folded in later.
        kept = re.search(r"(\d+) findings were kept in", output)
        self.claims.append(("run", job["db"], run, found + (int(kept.group(1)) if kept else 0), output))
        if not job.get("program_killed"):
            self.finished_runs.append((job["db"], run, job["expected"]))

    def finish_gpu_run(self, job, rc, output):
        m = re.search(r"streamcheck: (\d+) findings? \(\d+ occurrences\) in run (\d+), stored in (\S+)", output)
        if not m:
            if not (rc == 2 and "locked" in output):
                self.fail("gpu run rc %d without its claim: %s" % (rc, output[-400:]))
            return
        self.claims.append(("gpu-run", job["db"], int(m.group(2)), int(m.group(1)), output))

    def finish_merge(self, job, rc, output):
        self.merge_busy = False
        self.counts["merges"] += 1
        m = re.search(r"(\d+) finding\(s\) into", output)
        if rc == 2 and "locked" in output:
            return
        if rc != 0 or not m:
            self.fail("merge rc %d: %s" % (rc, output[-400:]))
            return
        gained = self.count_findings(self.merged) - job["before"]
        self.counts["claims_checked"] += 1
        if gained != int(m.group(1)):
            self.fail("merge claimed %s findings, the merged database gained %d" % (m.group(1), gained))

    def finish_report(self, job, rc, output):
        if rc != 0:
            self.fail("report %s of %s: rc %d: %s" % (job["fmt"], job["source"], rc, output[-400:]))
            return
        with open(job["out"], errors="replace") as f:
            text = f.read()
        after = self.count_findings(job["source"])
        if job["fmt"] in ("json", "sarif"):
            try:
                doc = json.loads(text)
            except ValueError as e:
                self.fail("report %s is not JSON: %s" % (job["fmt"], e))
                return
            n = len(doc["findings"]) if job["fmt"] == "json" else len(doc["runs"][0]["results"])
        elif job["fmt"] == "html":
            n = None
        else:
            m = re.search(r"^(\d+) findings? \(", text, re.M)
            n = int(m.group(1)) if m else -1
        if n is not None:
            self.counts["claims_checked"] += 1
            if not job["before"] <= n <= after:
                self.fail("report %s of %s: %d findings, the database held %d to %d" %
                          (job["fmt"], job["source"], n, job["before"], after))
        os.remove(job["out"])

    def finish_baseline(self, job, rc, output):
        if rc not in (0, 1):
            self.fail("baseline comparison rc %d: %s" % (rc, output[-400:]))

    # --- the loop and the end ---------------------------------------------
    def loop(self):
        end = time.time() + self.args.seconds
        while time.time() < end or self.running:
            now = time.time()
            for job in list(self.running):
                if job["proc"].poll() is None and job["kill_at"] and now >= job["kill_at"]:
                    job["kill_at"] = None
                    self.kill(job)
                if job["proc"].poll() is not None:
                    self.running.remove(job)
                    self.finish(job)
            while time.time() < end and len(self.running) < self.args.lanes:
                self.new_job()
            time.sleep(0.02)

    def kill(self, job):
        """SIGKILL to `streamcheck` and all it started, or, for half of the
        `run`s, to the traced program alone (run then reports what it stored)."""
        if job["kind"] in ("run", "gpu-run") and self.rng.random() < 0.5:
            try:
                with open("/proc/%d/task/%d/children" % (job["proc"].pid, job["proc"].pid)) as f:
                    children = [int(c) for c in f.read().split()]
            except OSError:
                children = []
            for child in children:
                try:
                    os.kill(child, signal.SIGKILL)
                    job["program_killed"] = True
                except ProcessLookupError:
                    pass
            if children:
                self.counts["killed"]["traced program"] = self.counts["killed"].get("traced program", 0) + 1
                return
        try:
            os.killpg(job["proc"].pid, signal.SIGKILL)
            job["killed"] = True
        except ProcessLookupError:
            pass

    def settle(self):
        """What locks kept out is folded in by a last writer of each database."""
        for db in self.dbs:
            if os.path.exists(db):
                subprocess.run([self.sc, "replay", "-q", "--db", db, self.path("empty.txt")], capture_output=True)
        pending = [n for n in os.listdir(self.work) if ".pending-" in n]
        if pending:
            self.fail("pending files left: %s" % pending)

    def check_databases(self):
        final = self.path("final.db")
        for db in self.dbs + [self.merged]:
            if not os.path.exists(db):
                continue
            con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
            verdict = con.execute("PRAGMA integrity_check").fetchone()[0]
            if verdict != "ok":
                self.fail("%s: integrity_check says %s" % (db, verdict))
            twice = con.execute("SELECT count(*) FROM (SELECT 1 FROM findings GROUP BY run_id, "
                                "ifnull(process_id, 0), local_id HAVING count(*) > 1)").fetchone()[0]
            if twice:
                self.fail("%s: %d findings stored twice" % (db, twice))
            con.close()
        for kind, db, run, number, output in self.claims:
            self.counts["claims_checked"] += 1
            stored = self.count_findings(db, run)
            if stored != number:
                self.fail("%s claimed %d findings in %s run %d; it holds %d: %s" % (kind, number, db, run, stored,
                                                                                   output[-300:]))
        for db, run, expected in self.finished_runs:
            if self.count_findings(db, run) != expected:
                self.fail("%s run %d: %d findings, its writer found %d" % (db, run, self.count_findings(db, run),
                                                                          expected))
        # Nothing doubled across databases: every database merged into one
        # holds the sum, and merging them again (and the soak's own merged
        # database, made of theirs) adds nothing.
        inputs = [d for d in self.dbs if os.path.exists(d)]
        out = subprocess.run([self.sc, "merge", final] + inputs, capture_output=True, text=True)
        total = sum(self.count_findings(d) for d in inputs)
        if out.returncode != 0 or self.count_findings(final) != total:
            self.fail("final merge: rc %d, %d findings of %d: %s" % (out.returncode, self.count_findings(final), total,
                                                                    out.stderr))
        again = [final] + inputs + ([self.merged] if os.path.exists(self.merged) else [])
        out = subprocess.run([self.sc, "merge", self.path("again.db")] + again, capture_output=True, text=True)
        if out.returncode != 0 or self.count_findings(self.path("again.db")) != total:
            self.fail("merging everything again: rc %d, %d findings of %d: %s" %
                      (out.returncode, self.count_findings(self.path("again.db")), total, out.stderr))
        con = sqlite3.connect("file:%s?mode=ro" % final, uri=True)
        verdict = con.execute("PRAGMA integrity_check").fetchone()[0]
        if verdict != "ok":
            self.fail("%s: integrity_check says %s" % (final, verdict))
        runs = con.execute("SELECT count(*), count(end_time_ns) FROM runs").fetchone()
        con.close()
        self.counts["findings"] = total
        self.counts["runs"] = runs[0]
        self.counts["unfinished_runs"] = runs[0] - runs[1]
        self.counts["databases_checked"] = len(inputs) + 2 + (1 if os.path.exists(self.merged) else 0)

    def run(self):
        started = time.time()
        self.setup()
        self.loop()
        self.settle()
        self.check_databases()
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        c = self.counts
        print("soak: %.0f s wall, %.0f s of work (CPU of every process), %d lanes" %
              (time.time() - started, cpu.ru_utime + cpu.ru_stime, self.args.lanes))
        print("soak: started %s; killed %s" % (json.dumps(c["started"], sort_keys=True),
                                               json.dumps(c["killed"], sort_keys=True)))
        print("soak: %d findings committed in %d runs (%d unfinished: killed writers), each present exactly once "
              "(%d of them kept beside a locked database first, then folded in); %d merges, %d reports; %d claims "
              "checked; integrity_check on %d databases" %
              (c.get("findings", 0), c.get("runs", 0), c.get("unfinished_runs", 0), c["kept_beside"], c["merges"],
               c["reports"], c["claims_checked"], c.get("databases_checked", 0)))
        for failure in self.failures:
            print("FAIL: " + failure)
        print("soak: %s" % ("ok" if not self.failures else "%d failures" % len(self.failures)))
        return 0 if not self.failures else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streamcheck", required=True)
    parser.add_argument("--writer", required=True, help="soak_writer (the traced stand-in)")
    parser.add_argument("--traces", required=True, help="testdata/traces: bundled traces to replay")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--size", default="small", choices=["small", "large"])
    parser.add_argument("--seconds", type=float, help="how long to start new work (default by size)")
    parser.add_argument("--lanes", type=int, help="processes at once (default by size)")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SOAK_SEED", "44")))
    parser.add_argument("--gpu-program", help="a CUDA program (and its arguments) to run traced as well")
    args = parser.parse_args()
    defaults = {"small": (40, 3), "large": (480, 8)}[args.size]
    args.seconds = args.seconds or defaults[0]
    args.lanes = args.lanes or defaults[1]
    return Soak(args).run()


if __name__ == "__main__":
    sys.exit(main())
