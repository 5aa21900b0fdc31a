#!/usr/bin/env python3
"""Times the lint against clang on each entry of a compile database (docs/lint-results.md;
the database from real_mkdb.py).

    real_measure.py LINT PROJECT_DIR OUT.json

LINT is the `streamcheck-lint` executable or `streamcheck` (its `lint` command).

For each entry: the clang command the lint prints (--print-commands), run with
-fsyntax-only as printed, and the lint on the same entry (-j 1), best of 2 each,
alternated; the lint's warnings, exit status and what it said it left out.
"""
import json, os, re, shlex, statistics, subprocess, sys, time
if len(sys.argv) != 4:
    sys.exit(__doc__)
db_dir, out_json = sys.argv[2], sys.argv[3]
# `streamcheck` takes the lint's arguments after its `lint` command.
lint = [sys.argv[1]] + (['lint'] if os.path.basename(sys.argv[1]) == 'streamcheck' else [])
clangxx = os.environ.get('CLANGXX', '/usr/lib/llvm-22/bin/clang++')
entries = json.load(open(os.path.join(db_dir, 'compile_commands.json')))
def timed(cmd, cwd=None):
    t = time.monotonic(); r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd); return time.monotonic() - t, r
rows = []
for e in entries:
    f = e['file']
    printed = subprocess.run(lint + ['-p', db_dir, '--print-commands', f], capture_output=True, text=True).stderr
    line = next((l for l in printed.splitlines() if ' && ' in l), None)
    if line is None:
        sys.exit(f"real_measure.py: {' '.join(lint)} printed no command for {f}:\n{printed}")
    words = shlex.split(line)
    cwd = words[1]; cmd = words[words.index('&&') + 1:]; cmd[0] = clangxx
    best_c = best_l = 1e9
    for _ in range(2):
        tc, rc_ = timed(cmd, cwd); best_c = min(best_c, tc)
        tl, rl = timed(lint + ['-p', db_dir, '-j', '1', f]); best_l = min(best_l, tl)
    warnings = [l for l in rl.stdout.splitlines() if re.search(r': warning: .*\[[a-z-]+\]$', l)]
    notes = [l for l in rl.stderr.splitlines() if l.startswith('streamcheck lint:')]
    rows.append(dict(file=os.path.relpath(f, db_dir), clang_s=best_c, clang_rc=rc_.returncode, lint_s=best_l,
                     lint_rc=rl.returncode, warnings=warnings, notes=notes, ratio=best_l / best_c))
    print(f"{rows[-1]['file']}: clang {best_c:.2f}s (rc {rc_.returncode}) lint {best_l:.2f}s rc {rl.returncode} "
          f"ratio {best_l/best_c:.2f} warnings {len(warnings)}", flush=True)
    for n in notes: print('   ', n[:300])
json.dump(rows, open(out_json, 'w'), indent=1)
print('median ratio', statistics.median(r['ratio'] for r in rows), 'files', len(rows),
      'warnings', sum(len(r['warnings']) for r in rows))
