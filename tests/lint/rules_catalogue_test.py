#!/usr/bin/env python3
"""The rule catalogue held against what implements it (issue 41), as
clang-tidy's add_new_check.py keeps a check, its registration, its doc and its
test in step. rules/rules.def says which half reports each rule (Static,
Dynamic, Both); this test checks, for each rule:

  every rule          a doc page rules/docs/<id>.md whose "Reported by" line
                      names the halves rules.def gives it, and no page without
                      a rule;
  lint (Static/Both)  one check registered in analyzer/checks/all_checks.cpp
                      whose constructor names the rule (and no check for a
                      Dynamic-only rule), a doc section "## In `streamcheck
                      lint`" (and none for a Dynamic-only rule), and the
                      inputs of LINT_INPUTS below: racy ones expecting the rule
                      and fixed ones (a file, or FILE:FUNCTION for the fixed
                      twin in a racy file) with no expectation of it;
  dynamic (Dynamic/Both) the traces of DYNAMIC_TRACES (empty for now: the
                      dynamic half's owner fills it the same way).

A new rule fails here until it has all of these; extend the tables below.

  rules_catalogue_test.py REPO_ROOT
"""
import os
import re
import sys

# rule -> (racy lint inputs, fixed lint inputs), in testdata/lint.
LINT_INPUTS = {
    'cross-stream-race': (['cross_stream_race_basic.cu', 'library_cublas_set_stream.cu'],
                          ['event_fork_join_clean.cu', 'library_cublas_set_stream.cu:fixed']),
    'host-device-race': (['host_device_race_read.cu', 'query_polling_stored_result.cu'],
                         ['sync_then_use_clean.cu', 'query_polling_stored_result.cu:fixed_do_while']),
    'free-while-in-use': (['free_async_while_in_use.cu'], ['free_async_same_stream_clean.cu']),
    'use-after-free': (['use_after_free.cu'], ['use_after_free_order_clean.cu']),
    'use-before-allocation': (['use_before_allocation_other_stream.cu'],
                              ['use_before_allocation_other_stream.cu:fixed_event']),
    'wait-on-unrecorded-event': (['wait_on_unrecorded_event.cu'], ['event_recorded_in_loop_clean.cu']),
    'nonblocking-legacy-order': (['legacy_sync_nonblocking.cu'], ['legacy_orders_blocking_clean.cu']),
    'unsynchronized-timing': (['timing_host_clock_unsynchronized.cu'], ['timing_host_clock_synchronized_clean.cu']),
    'pageable-async-copy': (['pageable_async_copy_vector.cu'],
                            ['pageable_async_copy_vector.cu:fixed', 'pinned_async_copy_clean.cu']),
}

# rule -> (racy traces, fixed traces), in testdata/traces, for the dynamic half.
DYNAMIC_TRACES = {}

HALVES_WORDS = {'Static': ['static'], 'Dynamic': ['dynamic'], 'Both': ['dynamic', 'static']}


def parse_rules(path):
    text = open(path).read()
    rules = {}
    for m in re.finditer(r'^STREAMCHECK_RULE\((\w+),\s*"([a-z-]+)",\s*(\w+),\s*(\w+),', text, re.M):
        rules[m.group(2)] = {'enum': m.group(1), 'halves': m.group(4)}
    return rules


def registered_checks(root):
    """rule enumerator -> check class, for every check all_checks.cpp registers."""
    checks_dir = os.path.join(root, 'analyzer', 'checks')
    registry = open(os.path.join(checks_dir, 'all_checks.cpp')).read()
    classes = re.findall(r'make_unique<(\w+)>', registry)
    by_enum = {}
    for cls in classes:
        found = None
        for name in os.listdir(checks_dir):
            if not name.endswith('.cpp'):
                continue
            text = open(os.path.join(checks_dir, name)).read()
            m = re.search(cls + r'::' + cls + r'\(\)\s*:\s*LintCheck\(rules::RuleId::(\w+)\)', text)
            if m:
                found = m.group(1)
        if found is None:
            by_enum.setdefault('?', []).append(cls)
        else:
            by_enum.setdefault(found, []).append(cls)
    return by_enum


