#!/usr/bin/env bash
# One GPU round of the distributed work, in one command: the scenarios
# (run_distributed_tests.sh) and the DDP overhead benchmark
# (../bench/run_ddp_bench.sh), with NPROC ranks (default: min(2, GPUs)).
# Leaves OUT/round.tgz (logs, databases, every rank's trace, results) and
# prints the results.
# Usage: gpu_round.sh STREAMCHECK_BINARY OUT_DIR [NPROC]
#   BENCH_ROUNDS (default 3; 0: no benchmark) and BENCH_STEPS (default 200) size the benchmark.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=${1:?streamcheck binary}
out=${2:?output directory}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
nproc=${3:-$((gpus < 2 ? gpus : 2))}
bash "$here/run_distributed_tests.sh" "$sc" "$work/scenarios" "$nproc" 2>&1 | tee "$work/scenarios.txt"
scenarios=${PIPESTATUS[0]}
pack() { tar czf "$out/round.tgz" -C "$work" --exclude='*.so' --exclude=nccl_allreduce_streams --exclude=peer_copy .; }
pack  # the scenarios' traces and logs are kept even if the benchmark is cut short
if [[ ${BENCH_ROUNDS:-3} != 0 ]]; then
  bash "$here/../bench/run_ddp_bench.sh" "$sc" "$work/bench" "${BENCH_ROUNDS:-3}" "${BENCH_STEPS:-200}" "$nproc" 2>&1 |
    tee "$work/bench.txt"
  pack
fi
rm -rf "$work"
exit "$scenarios"
