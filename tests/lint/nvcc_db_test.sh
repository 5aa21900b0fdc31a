#!/bin/sh
# streamcheck-lint -p on a compile_commands.json whose command is nvcc's must
# translate the flags, analyse the file, and report its finding (exit 1).
#   nvcc_db_test.sh LINT DATA_DIR WORK_DIR [INPUT [EXTRA_NVCC_FLAGS [RULE]]]
set -u
lint=$1 data=$2 dir=$3
input=${4:-cross_stream_race_basic.cu} extra=${5:-} rule=${6:-cross-stream-race}
mkdir -p "$dir"
cat > "$dir/compile_commands.json" <<JSON
[{"directory": "$dir",
  "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -ccbin=/usr/bin/g++ -DNDEBUG -I$data -O3 --generate-code=arch=compute_80,code=[compute_80,sm_80] -Xcompiler=-fPIC,-Wall --expt-relaxed-constexpr -rdc=true -std=c++17 $extra -x cu -c $data/$input -o x.o",
  "file": "$data/$input"}]
JSON
out=$("$lint" -p "$dir" 2>&1); rc=$?
echo "$out"
[ $rc -eq 1 ] && echo "$out" | grep -q "\[$rule\]"
