"""Checks one traced run's findings database against its expectation words.

Usage: check_findings.py DB RANKS WORD...
  WORDs: `clean`, or rule ids that must be found, with checks:
    ops=A,B     each of A and B is a substring of some access's op or framework op
    stack=FILE  every access of the finding has a frame in FILE (the Python stack)
    ranks=all   each of the RANKS processes has the finding (default: some process)
    ranks=even  exactly the even ranks have it
    only        no rule but the listed ones is found
Prints the rules found, per rank; exits non-zero with the reason on a mismatch.
Reads the database with Python's sqlite3 (docs/SCHEMA.md), which the GPU
machines have; nothing here needs streamcheck's build.
"""
import sqlite3
import sys


def findings(db):
    con = sqlite3.connect(db)
    run = con.execute("SELECT max(id) FROM runs").fetchone()[0]
    rows = con.execute(
        "SELECT f.id, f.rule, coalesce(p.rank, -1) FROM findings f LEFT JOIN processes p ON p.id = f.process_id "
        "WHERE f.run_id = ?", (run,)).fetchall()
    out = []
    for fid, rule, rank in rows:
        accesses = []
        for op, api, framework_op, stack_id in con.execute(
                "SELECT op, api, framework_op, stack_id FROM accesses WHERE finding_id = ? ORDER BY ordinal", (fid,)):
            files = [r[0] for r in con.execute("SELECT file FROM frames WHERE stack_id = ?", (stack_id,))]
            accesses.append({"names": " ".join((op, api, framework_op)), "files": files})
        out.append({"rule": rule, "rank": rank, "accesses": accesses})
    return out


def check(found, ranks, words):
    if words == ["clean"]:
        if found:
            return "expected clean, found: " + " ".join(sorted({"%s@%d" % (f["rule"], f["rank"]) for f in found}))
        return None
    rules = [w for w in words if "=" not in w and w != "only"]
    checks = dict(w.split("=", 1) for w in words if "=" in w)
    if "only" in words and {f["rule"] for f in found} - set(rules):
        return "found %s, expected only %s" % (" ".join(sorted({f["rule"] for f in found} - set(rules))),
                                               " ".join(rules))
    for rule in rules:
        hits = [f for f in found if f["rule"] == rule]
        if not hits:
            return "missing %s (found: %s)" % (rule, " ".join(sorted({f["rule"] for f in found})) or "nothing")
        for f in hits:
            for op in filter(None, checks.get("ops", "").split(",")):
                if not any(op in a["names"] for a in f["accesses"]):
                    return "%s on rank %d: no access names %s: %s" % (rule, f["rank"], op,
                                                                      [a["names"] for a in f["accesses"]])
            for a in f["accesses"] if "stack" in checks else []:
                if not any(checks["stack"] in file for file in a["files"]):
                    return "%s on rank %d: %s has no frame in %s" % (rule, f["rank"], a["names"], checks["stack"])
        with_it = sorted({f["rank"] for f in hits})
        want = {"all": list(range(ranks)), "even": list(range(0, ranks, 2))}.get(checks.get("ranks"))
        if want is not None and with_it != want:
            return "%s on ranks %s, expected %s" % (rule, with_it, want)
    return None


def main():
    db, ranks, words = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    found = findings(db)
    problem = check(found, ranks, words)
    if problem:
        sys.exit(problem)
    print(" ".join(sorted({"%s@rank%d" % (f["rule"], f["rank"]) for f in found})) or "clean")


if __name__ == "__main__":
    main()
