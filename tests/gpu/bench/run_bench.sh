#!/usr/bin/env bash
# Overhead benchmark: native vs traced side by side in the same run (issue
# item 7).
# Usage: run_bench.sh STREAMCHECK_BINARY OUT_DIR [LAUNCHES] [TORCH_ITERS] [ROUNDS] [TRANSFORMER_STEPS]
# Each round runs every workload's variants (variants(), below): native,
# traced, CUPTI's callbacks alone (BENCH_CUPTI=0 leaves them out) and, for
# the PyTorch workloads, PyTorch's own sanitizer (BENCH_SANITIZER=0 leaves
# it out). Optional ones: BASE=OTHER_BINARY, traced by another streamcheck
# build (its tracer and plugin beside it), to compare two builds in one run;
# BENCH_SPLIT=1, the traced run without one part each (stacks, analysis,
# queuing; the PyTorch plugin, its block events, its observers' own work);
# BENCH_FLOORS=1, CUPTI with the launch callbacks alone and with a
# subscription alone; BENCH_INLINE=1, the engine inside each callback
# instead of on the analysis worker; BENCH_STACK_CACHE=1, every stack
# unwound (repeated stacks not recognized); BENCH_GUARDS=1, the traced run
# with --no-host-guards too (what the guard pages cost); BENCH_THREADS=1,
# the traced run without observing host-thread synchronization (what the
# pthread interposers cost); BENCH_REBIND=1, the traced run with the CUDA
# libraries' lock calls passing the interposers' check instead of going
# straight to libc (what tracer/host_threads/sync_call_rebinding.h saves). BENCH_LAUNCH=0,
# BENCH_LOOP=0, BENCH_TRANSFORMER=0 and BENCH_PINNED=0 (many small
# non_blocking copies of pinned tensors, torch_pinned_copies.py) leave a
# workload out.
# BENCH_TURNS=1 (the default) runs a round's variants at once, timing their
# chunks in turns (turns.py: each chunk paired with the native chunks just
# before and after it); every variant's timed thread runs on CPU
# BENCH_TURN_CPU (default 2), their other threads on BENCH_TURN_OTHER_CPUS
# (default 3-7). The chunks go to OUT_DIR/turns.jsonl, pooled at the end
# (turns.py pool). BENCH_TURNS=0 runs the variants one after another and
# prints every measurement, then each variant's median and its ratio to
# native (PyTorch's sanitizer, ten times slower, runs a fifth or a tenth of
# the steps there).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=${1:?streamcheck binary}; out=${2:?output dir}; n=${3:-200000}; iters=${4:-2000}; rounds=${5:-5}; steps=${6:-50}
mkdir -p "$out"
results="$out/results.txt"; : >"$results"
fast_results="$out/results-fast.txt"; : >"$fast_results"
${NVCC:-nvcc} -O2 -arch=sm_90 -o "$out/launch_rate" "$here/launch_rate.cu" || exit 1
traced=("$sc" run -q --db "$out/bench.db")
nostacks=("$sc" run -q --no-stacks --db "$out/bench.db")
base=(); [[ -n ${BASE:-} ]] && base=("$BASE" run -q --db "$out/bench-base.db")
# Every variant runs on the same cores (BENCH_CPUS), so that where the
# scheduler puts a process does not differ between native and traced runs.
pin=(); command -v taskset >/dev/null && pin=(taskset -c "${BENCH_CPUS:-2-7}")
# The GPU machine is a virtual machine: time its host takes from our cores
# (steal, /proc/stat) slows whichever variant it hits. Each measurement says
# how much there was, so a noisy figure can be told from a slow one.
steal_and_total() {
  awk -v cpus="${BENCH_CPUS:-2-7}" 'BEGIN { split(cpus, r, "-"); lo = r[1]; hi = (2 in r) ? r[2] : r[1] }
    $1 ~ /^cpu[0-9]+$/ { n = substr($1, 4) + 0; if (n >= lo && n <= hi) { s += $9; t += $2+$3+$4+$5+$6+$7+$8+$9 } }
    END { print s + 0, t + 0 }' /proc/stat 2>/dev/null || echo "0 0"
}
# measure LABEL COMMAND...: runs it, keeps the number after the last '=' (the
# median of its chunks) and the one after 'fast_...=' (their 10th percentile).
measure() {
  local label=$1; shift
  local s0 t0 s1 t1 line
  read -r s0 t0 < <(steal_and_total)
  line=$("${pin[@]}" "$@" 2>>"$out/bench.stderr")
  read -r s1 t1 < <(steal_and_total)
  echo "$label: $line steal=$(awk -v s=$((s1 - s0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.1f%%", (t > 0 ? 100 * s / t : 0) }')"
  echo "$label ${line##*=}" >>"$results"
  [[ $line =~ fast_[a-z_]+=([0-9.]+) ]] && echo "$label ${BASH_REMATCH[1]}" >>"$fast_results"
  return 0
}
# variants KIND: the variants of one round of a workload, the same in both
# modes: their labels in variant_labels, and in variant_prefixes what goes
# in front of the workload's command (quoted for the shell; empty: native).
variants() {
  local kind=$1 tracer other
  printf -v tracer '%q ' "${traced[@]}"
  variant_labels=() variant_prefixes=()
  add_variant() { variant_labels+=("$1") variant_prefixes+=("$2"); }
  add_variant native ""
  add_variant traced "$tracer --"
  if ((${#base[@]})); then
    printf -v other '%q ' "${base[@]}"
    add_variant "traced, base" "$other --"
  fi
  [[ ${BENCH_INLINE:-0} == 1 ]] && add_variant "inline analysis" "env STREAMCHECK_DEBUG=inline-analysis $tracer --"
  [[ ${BENCH_STACK_CACHE:-0} == 1 ]] &&
    add_variant "traced, every stack unwound" "env STREAMCHECK_STACK_CACHE=0 $tracer --"
  [[ ${BENCH_GUARDS:-0} == 1 ]] && add_variant "traced, no host guards" "${tracer/ run / run --no-host-guards }--"
  [[ ${BENCH_THREADS:-0} == 1 ]] &&
    add_variant "traced, host threads not observed" "env STREAMCHECK_DEBUG=trace-order-threads $tracer --"
  [[ ${BENCH_REBIND:-0} == 1 ]] &&
    add_variant "traced, sync calls not rebound" "env STREAMCHECK_DEBUG=no-sync-rebinding $tracer --"
  [[ ${BENCH_CUPTI:-1} == 1 ]] && add_variant "CUPTI callbacks only" "env STREAMCHECK_DEBUG=callbacks-only $tracer --"
  if [[ ${BENCH_FLOORS:-0} == 1 ]]; then  # CUPTI's own cost with fewer callbacks enabled
    add_variant "CUPTI launch callbacks only" "env STREAMCHECK_DEBUG=callbacks-only,launch-callbacks-only $tracer --"
    add_variant "CUPTI subscription only" "env STREAMCHECK_DEBUG=callbacks-only,subscribe-only $tracer --"
  fi
  if [[ ${BENCH_SPLIT:-0} == 1 ]]; then  # what each part costs: the traced run without it
    printf -v other '%q ' "${nostacks[@]}"
    add_variant "traced, no stacks" "$other --"
    add_variant "traced, no analysis" "env STREAMCHECK_DEBUG=skip-analysis $tracer --"
    add_variant "traced, records not queued" "env STREAMCHECK_DEBUG=drop-records $tracer --"
    if [[ $kind != launch ]]; then
      add_variant "traced, no plugin" "env STREAMCHECK_FRAMEWORKS=0 $tracer --"
      add_variant "traced, no block events" "env STREAMCHECK_DEBUG=no-block-events $tracer --"
      add_variant "observer floor" "env STREAMCHECK_DEBUG=observer-floor $tracer --"
    fi
  fi
  [[ $kind != launch && ${BENCH_SANITIZER:-1} == 1 ]] && add_variant "TORCH_CUDA_SANITIZER=1" "env TORCH_CUDA_SANITIZER=1"
  return 0
}
# turns_round KIND SANITIZER_COUNT COMMAND...: one round of a workload's
# variants in turns (PyTorch's sanitizer takes the same count: chunks are timed).
turns_round() {
  local kind=$1 cmd i args=(); shift 2
  printf -v cmd '%q ' "$@"
  variants "$kind"
  for i in "${!variant_labels[@]}"; do args+=(--variant "${variant_labels[i]}" "${variant_prefixes[i]} $cmd"); done
  local turn_pin=(); command -v taskset >/dev/null && turn_pin=(taskset -c "${BENCH_TURN_OTHER_CPUS:-3-7}")
  "${turn_pin[@]}" python3 "$here/turns.py" run --workload "$kind" --log "$out/turns.jsonl" \
    --cpu "${BENCH_TURN_CPU:-2}" "${args[@]}" 2>>"$out/bench.stderr" ||
    echo "turns $kind: round failed: $(grep turns.py "$out/bench.stderr" | tail -1)"
}
# sequential_round KIND SANITIZER_COUNT COMMAND...: one round of a
# workload's variants one after another; the command's last word is its
# count, which PyTorch's sanitizer (ten times slower) takes as SANITIZER_COUNT.
sequential_round() {
  local kind=$1 sanitizer_count=$2 cmd i; shift 2
  variants "$kind"
  for i in "${!variant_labels[@]}"; do
    local words=("$@")
    [[ ${variant_labels[i]} == TORCH_CUDA_SANITIZER=1 ]] && words[-1]=$sanitizer_count
    printf -v cmd '%q ' "${words[@]}"
    eval "measure \"\$kind \${variant_labels[i]}\" ${variant_prefixes[i]} $cmd"
  done
}
py=${PYTHON:-python3}
torch_ok=0; "$py" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null && torch_ok=1
round=sequential_round
if [[ ${BENCH_TURNS:-1} == 1 ]]; then
  round=turns_round
  : >"$out/turns.jsonl"
fi
for ((r = 0; r < rounds; r++)); do
  [[ ${BENCH_LAUNCH:-1} == 1 ]] && $round launch "$n" "$out/launch_rate" "$n"
  ((torch_ok)) || continue
  [[ ${BENCH_LOOP:-1} == 1 ]] && $round torch "$((iters / 10))" "$py" "$here/torch_loop.py" "$iters"
  [[ ${BENCH_TRANSFORMER:-1} == 1 ]] && $round transformer "$((steps / 5))" "$py" "$here/torch_transformer.py" "$steps"
  [[ ${BENCH_PINNED:-1} == 1 ]] && $round pinned "$((iters / 10))" "$py" "$here/torch_pinned_copies.py" "$iters"
done
if [[ $round == turns_round ]]; then
  echo
  python3 "$here/turns.py" pool "$out/turns.jsonl"
  exit 0
fi
# Where the tracer's time goes (STREAMCHECK_DEBUG=profile), once per workload.
profiled=()
[[ ${BENCH_LOOP:-1} == 1 ]] && profiled=("$py $here/torch_loop.py $iters")
[[ ${BENCH_LAUNCH:-1} == 1 ]] && profiled=("$out/launch_rate $n" "${profiled[@]}")
[[ ${BENCH_TRANSFORMER:-1} == 1 ]] && profiled+=("$py $here/torch_transformer.py $steps")
[[ ${BENCH_PINNED:-1} == 1 ]] && profiled+=("$py $here/torch_pinned_copies.py $iters")
for cmd in "${profiled[@]}"; do
  STREAMCHECK_DEBUG=profile "${pin[@]}" "$sc" run -q --db "$out/bench.db" -- $cmd 2>&1 | grep -E 'profile|_per_'
done
summarize() {
python3 - "$1" <<'PY'
import collections, statistics, sys
runs = collections.OrderedDict()
rounds = collections.defaultdict(list)  # label -> ratio to the native run of the same round
native = {}
for line in open(sys.argv[1]):
    label, value = line.rsplit(" ", 1)
    value = float(value)
    kind = label.split()[0]  # the first word names the workload: its native run is the base
    if label.endswith("native"):
        native[kind] = value
    runs.setdefault(label, []).append(value)
    rounds[label].append(value / native[kind])
base = {}
for label, values in runs.items():
    kind = label.split()[0]
    m = statistics.median(values)
    base.setdefault(kind, m)
    print(f"  {label:34s} {m:8.3f}  x{m / base[kind]:.2f}  (+{m - base[kind]:.3f})  "
          f"paired x{statistics.median(rounds[label]):.2f}  n={len(values)}")
PY
}
echo
echo "medians over rounds (launch: us per launch; torch: ms per iteration; transformer: ms per step);"
echo "'paired' is the median of each round's ratio to the native run just before it"
echo "each run's median chunk:"
summarize "$results"
echo "each run's fast chunks (10th percentile: the machine at full speed, timing.py):"
summarize "$fast_results"
