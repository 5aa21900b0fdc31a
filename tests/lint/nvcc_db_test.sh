#!/bin/sh
# streamcheck-lint -p on a compile_commands.json whose command is nvcc's must
# translate the flags, analyse the file, and report its one finding (exit 1).
set -u
lint=$1 data=$2 dir=$3
mkdir -p "$dir"
cat > "$dir/compile_commands.json" <<JSON
[{"directory": "$dir",
  "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -ccbin=/usr/bin/g++ -DNDEBUG -I$data -O3 --generate-code=arch=compute_80,code=[compute_80,sm_80] -Xcompiler=-fPIC,-Wall --expt-relaxed-constexpr -rdc=true -std=c++17 -x cu -c $data/cross_stream_race_basic.cu -o x.o",
  "file": "$data/cross_stream_race_basic.cu"}]
JSON
out=$("$lint" -p "$dir" 2>&1); rc=$?
echo "$out"
[ $rc -eq 1 ] && echo "$out" | grep -q '\[cross-stream-race\]'
