#!/usr/bin/env python3
"""The two halves agree on the bundled examples (issue 46): for every rule
both report (rules.def's Both), the lint's verdict on a GPU scenario's source
and the dynamic half's on the trace recorded from it are the same: racy
flagged by both, fixed by neither (a "possible" dynamic finding counts as
flagged).

Each testdata/traces/<scenario>.<racy|fixed>.sctrace is replayed with
`streamcheck replay`, and tests/gpu/scenarios/<scenario>.cu is linted with
-DSTREAMCHECK_SCENARIO_RACY=1 or 0 (common.cuh's Racy() is then that
constant). testdata/examples/two_streams.cu is the racy side of
two_streams.trace.txt; two_streams_fixed.cu has no trace and must be clean.

The lint's nonblocking-legacy-order is a cross-stream-race (or, at a host
access, a host-device-race) that it names after its cause; it counts as
that rule here. A scenario outside what the lint can see is in EXCLUDED,
with the reason; a trace with neither a source nor an exclusion fails.

  agreement_test.py STREAMCHECK STREAMCHECK_LINT REPO_ROOT
"""
import concurrent.futures
import glob
import os
import re
import subprocess
import sys

# Scenarios the lint does not judge, and why.
EXCLUDED = {
    'capture_to_graph': 'the race is between two nodes of one graph (a kernel node added by '
                        'cudaGraphAddKernelNode and a captured kernel): the lint models a graph launch as '
                        'one operation, with no order among its nodes, and kernel nodes added by API not at all',
    'driver_host_function': 'the fixed variant waits on a condition variable a host function signals: host '
                            'threads and their synchronization are not modeled by the lint',
    'host_callback_thread': 'the access is made on a thread a host function starts: host threads are not '
                            'modeled by the lint',
    'many_threads_pinned': 'the race is between host threads: they are not modeled by the lint',
    'per_thread_default_stream': 'the kernels are launched from two std::threads (per-thread default '
                                 'streams, ordered by a mutex): host threads are not modeled by the lint',
    'thread_handover': 'the work is handed between std::threads: host threads are not modeled by the lint',
    'thread_handover_precise': 'thread_handover in the dynamic half\'s precise mode: host threads',
    'two_host_threads': 'the race is between two std::threads: host threads are not modeled by the lint',
    'fork_processes_child': 'the trace of the child process fork_processes.cu forks: processes are not '
                            'modeled by the lint',
    'default_stream_library': 'its finding is default-stream-use (run --forbid-default-stream), which only the '
                              'dynamic half reports: no rule of both halves is at stake',
    'pytest_suite_scopes': 'a pytest suite of PyTorch and CuPy tests (tests/gpu/pytorch/scopes/): Python, not C++, '
                           'is not linted',
}
EXCLUDED_PREFIXES = {
    'pytorch_': 'a PyTorch program (tests/gpu/pytorch/scenarios.py): Python, not C++, is not linted',
}
# How each scenario is built (run_gpu_tests.sh): *per_thread* with --default-stream per-thread.
PER_THREAD_FLAG = '-fgpu-default-stream=per-thread'


def rules_of(output, lint):
    """The rules an output reports (`... [rule]` at the end of a finding's first line)."""
    found = set()
    for line in output.splitlines():
        m = re.search(r': (?:warning|error|note): (.*) \[([a-z-]+)\]$', line)
        if not m:
            continue
        rule = m.group(2)
        if lint and rule == 'nonblocking-legacy-order':
            rule = 'host-device-race' if m.group(1).startswith('the host ') else 'cross-stream-race'
        found.add(rule)
    return found


def both_halves_rules(root):
    text = open(os.path.join(root, 'rules', 'rules.def')).read()
    return {m.group(1) for m in re.finditer(r'^STREAMCHECK_RULE\(\w+,\s*"([a-z-]+)",\s*\w+,\s*Both,', text, re.M)}


def lint(lint_bin, source, flags):
    out = subprocess.run([lint_bin, source, '--'] + flags, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        return None, out.stdout + out.stderr
    return rules_of(out.stdout + out.stderr, True), ''


def replay(sc, trace):
    out = subprocess.run([sc, 'replay', '--no-db', trace], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stdout + out.stderr
    return rules_of(out.stdout + out.stderr, False), ''


def main(sc, lint_bin, root):
    compared = both_halves_rules(root)
    failures, judged, excluded = [], 0, set()
    cases = []  # (label, variant, source, flags, trace or None)
    for trace in sorted(glob.glob(os.path.join(root, 'testdata', 'traces', '*.sctrace'))):
        stem = os.path.basename(trace)[:-len('.sctrace')]
        scenario, _, variant = stem.rpartition('.')
        if variant not in ('racy', 'fixed'):
            scenario, variant = stem, ''
        reason = EXCLUDED.get(scenario) or next((r for p, r in EXCLUDED_PREFIXES.items() if scenario.startswith(p)), None)
        if reason:
            excluded.add(f'{scenario}: {reason}')
            continue
        source = os.path.join(root, 'tests', 'gpu', 'scenarios', scenario + '.cu')
        if not os.path.exists(source) or not variant:
            failures.append(f'{stem}: a trace with no scenario source and no exclusion')
            continue
        flags = [f'-DSTREAMCHECK_SCENARIO_RACY={1 if variant == "racy" else 0}']
        if 'per_thread' in scenario:
            flags.append(PER_THREAD_FLAG)
        cases.append((scenario, variant, source, flags, trace))
    examples = os.path.join(root, 'testdata', 'examples')
    cases.append(('two_streams', 'racy', os.path.join(examples, 'two_streams.cu'), [],
                  os.path.join(examples, 'two_streams.trace.txt')))
    cases.append(('two_streams_fixed', 'fixed', os.path.join(examples, 'two_streams_fixed.cu'), [], None))
    def judge(case):
        _, _, source, flags, trace = case
        return lint(lint_bin, source, flags), replay(sc, trace) if trace else (set(), '')

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        verdicts = list(pool.map(judge, cases))
    for (scenario, variant, source, flags, trace), ((lint_rules, lint_error), (dyn_rules, dyn_error)) in zip(
            cases, verdicts):
        label = f'{scenario} {variant}'
        if lint_rules is None or dyn_rules is None:
            failures.append(f'{label}: {"lint" if lint_rules is None else "replay"} failed:\n{lint_error or dyn_error}')
            continue
        judged += 1
        lint_rules &= compared
        dyn_rules &= compared
        flagged = variant == 'racy'
        dynamic = sorted(dyn_rules) or ('clean' if trace else 'clean (no trace recorded)')
        verdict = f'lint {sorted(lint_rules) or "clean"}, dynamic {dynamic}'
        if lint_rules != dyn_rules:
            failures.append(f'{label}: the halves disagree: {verdict}')
        elif bool(lint_rules) != flagged:
            failures.append(f'{label}: {"racy but flagged by neither" if flagged else "fixed but flagged"}: {verdict}')
        else:
            print(f'ok   {label}: {verdict}')
    for e in sorted(excluded):
        print(f'excluded {e}')
    for f in failures:
        print(f'FAIL {f}')
    print(f'{judged} variants judged by both halves, {len(excluded)} scenarios excluded, {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:4]))
