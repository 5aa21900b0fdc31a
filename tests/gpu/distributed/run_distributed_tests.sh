#!/usr/bin/env bash
# The distributed scenarios (expectations.txt) under `streamcheck run`: the
# PyTorch ones under torchrun with one process per GPU, the CUDA ones (NCCL
# from C++, peer copies) as one process. Checks each run's findings
# (check_findings.py), keeps every rank's trace for replays in CI, and the
# logs.
# Usage: run_distributed_tests.sh STREAMCHECK_BINARY OUT_DIR [NPROC]
#   NPROC: processes (GPUs) per torchrun job, default min(2, GPUs); the
#   scenarios that need more are skipped. JOBS runs at once (default 3);
#   ONLY=REGEX runs the scenarios whose names match; RUN_FLAGS adds options
#   to every `streamcheck run` (RUN_FLAGS=--precise: NCCL's own work stays
#   apart under the Sanitizer API's front-end too).
#   OUT_DIR gets NAME.VARIANT.{db,log}, traces/NAME.VARIANT[.rankR].sctrace
#   and results.txt.
# Exit: 0 all as expected, 1 a mismatch, 77 no GPU.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=$(cd "$(dirname "${1:?streamcheck binary}")" && pwd)/$(basename "$1")
out=${2:?output directory}
mkdir -p "$out/traces" "$out/results"
out=$(cd "$out" && pwd)
rm -f "$out/results/"* "$out/traces/"*
if ! command -v nvidia-smi >/dev/null || ! gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU'); then
  echo "no GPU: skipping the distributed scenarios"; exit 77
fi
((gpus > 0)) || { echo "no GPU: skipping the distributed scenarios"; exit 77; }
nproc=${3:-$((gpus < 2 ? gpus : 2))}
run_flags=(${RUN_FLAGS:-})
py=${PYTHON:-python3}
torchrun=${TORCHRUN:-torchrun}
export NCCL_NVLS_ENABLE=0  # NVLink multicast stays off on the shared machines

# NCCL for the C++ program: the one PyTorch uses (the nvidia-nccl wheel).
nccl_lib=$("$py" -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib"))' 2>/dev/null)
[[ -f "$nccl_lib/libnccl.so.2" ]] || nccl_lib=$(dirname "$(ldconfig -p | awk '/libnccl.so.2 /{print $NF; exit}')")
build() {  # build NAME [NVCC FLAGS...]
  local name=$1; shift
  [[ -x "$out/$name" ]] && return 0
  "${NVCC:-nvcc}" -O2 -g -arch=sm_90 -std=c++17 -o "$out/$name" "$here/$name.cu" "$@" >"$out/$name.build.log" 2>&1
}
build nccl_allreduce_streams -L"$nccl_lib" -l:libnccl.so.2 -Xlinker -rpath="$nccl_lib" || echo "(nccl_allreduce_streams: build failed, see its build.log)"
build peer_copy || echo "(peer_copy: build failed)"

# shellcheck source=rank_traces.sh
source "$here/rank_traces.sh"

# run_one NAME VARIANT RANKS EXPECTATION...: one traced job, one result line.
run_one() {
  local name=$1 variant=$2 needs=$3; shift 3
  local db="$out/$name.$variant.db" trace="$out/traces/$name.$variant.sctrace" log="$out/$name.$variant.log" cmd rc
  rm -f "$db"*
  if [[ -f "$here/$name.cu" ]]; then
    cmd=(env LD_LIBRARY_PATH="$nccl_lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$out/$name" "$variant")
  else
    cmd=("$torchrun" --standalone --nproc_per_node="$nproc" "$here/scenarios.py" "$name" "$variant")
  fi
  "$sc" run --db "$db" --trace "$trace" "${run_flags[@]}" -- "${cmd[@]}" >"$log" 2>&1
  rc=$?
  name_rank_traces "$trace" "$out/traces/$name.$variant"  # each rank's trace, named by its rank
  if [[ $rc -ne 0 ]]; then
    echo "FAIL $name $variant: exit $rc ($(tail -3 "$log" | tr '\n' ' '))"
    return
  fi
  local found
  if ! found=$("$py" "$here/check_findings.py" "$db" "$nproc" "$@" 2>&1); then
    echo "FAIL $name $variant ($nproc ranks): $found"
    return
  fi
  # The same race on every rank: one finding in run's report, the ranks listed.
  local every; every="on ranks $(seq -s ', ' 0 $((nproc - 1)))"
  if [[ " $* " == *" ranks=all "* ]] && ((nproc > 1)) && ! grep -q "$every" "$log"; then
    echo "FAIL $name $variant ($nproc ranks): the report does not say '$every'"
    return
  fi
  echo "ok   $name $variant ($nproc ranks): $found"
}

i=0
while read -r name variant needs rest; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  [[ -n "${ONLY:-}" && ! "$name" =~ $ONLY ]] && continue
  if ((needs > nproc)); then
    echo "skip $name $variant: needs $needs GPUs" >"$out/results/$i"
  elif [[ -f "$here/$name.cu" && ! -x "$out/$name" ]]; then
    echo "FAIL $name $variant: not built" >"$out/results/$i"
  else
    run_one "$name" "$variant" "$needs" $rest >"$out/results/$i" &
  fi
  i=$((i + 1))
  while (($(jobs -rp | wc -l) >= ${JOBS:-3})); do wait -n; done
done <"$here/expectations.txt"
wait
cat "$out/results/"* | sort -k2 | tee "$out/results.txt"
failures=$(grep -c '^FAIL' "$out/results.txt")
echo "distributed scenarios: $failures failure(s) of $i, $nproc rank(s) per job"
[[ $failures -eq 0 ]]