def expected_rules_in(lines):
    return set(re.findall(r'expected-warning(?:-re)?(?:@[+-]\d+)?(?::\d+)?\{\{([a-z-]+)\}\}', '\n'.join(lines)))


def function_lines(lines, function):
    """The lines of `function`'s definition (from its signature to its closing brace)."""
    start = next((i for i, l in enumerate(lines) if re.match(r'^[\w:<>,\s\*&]*\b' + function + r'\s*\(', l)), None)
    if start is None:
        return None
    depth, seen = 0, False
    for i in range(start, len(lines)):
        depth += lines[i].count('{') - lines[i].count('}')
        seen = seen or '{' in lines[i]
        if seen and depth <= 0:
            return lines[start:i + 1]
    return None


def main(root):
    errors = []
    rules = parse_rules(os.path.join(root, 'rules', 'rules.def'))
    if not rules:
        errors.append('no rules read from rules/rules.def')
    docs_dir = os.path.join(root, 'rules', 'docs')
    checks = registered_checks(root)
    for cls in checks.get('?', []):
        errors.append(f'{cls}: registered in all_checks.cpp, but its constructor names no rule')
    lint_data = os.path.join(root, 'testdata', 'lint')
    for rule, info in sorted(rules.items()):
        halves = info['halves']
        lint = halves in ('Static', 'Both')
        doc_path = os.path.join(docs_dir, rule + '.md')
        if not os.path.exists(doc_path):
            errors.append(f'{rule}: no doc page rules/docs/{rule}.md')
            doc = ''
        else:
            doc = open(doc_path).read()
        reported_by = next((l for l in doc.splitlines() if l.startswith('Severity:')), '')
        for half in ('dynamic', 'static'):
            said = f'{half} (`streamcheck' in reported_by
            if said != (half in HALVES_WORDS[halves]):
                errors.append(f'{rule}: rules.def says {halves}, the doc\'s "Reported by" line '
                              f'{"names" if said else "does not name"} the {half} half')
        has_section = '## In `streamcheck lint`' in doc
        if has_section != lint:
            errors.append(f'{rule}: {"a lint rule without" if lint else "a dynamic-only rule with"} a '
                          f'"## In `streamcheck lint`" doc section')
        registered = checks.get(info['enum'], [])
        if lint and len(registered) != 1:
            errors.append(f'{rule}: a lint rule needs one check registered in all_checks.cpp, has {registered}')
        if not lint and registered:
            errors.append(f'{rule}: dynamic-only in rules.def, yet the lint registers {registered}')
        if lint:
            racy, fixed = LINT_INPUTS.get(rule, ([], []))
            if not racy or not fixed:
                errors.append(f'{rule}: LINT_INPUTS needs a racy and a fixed input')
            for name in racy:
                path = os.path.join(lint_data, name)
                if not os.path.exists(path) or rule not in expected_rules_in(open(path).read().splitlines()):
                    errors.append(f'{rule}: racy input {name} does not expect it')
            for entry in fixed:
                name, _, function = entry.partition(':')
                path = os.path.join(lint_data, name)
                if not os.path.exists(path):
                    errors.append(f'{rule}: fixed input {name} does not exist')
                    continue
                lines = open(path).read().splitlines()
                part = function_lines(lines, function) if function else lines
                if part is None:
                    errors.append(f'{rule}: fixed input {name} has no function {function}')
                elif rule in expected_rules_in(part):
                    errors.append(f'{rule}: fixed input {entry} expects it')
        elif rule in LINT_INPUTS:
            errors.append(f'{rule}: dynamic-only, yet LINT_INPUTS lists inputs for it')
        if halves in ('Dynamic', 'Both') and DYNAMIC_TRACES:
            racy, fixed = DYNAMIC_TRACES.get(rule, ([], []))
            if not racy or not fixed:
                errors.append(f'{rule}: DYNAMIC_TRACES needs a racy and a fixed trace')
    for name in sorted(os.listdir(docs_dir)):
        if name.endswith('.md') and name[:-3] not in rules:
            errors.append(f'rules/docs/{name}: a doc page for no rule of rules.def')
    for e in errors:
        print(e)
    print(f'{len(rules)} rules, {sum(len(v) for k, v in checks.items() if k != "?")} lint checks: '
          f'{"ok" if not errors else f"{len(errors)} problem(s)"}')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))
