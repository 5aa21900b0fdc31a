#!/usr/bin/env bash
# The MPI scenarios (expectations.txt) under `streamcheck run -- mpirun -np 2`,
# two ranks on one GPU: mpi_scenarios.cu built with the machine's MPI and
# nvcc, and mpi4py_scenarios.py over CuPy (else PyTorch) arrays. Finds mpicc
# and mpirun (PATH, the Python environment's bin, mpi4py's config), says
# which MPI it is and whether it is CUDA-aware (ompi_info, else the
# program's MPIX query); device-buffer cases are skipped where it is not
# (the replayed traces of testdata/traces/mpi/ cover them). Prints one line
# per case (ok / FAIL / skip) and keeps each rank's trace.
# Usage: run_mpi_tests.sh STREAMCHECK_BINARY OUT_DIR
#   MPICC, MPIRUN: the MPI to use. MPI_CUDA_AWARE=0|1 overrides the detection.
#   ONLY=REGEX runs the scenarios whose names match. RUN_FLAGS adds options to
#   every `streamcheck run`.
#   OUT_DIR gets NAME.MEMORY.VARIANT.{db,log}, traces/NAME.MEMORY.VARIANT.rankR.sctrace
#   and results.txt.
# Exit: 0 all as expected, 1 a mismatch, 77 no GPU or no MPI.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sc=$(cd "$(dirname "${1:?streamcheck binary}")" && pwd)/$(basename "$1")
out=${2:?output directory}
mkdir -p "$out/traces" "$out/results"
out=$(cd "$out" && pwd)
rm -f "$out/results/"* "$out/traces/"*
read -r -a run_flags <<<"${RUN_FLAGS:-}"
py=${PYTHON:-python3}
if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no GPU: skipping the MPI scenarios"; exit 77
fi

# --- which MPI ---------------------------------------------------------------
find_tool() {  # find_tool NAME: PATH, then the Python environment's bin, then mpi4py's config
  local name=$1 found
  found=$(command -v "$name" 2>/dev/null) && { echo "$found"; return; }
  found="$(dirname "$(command -v "$py")")/$name"
  [[ -x "$found" ]] && { echo "$found"; return; }
  found=$("$py" -c 'import sys, mpi4py; print(mpi4py.get_config().get("mpicc", ""))' 2>/dev/null)
  [[ -n "$found" && -x "$(dirname "$found")/$name" ]] && { echo "$(dirname "$found")/$name"; return; }
  return 1
}
mpicc=${MPICC:-$(find_tool mpicc)} || mpicc=""
mpirun=${MPIRUN:-$(find_tool mpirun || find_tool mpiexec)} || mpirun=""
if [[ -z "$mpirun" ]]; then
  echo "no mpirun or mpiexec (PATH, $(dirname "$(command -v "$py")"), mpi4py): skipping the MPI scenarios"; exit 77
fi
mpi_bin=$(dirname "$mpirun")
flavor=unknown
if "$mpirun" --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then flavor=openmpi
elif "$mpirun" --version 2>&1 | grep -qi "hydra\|mpich\|intel"; then flavor=mpich; fi
echo "MPI: $flavor, mpirun $mpirun, mpicc ${mpicc:-none}"
launch=("$mpirun" -np 2)
if [[ $flavor == openmpi ]]; then
  # Root on the GPU machines; two ranks on however many cores.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  launch+=(--oversubscribe)
fi

# --- build the C++ program ---------------------------------------------------
# nvcc compiles with MPI's include flags; mpicc links (its link line is MPI's own).
built=0
if [[ -n "$mpicc" ]]; then
  compile=$("$mpicc" -showme:compile 2>/dev/null || "$mpicc" -compile_info 2>/dev/null | cut -d' ' -f2-)
  includes=()
  for word in $compile; do [[ $word == -I* || $word == -D* ]] && includes+=("$word"); done
  cuda=$(dirname "$(dirname "$(command -v "${NVCC:-nvcc}")")")
  if "${NVCC:-nvcc}" -O2 -g -std=c++17 -arch=native "${includes[@]}" -c -o "$out/mpi_scenarios.o" \
       "$here/mpi_scenarios.cu" >"$out/mpi_scenarios.build.log" 2>&1 &&
     "$mpicc" -o "$out/mpi_scenarios" "$out/mpi_scenarios.o" -L"$cuda/lib64" -lcudart -lstdc++ \
       -Wl,-rpath,"$cuda/lib64" >>"$out/mpi_scenarios.build.log" 2>&1; then
    built=1
  else
    echo "(mpi_scenarios: build failed, see $out/mpi_scenarios.build.log)"
  fi
