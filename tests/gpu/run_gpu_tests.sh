#!/usr/bin/env bash
# Builds every tests/gpu/scenarios program with nvcc, runs each variant under
# `streamcheck run`, and checks the findings against expectations.txt.
# Usage: run_gpu_tests.sh STREAMCHECK_BINARY OUT_DIR
# Exit: 0 all as expected, 1 a mismatch, 77 no GPU (skipped).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=${1:?streamcheck binary}
out=${2:?output directory}
mkdir -p "$out"
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: skipping GPU scenarios"; exit 77
fi
nvcc=${NVCC:-nvcc}
failures=0
declare -A built
while read -r program variant rest; do
  [[ -z "$program" || "$program" == \#* ]] && continue
  exe="$out/$program"
  if [[ -f "$here/scenarios/$program.py" ]]; then
    # Python scenarios run as they are, where PyTorch with CUDA is installed.
    if ! "${PYTHON:-python3}" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
      echo "skip $program $variant: no PyTorch with CUDA"; continue
    fi
    exe="$out/$program.sh"
    printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$(command -v "${PYTHON:-python3}")" "$here/scenarios/$program.py" >"$exe"
    chmod +x "$exe"
  elif [[ -z "${built[$program]:-}" ]]; then
    flags=(-O2 -g -arch=sm_90 -std=c++17)
    [[ "$program" == *per_thread* ]] && flags+=(--default-stream per-thread)
    if ! "$nvcc" "${flags[@]}" -o "$exe" "$here/scenarios/$program.cu" >"$out/$program.build.log" 2>&1; then
      echo "FAIL $program: build failed"; cat "$out/$program.build.log"; failures=$((failures+1)); continue
    fi
    built[$program]=1
  fi
  db="$out/$program.$variant.db"; rm -f "$db"*
  "$sc" run --db "$db" --trace "$out/$program.$variant.sctrace" -- "$exe" "$variant" \
    >"$out/$program.$variant.log" 2>&1
  rc=$?
  want_rc=0
  if [[ "$rest" == exit=* ]]; then read -r token rest <<<"$rest"; want_rc=${token#exit=}; fi
  if [[ $rc -ne $want_rc ]]; then echo "FAIL $program $variant: exit $rc, expected $want_rc"; tail -5 "$out/$program.$variant.log"; failures=$((failures+1)); continue; fi
  found=$("$sc" report "$db" --format json 2>/dev/null | python3 -c 'import json,sys; print(" ".join(sorted({f["rule"] for f in json.load(sys.stdin)["findings"]})))')
  if [[ "$rest" == "clean" ]]; then
    if [[ -n "$found" ]]; then echo "FAIL $program $variant: expected clean, found: $found"; failures=$((failures+1)); continue; fi
  else
    missing=""
    for rule in $rest; do [[ " $found " == *" $rule "* ]] || missing+=" $rule"; done
    if [[ -n "$missing" ]]; then echo "FAIL $program $variant: missing$missing (found: ${found:-nothing})"; failures=$((failures+1)); continue; fi
  fi
  echo "ok   $program $variant: ${found:-clean}"
done < "$here/expectations.txt"
echo "GPU scenarios: $failures failure(s)"
[[ $failures -eq 0 ]]
