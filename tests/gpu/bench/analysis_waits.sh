#!/usr/bin/env bash
# What the traced program waits for (issue 43, items 2-4), per workload: the
# waits for the analysis worker at host synchronizations (count and time,
# per step), the synchronizations not waited for, the holds for room in the
# worker's queue, the CUPTI callbacks per CUDA call, and the profile's split
# of the tracer's own time. With BASE=OTHER_STREAMCHECK (a build before the
# change, e.g. main's) the same for it, from its profile (it has no
# "analysis" counters). SPLIT=1 then runs run_bench.sh's split variants in
# turns (CUPTI alone, no plugin, no stacks, no guards, no thread clocks,
# PyTorch's sanitizer) for the wall-time share of each.
# Usage: analysis_waits.sh STREAMCHECK_BINARY OUT_DIR [LAUNCHES] [ITERS] [TRANSFORMER_STEPS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=${1:?streamcheck binary}; out=${2:?output dir}; n=${3:-100000}; iters=${4:-1000}; steps=${5:-30}
mkdir -p "$out"
py=${PYTHON:-python3}
${NVCC:-nvcc} -O2 -arch=sm_90 -o "$out/launch_rate" "$here/launch_rate.cu" || exit 1
workloads=("launch $n $out/launch_rate $n")
if "$py" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  workloads+=("loop $iters $py $here/torch_loop.py $iters"
              "transformer $steps $py $here/torch_transformer.py $steps"
              "pinned $iters $py $here/torch_pinned_copies.py $iters")
fi

# counters DB STEPS: the run's "analysis" counters, per step.
counters() {
  "$py" - "$1" "$2" <<'PY'
import sqlite3, sys
db, steps = sys.argv[1], float(sys.argv[2])
rows = dict(sqlite3.connect(db).execute(
    "SELECT name, sum(value) FROM counters WHERE category = 'analysis' GROUP BY name").fetchall())
if not rows:
    print("    (no analysis counters: a build before issue 43)")
    sys.exit()
w, us = rows.get("sync_waits", 0), rows.get("sync_wait_us", 0)
print(f"    sync waits {w} ({w / steps:.2f}/step), {us / 1000:.2f} ms ({us / steps:.1f} us/step, "
      f"{us / w if w else 0:.1f} us each); skipped {rows.get('sync_waits_skipped', 0)} "
      f"({rows.get('sync_waits_skipped', 0) / steps:.2f}/step); queue full {rows.get('queue_full_waits', 0)} "
      f"({rows.get('queue_full_wait_us', 0) / 1000:.2f} ms)")
PY
}

# profiled LABEL BINARY STEPS COMMAND...: one traced run with the profile on.
profiled() {
  local label=$1 bin=$2 count=$3; shift 3
  local db="$out/$label.db"
  rm -f "$db"
  echo "  $label:"
  STREAMCHECK_DEBUG=profile "$bin" run -q --db "$db" -- "$@" 2>"$out/$label.stderr" | grep -E '_per_|=' | sed 's/^/    /'
  # The tracer's phases (waits for analysis among them), the analysis waits'
  # own line, and the callbacks per CUDA call.
  grep -E 'waits for analysis|analysis waits|callbacks per CUDA call|locked callbacks|host guards|host-thread order|native stacks' \
    "$out/$label.stderr" | sed 's/^/    /' | cut -c1-2000
  counters "$db" "$count"
}

for w in "${workloads[@]}"; do
  read -r kind count cmd <<<"$w"
  echo "== $kind ($count steps)"
  # shellcheck disable=SC2086
  profiled "$kind-after" "$sc" "$count" $cmd
  # shellcheck disable=SC2086
  [[ -n ${BASE:-} ]] && profiled "$kind-before" "$BASE" "$count" $cmd
done

if [[ ${SPLIT:-0} == 1 ]]; then
  echo "== the hidden-cost split, in turns (run_bench.sh)"
  BENCH_SPLIT=1 BENCH_GUARDS=1 BENCH_THREADS=1 BENCH_SANITIZER=${BENCH_SANITIZER:-1} \
    bash "$here/run_bench.sh" "$sc" "$out/split" "$n" "$iters" "${ROUNDS:-2}" "$steps"
fi
