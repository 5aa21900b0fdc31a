#!/usr/bin/env python3
"""The lint's per-function budget (issue 29): on generated huge functions the
lint stays within 3x `clang++ -fsyntax-only` on the same command (plus a
little slack for a loaded machine) and under 1 GB, keeps the findings it must,
and says when it analysed with reduced precision.

  budget_test.py STREAMCHECK_LINT CLANGXX GEN_BUDGET_PY PRELUDE_DIR
"""
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

lint, clangxx, gen, prelude_src = sys.argv[1:5]
RATIO, SLACK_S, MAX_RSS_MB = 3.0, 2.0, 1024

# (shape, size, findings expected, budget note expected)
CASES = [
    ('long', 20000, 30, True),          # 20k-line function: same 30 races as without a budget
    ('clean-blocks', 2500, 0, True),    # 2,500 race-free if/else blocks
    ('racy-blocks', 2857, 1000, True),  # 2,857 racy blocks: findings stop at the function's limit
]


def run(cmd):
    """Wall seconds and peak RSS (MB) of one child, and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.monotonic() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss of children is the largest so far: a child below the earlier
    # maximum reads as that maximum, which only makes the check stricter.
    return seconds, max(peak, before) / 1024.0, proc


def best_of(n, cmd):
    runs = [run(cmd) for _ in range(n)]
    return min(r[0] for r in runs), max(r[1] for r in runs), runs[-1][2]


work = tempfile.mkdtemp()
try:
    # The printed command names the prelude the lint keeps on disk for it.
    failures = 0
    for shape, size, want_findings, want_note in CASES:
        src = os.path.join(work, f'{shape}-{size}.cu')
        subprocess.run([sys.executable, gen, shape, str(size), src], check=True)
        printed = subprocess.run([lint, '--print-commands', src], capture_output=True, text=True).stderr
        # `cd DIR && CLANG ARGS...`, quoted for the shell.
        words = shlex.split(printed.splitlines()[0])
        clang_cmd = words[words.index('&&') + 1:]
        clang_cmd[0] = clangxx
        clang_s, _, clang = best_of(2, clang_cmd)
        if clang.returncode != 0:
            print(f'{shape}:{size}: clang failed:\n{clang.stderr[-2000:]}')
            failures += 1
            continue
        lint_s, lint_mb, out = best_of(2, [lint, src])
        findings = out.stdout.count(' warning: ')
        noted = 'reduced precision' in out.stderr
        ok = (lint_s <= RATIO * clang_s + SLACK_S and lint_mb <= MAX_RSS_MB and findings == want_findings and
              noted == want_note)
        print(f'{shape}:{size}: lint {lint_s:.2f}s vs clang -fsyntax-only {clang_s:.2f}s '
              f'(limit {RATIO * clang_s + SLACK_S:.2f}s), peak {lint_mb:.0f} MB, {findings} findings '
              f'(want {want_findings}), budget note {noted} -> {"ok" if ok else "FAIL"}')
        failures += not ok
    sys.exit(1 if failures else 0)
finally:
    shutil.rmtree(work, ignore_errors=True)