else
  echo "(no mpicc: the C++ scenarios are not built)"
fi
have_mpi4py=0
"$py" -c "import mpi4py.MPI" 2>/dev/null && have_mpi4py=1
have_gpu_arrays=0
"$py" -c "import cupy" 2>/dev/null && have_gpu_arrays=1
"$py" -c "import torch; assert torch.cuda.is_available()" 2>/dev/null && have_gpu_arrays=1

# --- CUDA-aware? -------------------------------------------------------------
aware=${MPI_CUDA_AWARE:-}
if [[ -z "$aware" && -x "$mpi_bin/ompi_info" ]]; then
  "$mpi_bin/ompi_info" --parsable --all 2>/dev/null | grep -q "mpi_built_with_cuda_support:value:true" && aware=1 || aware=0
fi
if [[ -z "$aware" && $built == 1 ]]; then
  answer=$("${launch[@]}" "$out/mpi_scenarios" cuda-aware 2>/dev/null | sed -n 's/^cuda-aware: //p')
  case $answer in yes) aware=1 ;; no) aware=0 ;; esac
fi
aware=${aware:-0}
echo "CUDA-aware: $([[ $aware == 1 ]] && echo yes || echo "no (device-buffer cases skipped)")"

# shellcheck source=../distributed/rank_traces.sh
source "$here/../distributed/rank_traces.sh"

# run_one NAME MEMORY VARIANT EXPECTATION...: one traced job of two ranks, one result line.
run_one() {
  local name=$1 memory=$2 variant=$3; shift 3
  local tag="$name.$memory.$variant" cmd rc found
  local db="$out/$tag.db" trace="$out/traces/$tag.sctrace" log="$out/$tag.log"
  rm -f "$db"*
  if [[ $name == py_* ]]; then cmd=("${launch[@]}" "$py" "$here/mpi4py_scenarios.py" "${name#py_}" "$memory" "$variant")
  else cmd=("${launch[@]}" "$out/mpi_scenarios" "$name" "$memory" "$variant"); fi
  "$sc" run --db "$db" --trace "$trace" "${run_flags[@]}" -- "${cmd[@]}" >"$log" 2>&1
  rc=$?
  name_rank_traces "$trace" "$out/traces/$tag"  # each rank's trace, named by its rank
  if [[ $rc -eq 77 ]] && grep -q '^skip: ' "$log"; then
    echo "skip $name $memory $variant: $(grep -m1 '^skip: ' "$log" | cut -c7-)"
    return
  fi
  if [[ $rc -ne 0 ]]; then
    echo "FAIL $name $memory $variant: exit $rc ($(tail -3 "$log" | tr '\n' ' '))"
    return
  fi
  if ! found=$("$py" "$here/../distributed/check_findings.py" "$db" 2 "$@" 2>&1); then
    echo "FAIL $name $memory $variant: $found"
    return
  fi
  echo "ok   $name $memory $variant: $found"
}

i=0
while read -r name memory variant rest; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  [[ -n "${ONLY:-}" && ! "$name" =~ $ONLY ]] && continue
  result="$out/results/$(printf '%03d' "$i")"
  i=$((i + 1))
  if [[ $memory == device && $aware != 1 ]]; then
    echo "skip $name $memory $variant: the MPI is not CUDA-aware" >"$result"
  elif [[ $name == py_* && ($have_mpi4py != 1 || $have_gpu_arrays != 1) ]]; then
    echo "skip $name $memory $variant: no mpi4py with CuPy or PyTorch" >"$result"
  elif [[ $name != py_* && $built != 1 ]]; then
    echo "FAIL $name $memory $variant: mpi_scenarios not built" >"$result"
  else
    # shellcheck disable=SC2086  # the expectation's words
    run_one "$name" "$memory" "$variant" $rest >"$result" </dev/null  # mpirun reads stdin: not the expectations
  fi
  cat "$result"
done <"$here/expectations.txt"
cat "$out/results/"* >"$out/results.txt"
failures=$(grep -c '^FAIL' "$out/results.txt")
skipped=$(grep -c '^skip' "$out/results.txt")
echo "MPI scenarios: $failures failure(s), $skipped skipped, of $i ($flavor, CUDA-aware=$aware)"
[[ $failures -eq 0 ]]
