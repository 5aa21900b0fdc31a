#!/bin/sh
# A compile database as CMake writes it for CUDA: the include paths in an nvcc
# options file (--options-file CMakeFiles/...rsp, relative to the entry's
# directory). The lint reads it: the header is found and the race reported.
#   options_file_test.sh LINT DATA_DIR WORK_DIR
set -u
lint=$1 data=$2 dir=$3
mkdir -p "$dir/CMakeFiles/t.dir"
printf '%s\n' "-I$data/include" >"$dir/CMakeFiles/t.dir/includes_CUDA.rsp"
cat > "$dir/compile_commands.json" <<JSON
[{"directory": "$dir",
  "command": "/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler --options-file CMakeFiles/t.dir/includes_CUDA.rsp -O3 -DNDEBUG --generate-code=arch=compute_80,code=[compute_80,sm_80] -std=c++17 -x cu -c $data/options_file_include.cu -o CMakeFiles/t.dir/options_file_include.cu.o",
  "file": "$data/options_file_include.cu"}]
JSON
out=$("$lint" -p "$dir" 2>&1); rc=$?
echo "$out"
[ $rc -eq 1 ] && echo "$out" | grep -q "options_file_include.cu:14:3: warning: .*\[cross-stream-race\]"
