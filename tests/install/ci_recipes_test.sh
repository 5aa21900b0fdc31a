#!/usr/bin/env bash
# The CI recipes of docs/getting-started.md, run as written on a small project
# with a compile database: the commands are taken from the page itself (so
# the page cannot drift from what is tested), with `streamcheck` on PATH.
# What the services do with the files is checked against what they read:
# SARIF 2.1.0 results with a rule and a location (GitHub code scanning), and
# GitLab's code quality fields.
# Usage: ci_recipes_test.sh STREAMCHECK_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
binary=$1 source=$2 work=$3
page=$source/docs/getting-started.md
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work/bin" "$work/project/build"
ln -s "$binary" "$work/bin/streamcheck"
export PATH=$work/bin:$PATH

# The page's commands, by what they start with.
recipe() { grep -oE -- "$1.*" "$page" | head -1 | sed 's/^- run: //; s/^- //'; }
sarif_step=$(recipe '- run: streamcheck lint -p build --format sarif')
gitlab_step=$(recipe '- streamcheck lint -p build --format codeclimate')
changed_step=$(grep -oE 'streamcheck lint -p build --changed-since main' "$page" | head -1)
[[ -n $sarif_step && -n $gitlab_step && -n $changed_step ]] || fail "a recipe is missing from $page"

# A project: a clean file on main, a racy one added on a branch.
cd "$work/project"
cp "$source/testdata/examples/two_streams_fixed.cu" kernels.cu
echo build/ >.gitignore
git init -q -b main && git add -A && git -c user.name=ci -c user.email=ci@example.com commit -q -m base
git checkout -q -b topic
cp "$source/testdata/examples/two_streams.cu" copy_pipeline.cu
python3 - "$PWD" <<'PY'
import json, sys
root = sys.argv[1]
json.dump([{"directory": f"{root}/build", "file": f"{root}/{name}",
            "command": f"/usr/local/cuda/bin/nvcc -std=c++17 -c {root}/{name} -o {name}.o"}
           for name in ["kernels.cu", "copy_pipeline.cu"]], open("build/compile_commands.json", "w"))
PY

bash -c "$sarif_step" 2>"$work/sarif.log" || { cat "$work/sarif.log" >&2; fail "the GitHub step failed: $sarif_step"; }
bash -c "$gitlab_step" 2>"$work/gitlab.log" || { cat "$work/gitlab.log" >&2; fail "the GitLab step failed: $gitlab_step"; }
status=0
bash -c "$changed_step" >"$work/changed.log" 2>&1 || status=$?
[[ $status == 1 ]] || { cat "$work/changed.log" >&2; fail "$changed_step exited $status, not 1 (findings)"; }
grep -q "copy_pipeline.cu:26:3: warning: .*\[cross-stream-race\]" "$work/changed.log" || fail "no finding in the branch's file"
grep -q "kernels.cu" "$work/changed.log" && fail "the unchanged file was linted"

python3 - <<'PY'
import json
sarif = json.load(open("streamcheck.sarif"))
assert sarif["version"] == "2.1.0", sarif["version"]
run = sarif["runs"][0]
assert run["tool"]["driver"]["name"] == "streamcheck"
rules = {r["id"] for r in run["tool"]["driver"]["rules"]}
assert run["results"], "no results"
for result in run["results"]:
    assert result["ruleId"] in rules, result["ruleId"]
    assert result["message"]["text"]
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith(".cu") and location["region"]["startLine"] >= 1
issues = json.load(open("gl-code-quality-report.json"))
assert issues, "no issues"
for issue in issues:
    assert issue["description"] and issue["check_name"] and issue["fingerprint"]
    assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
    assert issue["location"]["path"] == "copy_pipeline.cu", issue["location"]
    assert issue["location"]["lines"]["begin"] >= 1
print(f"SARIF: {len(run['results'])} results; code quality: {len(issues)} issues")
PY
echo "CI recipes: ok"
