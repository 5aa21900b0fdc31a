#!/usr/bin/env bash
# Builds every tests/gpu/scenarios program with nvcc, runs each variant (and
# each PyTorch scenario of tests/gpu/pytorch/) under `streamcheck run`, and
# checks the findings against the expectations files. Each variant also runs
# without streamcheck, and its output (stdout) and exit status must be the
# same traced and not: the tracer never changes the program (COMPARE_NATIVE=0
# skips that).
# A scenario's "// nvcc-flags: ..." line adds to its nvcc command, "// run-flags: ..."
# to its `streamcheck run`, and "// nvcc-library: NAME" builds the same source
# with -DSCENARIO_LIBRARY into libNAME.so first and links the program with it.
# Usage: run_gpu_tests.sh STREAMCHECK_BINARY OUT_DIR [EXPECTATIONS_FILE...]
#   (default: expectations.txt and pytorch/expectations.txt). JOBS runs at once (default 8).
#   RUN_FLAGS adds options to every `streamcheck run` (e.g. --no-host-guards;
#   RUN_FLAGS=--precise defaults to expectations_precise.txt).
# Exit: 0 all as expected, 1 a mismatch, 77 no GPU (skipped).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=${1:?streamcheck binary}
out=${2:?output directory}
shift 2
files=("$@")
run_flags=(${RUN_FLAGS:-})
if ((${#files[@]} == 0)); then
  if [[ " ${run_flags[*]} " == *" --precise"* ]]; then files=("$here/expectations_precise.txt")
  else files=("$here/expectations.txt" "$here/pytorch/expectations.txt"); fi
fi
mkdir -p "$out/results"
rm -f "$out/results/"*
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: skipping GPU scenarios"; exit 77
fi
py=${PYTHON:-python3}
have_torch=0
"$py" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null && have_torch=1

# Checks one run's findings (report JSON on stdin) against its expectation words.
check_findings() {
  "$py" -c '
import json, sys
words = sys.argv[1].split()
findings = json.load(sys.stdin)["findings"]
found = sorted({f["rule"] for f in findings})
if words == ["clean"]:
    sys.exit("expected clean, found: " + " ".join(found) if found else 0)
rules = [w for w in words if "=" not in w]
checks = dict(w.split("=", 1) for w in words if "=" in w)
missing = [r for r in rules if r not in found]
if missing:
    sys.exit("missing " + " ".join(missing) + " (found: " + (" ".join(found) or "nothing") + ")")
ruled = [f for f in findings if f["rule"] in rules]
if "count" in checks and len(ruled) != int(checks["count"]):
    sys.exit("%d findings of %s, expected %s: %s" % (len(ruled), " ".join(rules), checks["count"],
                                                      [f["message"] for f in ruled]))
for f in ruled:
    rule, accesses = f["rule"], f["accesses"]
    if "confidence" in checks and f.get("confidence") != checks["confidence"]:
        sys.exit("%s: confidence %s, expected %s" % (rule, f.get("confidence"), checks["confidence"]))
    if "severity" in checks and f["severity"] != checks["severity"]:
        sys.exit("%s: a %s, expected a %s: %s" % (rule, f["severity"], checks["severity"], f["message"]))
    names = [" ".join(str(a.get(k) or "") for k in ("op", "api", "framework_op")) for a in accesses]
    for op in checks.get("ops", "").split(","):
        if op and not any(op in n for n in names):
            sys.exit("%s: no access names %s: %s" % (rule, op, names))
    if "scope" in checks and not any(a.get("scope") == checks["scope"] for a in accesses):
        sys.exit("%s: no access in scope %s: %s" % (rule, checks["scope"], [a.get("scope") for a in accesses]))
    for a in accesses if "stack" in checks else []:
        if not any(checks["stack"] in (fr.get("file") or "") for fr in a.get("stack") or []):
            sys.exit("%s: %s has no frame in %s" % (rule, a.get("op"), checks["stack"]))
print(" ".join(found))
' "$1"
}

# run_one PROGRAM VARIANT EXPECTATION...: one traced run, one result line.
run_one() {
  local program=$1 variant=$2; shift 2
  local rest="$*" name=${program//\//_} exe own_flags=()
  if [[ "$program" == pytorch/* ]]; then
    exe=("$py" "$here/pytorch/scenarios.py" "${program#pytorch/}")
  else
    exe=("$out/$program")
    read -ra own_flags <<<"$(sed -n 's|^// run-flags: ||p' "$here/scenarios/$program.cu")"
  fi
  local db="$out/$name.$variant.db" want_rc=0 rc found
  rm -f "$db"*
  if [[ "$rest" == exit=* ]]; then read -r token rest <<<"$rest"; want_rc=${token#exit=}; fi
  "$sc" run --db "$db" --trace "$out/$name.$variant.sctrace" "${run_flags[@]}" "${own_flags[@]}" -- "${exe[@]}" "$variant" \
    >"$out/$name.$variant.out" 2>"$out/$name.$variant.log"
  rc=$?
  if [[ $rc -ne $want_rc ]]; then
    echo "FAIL $program $variant: exit $rc, expected $want_rc ($(tail -3 "$out/$name.$variant.log" | tr '\n' ' '))"
    return
  fi
  if [[ ${COMPARE_NATIVE:-1} == 1 ]]; then
    local native_rc  # in a subshell whose stderr takes the shell's own "Segmentation fault" too
    native_rc=$( { "${exe[@]}" "$variant" >"$out/$name.$variant.native.out" 2>/dev/null; echo $?; } 2>/dev/null )
    if [[ $native_rc -ne $rc ]]; then
      echo "FAIL $program $variant: exit $rc traced, $native_rc without streamcheck"
      return
    fi
    if ! cmp -s "$out/$name.$variant.out" "$out/$name.$variant.native.out"; then
      echo "FAIL $program $variant: output differs without streamcheck: $(diff "$out/$name.$variant.native.out" \
        "$out/$name.$variant.out" | head -4 | tr '\n' ' ')"
      return
    fi
  fi
  if found=$("$sc" report "$db" --format json 2>&1 | check_findings "$rest" 2>&1); then
    echo "ok   $program $variant: ${found:-clean}"
  else
    echo "FAIL $program $variant: $found"
  fi
}

runs=()
for file in "${files[@]}"; do
  while read -r program variant rest; do
    [[ -z "$program" || "$program" == \#* ]] && continue
    if [[ "$program" == pytorch/* ]]; then
      ((have_torch)) || { echo "skip $program $variant: no PyTorch with CUDA"; continue; }
    elif [[ ! -x "$out/$program" ]]; then
      flags=(-O2 -g -arch=sm_90 -std=c++17)
      [[ "$program" == *per_thread* ]] && flags+=(--default-stream per-thread)
      read -ra extra <<<"$(sed -n 's|^// nvcc-flags: ||p' "$here/scenarios/$program.cu")"
      library=$(sed -n 's|^// nvcc-library: ||p' "$here/scenarios/$program.cu")
      if [[ -n "$library" ]]; then
        if ! "${NVCC:-nvcc}" "${flags[@]}" -shared -Xcompiler -fPIC -DSCENARIO_LIBRARY -o "$out/lib$library.so" \
             "$here/scenarios/$program.cu" "${extra[@]}" >"$out/$program.library.build.log" 2>&1; then
          echo "FAIL $program: library build failed" >"$out/results/$program.build"; cat "$out/$program.library.build.log"; continue
        fi
        extra+=(-L"$out" -l"$library" -Xlinker -rpath="$out")
      fi
      if ! "${NVCC:-nvcc}" "${flags[@]}" -o "$out/$program" "$here/scenarios/$program.cu" "${extra[@]}" >"$out/$program.build.log" 2>&1; then
        echo "FAIL $program: build failed" >"$out/results/$program.build"; cat "$out/$program.build.log"; continue
      fi
    fi
    runs+=("$program $variant $rest")
  done <"$file"
done
i=0
for r in "${runs[@]}"; do
  run_one $r >"$out/results/$i" &
  i=$((i + 1))
  while (($(jobs -rp | wc -l) >= ${JOBS:-8})); do wait -n; done
done
wait
cat "$out/results/"* | sort -k2
failures=$(cat "$out/results/"* | grep -c '^FAIL')
echo "GPU scenarios: $failures failure(s) of $i run(s)"
[[ $failures -eq 0 ]]
