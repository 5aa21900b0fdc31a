#!/usr/bin/env bash
# Overhead benchmark: native vs traced side by side in the same run (issue
# item 7). By default each round runs its variants in turns (BENCH_TURNS,
# below) and prints each variant's paired ratio to native, pooled over the
# rounds at the end; BENCH_TURNS=0 runs them one after another and prints
# every measurement, then the median of each variant and its ratio to native.
# Usage: run_bench.sh STREAMCHECK_BINARY OUT_DIR [LAUNCHES] [TORCH_ITERS] [ROUNDS] [TRANSFORMER_STEPS]
# In the one-after-another mode: BENCH_INLINE=1 adds "inline analysis"
# variants (the engine inside each callback instead of on the analysis
# worker's thread); BENCH_SPLIT=1 those
# that split the overhead (no host stacks; no plugin; PyTorch's op
# observation alone). BASE=OTHER_BINARY
# adds "base" variants traced by another streamcheck build (with its tracer
# and plugin beside it), to compare two builds in one run. BENCH_TRANSFORMER=0
# leaves the transformer out (a shorter run for the launch and loop figures);
# BENCH_LAUNCH=0 the launch rate, BENCH_LOOP=0 the eager loop.
# BENCH_FLOORS=1 adds CUPTI floors below "callbacks only": a subscription with
# no callback enabled, and one with the kernel launch callbacks alone.
# BENCH_STACK_CACHE=1 adds "traced, every stack unwound" (repeated stacks not
# recognized: STREAMCHECK_STACK_CACHE=0). BENCH_CUPTI=0 and BENCH_SANITIZER=0
# leave out the PyTorch workloads' "CUPTI callbacks only" and PyTorch's
# sanitizer (more rounds of native against traced in the same time: the
# machine's speed differs from process to process, so a comparison needs many).
# BENCH_TURNS=1 (the default) runs each round's variants at once, timing
# their chunks in turns (turns.py: each chunk paired with the native chunks
# just before and after it): native, traced, base if given, CUPTI callbacks
# only unless BENCH_CUPTI=0, and for the PyTorch workloads PyTorch's
# sanitizer unless BENCH_SANITIZER=0 (the same steps, about ten times as
# long); BENCH_SPLIT=1 adds variants without a part of the tracer each
# (stacks, analysis, queuing, the PyTorch plugin, its block events), and
# BENCH_FLOORS=1 the CUPTI floors (as above). Every variant's
# timed thread runs on CPU BENCH_TURN_CPU (default 2) and their other threads
# on BENCH_TURN_OTHER_CPUS (default 3-7). The rounds' chunks go to
# OUT_DIR/turns.jsonl, pooled at the end (turns.py pool).
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
# turns_round KIND COMMAND...: one round of a workload's variants in turns.
turns_round() {
  local kind=$1; shift
  local cmd tracer base_tracer
  printf -v cmd '%q ' "$@"
  printf -v tracer '%q ' "${traced[@]}"
  local variants=(--variant native "$cmd" --variant traced "$tracer -- $cmd")
  if ((${#base[@]})); then
    printf -v base_tracer '%q ' "${base[@]}"
    variants+=(--variant "traced, base" "$base_tracer -- $cmd")
  fi
  [[ ${BENCH_CUPTI:-1} == 1 ]] &&
    variants+=(--variant "CUPTI callbacks only" "env STREAMCHECK_DEBUG=callbacks-only $tracer -- $cmd")
  [[ ${BENCH_FLOORS:-0} == 1 ]] &&  # CUPTI's own cost with fewer callbacks enabled
    variants+=(--variant "CUPTI launch callbacks only" "env STREAMCHECK_DEBUG=callbacks-only,launch-callbacks-only $tracer -- $cmd"
               --variant "CUPTI subscription only" "env STREAMCHECK_DEBUG=callbacks-only,subscribe-only $tracer -- $cmd")
  [[ $kind != launch && ${BENCH_SANITIZER:-1} == 1 ]] &&
    variants+=(--variant "TORCH_CUDA_SANITIZER=1" "env TORCH_CUDA_SANITIZER=1 $cmd")
  if [[ ${BENCH_SPLIT:-0} == 1 ]]; then  # what each part costs: the traced run without it
    local nostacks_tracer; printf -v nostacks_tracer '%q ' "${nostacks[@]}"
    variants+=(--variant "traced, no stacks" "$nostacks_tracer -- $cmd"
               --variant "traced, no analysis" "env STREAMCHECK_DEBUG=skip-analysis $tracer -- $cmd"
               --variant "traced, records not queued" "env STREAMCHECK_DEBUG=drop-records $tracer -- $cmd")
    [[ $kind != launch ]] &&
      variants+=(--variant "traced, no plugin" "env STREAMCHECK_FRAMEWORKS=0 $tracer -- $cmd"
                 --variant "traced, no block events" "env STREAMCHECK_DEBUG=no-block-events $tracer -- $cmd")
  fi
  local turn_pin=(); command -v taskset >/dev/null && turn_pin=(taskset -c "${BENCH_TURN_OTHER_CPUS:-3-7}")
  "${turn_pin[@]}" python3 "$here/turns.py" run --workload "$kind" --log "$out/turns.jsonl" \
    --cpu "${BENCH_TURN_CPU:-2}" "${variants[@]}" 2>>"$out/bench.stderr" ||
    echo "turns $kind: round failed: $(grep turns.py "$out/bench.stderr" | tail -1)"
}
py=${PYTHON:-python3}
torch_ok=0; "$py" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null && torch_ok=1
if [[ ${BENCH_TURNS:-1} == 1 ]]; then
  : >"$out/turns.jsonl"
  for ((r = 0; r < rounds; r++)); do
    [[ ${BENCH_LAUNCH:-1} == 1 ]] && turns_round launch "$out/launch_rate" "$n"
    ((torch_ok)) || continue
    [[ ${BENCH_LOOP:-1} == 1 ]] && turns_round torch "$py" "$here/torch_loop.py" "$iters"
    [[ ${BENCH_TRANSFORMER:-1} == 1 ]] && turns_round transformer "$py" "$here/torch_transformer.py" "$steps"
  done
  echo
  python3 "$here/turns.py" pool "$out/turns.jsonl"
  exit 0
fi
for ((r = 0; r < rounds; r++)); do
  [[ ${BENCH_LAUNCH:-1} == 1 ]] || break
  measure "launch native" "$out/launch_rate" "$n"
  measure "launch traced" "${traced[@]}" -- "$out/launch_rate" "$n"
  [[ ${BENCH_INLINE:-0} == 1 ]] && measure "launch inline analysis" env STREAMCHECK_DEBUG=inline-analysis "${traced[@]}" -- "$out/launch_rate" "$n"
  [[ ${BENCH_SPLIT:-0} == 1 ]] && measure "launch traced, no stacks" "${nostacks[@]}" -- "$out/launch_rate" "$n"
  [[ ${BENCH_STACK_CACHE:-0} == 1 ]] &&
    measure "launch traced, every stack unwound" env STREAMCHECK_STACK_CACHE=0 "${traced[@]}" -- "$out/launch_rate" "$n"
  measure "launch CUPTI callbacks only" env STREAMCHECK_DEBUG=callbacks-only "${traced[@]}" -- "$out/launch_rate" "$n"
  if [[ ${BENCH_FLOORS:-0} == 1 ]]; then
    measure "launch CUPTI launch callbacks only" env STREAMCHECK_DEBUG=callbacks-only,launch-callbacks-only "${traced[@]}" -- "$out/launch_rate" "$n"
    measure "launch CUPTI subscription only" env STREAMCHECK_DEBUG=callbacks-only,subscribe-only "${traced[@]}" -- "$out/launch_rate" "$n"
  fi
  ((${#base[@]})) && measure "launch traced, base" "${base[@]}" -- "$out/launch_rate" "$n"
done
# pytorch_variants KIND SCRIPT COUNT SANITIZER_COUNT [floors]: one round of a
# PyTorch workload's variants (PyTorch's sanitizer runs fewer, slower steps).
pytorch_variants() {
  local kind=$1 script=$here/$2 count=$3 sanitizer_count=$4 floors=${5:-}
  measure "$kind native" "$py" "$script" "$count"
  measure "$kind traced" "${traced[@]}" -- "$py" "$script" "$count"
  [[ ${BENCH_INLINE:-0} == 1 ]] &&
    measure "$kind inline analysis" env STREAMCHECK_DEBUG=inline-analysis "${traced[@]}" -- "$py" "$script" "$count"
  if [[ ${BENCH_SPLIT:-0} == 1 ]]; then
    measure "$kind observer floor" env STREAMCHECK_DEBUG=observer-floor "${traced[@]}" -- "$py" "$script" "$count"
    measure "$kind traced, no plugin" env STREAMCHECK_FRAMEWORKS=0 "${traced[@]}" -- "$py" "$script" "$count"
    measure "$kind traced, no stacks" "${nostacks[@]}" -- "$py" "$script" "$count"
  fi
  [[ ${BENCH_STACK_CACHE:-0} == 1 ]] &&
    measure "$kind traced, every stack unwound" env STREAMCHECK_STACK_CACHE=0 "${traced[@]}" -- "$py" "$script" "$count"
  [[ ${BENCH_CUPTI:-1} == 1 ]] &&
    measure "$kind CUPTI callbacks only" env STREAMCHECK_DEBUG=callbacks-only "${traced[@]}" -- "$py" "$script" "$count"
  if [[ $floors == floors && ${BENCH_FLOORS:-0} == 1 ]]; then
    measure "$kind CUPTI launch callbacks only" env STREAMCHECK_DEBUG=callbacks-only,launch-callbacks-only "${traced[@]}" -- "$py" "$script" "$count"
    measure "$kind CUPTI subscription only" env STREAMCHECK_DEBUG=callbacks-only,subscribe-only "${traced[@]}" -- "$py" "$script" "$count"
  fi
  ((${#base[@]})) && measure "$kind traced, base" "${base[@]}" -- "$py" "$script" "$count"
  [[ ${BENCH_SANITIZER:-1} == 1 ]] &&
    measure "$kind TORCH_CUDA_SANITIZER=1" env TORCH_CUDA_SANITIZER=1 "$py" "$script" "$sanitizer_count"
  return 0
}
if ((torch_ok)); then
  for ((r = 0; r < rounds; r++)); do
    [[ ${BENCH_LOOP:-1} == 1 ]] && pytorch_variants torch torch_loop.py "$iters" "$((iters / 10))" floors
    [[ ${BENCH_TRANSFORMER:-1} == 1 ]] && pytorch_variants transformer torch_transformer.py "$steps" "$((steps / 5))"
  done
fi
# Where the tracer's time goes (STREAMCHECK_DEBUG=profile), once per workload.
profiled=()
[[ ${BENCH_LOOP:-1} == 1 ]] && profiled=("$py $here/torch_loop.py $iters")
[[ ${BENCH_LAUNCH:-1} == 1 ]] && profiled=("$out/launch_rate $n" "${profiled[@]}")
[[ ${BENCH_TRANSFORMER:-1} == 1 ]] && profiled+=("$py $here/torch_transformer.py $steps")
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
