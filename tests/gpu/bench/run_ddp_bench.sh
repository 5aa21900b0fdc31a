#!/usr/bin/env bash
# A DDP training step (ddp_step.py), native vs under `streamcheck run`, with
# NPROC ranks (default: min(2, GPUs)), in one run: ROUNDS rounds, each a
# native and a traced torchrun job timing STEPS steps (goal: at most 1.3x).
# BENCH_TURNS=1 (the default): the two jobs of a round run at once on the
# same GPUs and time their chunks in turns (turns.py; each job's rank 0
# takes the turn, its other ranks wait at a CPU barrier), so every traced
# chunk is paired with the native chunks just before and after it; rank 0's
# timed thread runs on CPU BENCH_TURN_CPU (default 2), everything else on
# BENCH_TURN_OTHER_CPUS (default 3 to the last CPU). Prints the paired ratio
# over all rounds. BENCH_TURNS=0: the jobs one after another, in alternating
# order, each job's ms per step and the ratios of the rounds (the machine's
# speed changes between jobs move these by more than the goal's margin: two
# calls of four rounds each gave x1.234 and x1.586). A
# job (or a round in turns) that does not end within JOB_TIMEOUT seconds
# (default 240: a rank waiting in a collective for a peer that left) is
# killed and named.
# Usage: run_ddp_bench.sh STREAMCHECK_BINARY OUT_DIR [ROUNDS] [STEPS] [NPROC]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=$(cd "$(dirname "${1:?streamcheck binary}")" && pwd)/$(basename "$1")
out=${2:?output directory}
rounds=${3:-3}
steps=${4:-200}
gpus=$(nvidia-smi -L | grep -c '^GPU')
nproc=${5:-$((gpus < 2 ? gpus : 2))}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
job=(${TORCHRUN:-torchrun} --standalone --nproc_per_node="$nproc" "$here/ddp_step.py" "$steps")
limit=(timeout -k 10 "${JOB_TIMEOUT:-240}")
run_native() { (cd "$here" && "${limit[@]}" "${job[@]}") >"$out/native.$1.log" 2>&1 || echo "native job $1: exit $?"; }
run_traced() {
  (cd "$here" && "${limit[@]}" "$sc" run --db "$out/traced.$1.db" -- "${job[@]}") >"$out/traced.$1.log" 2>&1 ||
    echo "traced job $1: exit $?"
}
if [[ ${BENCH_TURNS:-1} == 1 ]]; then
  : >"$out/turns.jsonl"
  printf -v native_cmd '%q ' "${job[@]}"
  cpus=${BENCH_TURN_OTHER_CPUS:-3-$(($(nproc) - 1))}
  for r in $(seq 1 "$rounds"); do
    printf -v traced_cmd '%q ' "$sc" run --db "$out/traced.$r.db" -- "${job[@]}"
    (cd "$here" && "${limit[@]}" taskset -c "$cpus" "${PYTHON:-python3}" turns.py run --workload ddp \
      --log "$out/turns.jsonl" --cpu "${BENCH_TURN_CPU:-2}" --timeout "${JOB_TIMEOUT:-240}" \
      --variant native "$native_cmd" --variant traced "$traced_cmd") >"$out/turns.$r.log" 2>&1 ||
      echo "round $r in turns: exit $? ($(tail -1 "$out/turns.$r.log"))"
    { grep -h "^turns ddp\|streamcheck: [0-9]* finding" "$out/turns.$r.log" || true; } | sed "s/^/round $r: /"
  done
  "${PYTHON:-python3}" "$here/turns.py" pool "$out/turns.jsonl"
  exit 0
fi
for r in $(seq 1 "$rounds"); do
  if ((r % 2)); then run_native "$r"; run_traced "$r"; else run_traced "$r"; run_native "$r"; fi
done
"${PYTHON:-python3}" - "$out" "$rounds" <<'PY'
import re, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def figures(path):
    m = re.search(r"fast_ms_per_step=([\d.]+) ms_per_step=([\d.]+)", open(path).read())
    if not m:
        sys.exit("no timing in " + path)
    return float(m.group(1)), float(m.group(2))
fast, median = [], []
for r in range(1, rounds + 1):
    (nf, nm), (tf, tm) = figures(f"{out}/native.{r}.log"), figures(f"{out}/traced.{r}.log")
    fast.append(tf / nf)
    median.append(tm / nm)
    found = re.findall(r"streamcheck: \d+ findings? [^\n]*", open(f"{out}/traced.{r}.log").read())
    print(f"round {r}: native {nf:.3f} ms (median {nm:.3f}), traced {tf:.3f} ms (median {tm:.3f}): "
          f"x{tf / nf:.3f} fast, x{tm / nm:.3f} median; {found[-1] if found else 'no summary line'}")
print(f"ddp step, traced/native over {rounds} rounds: fast x{statistics.median(fast):.3f} "
      f"[{min(fast):.3f}, {max(fast):.3f}], median x{statistics.median(median):.3f} (goal: at most x1.3)")
PY
