#!/bin/sh
# static_tls_size_test.sh LIBRARY LIMIT: fails when LIBRARY's thread-local
# storage (its TLS segment) takes more than LIMIT bytes.
#
# The injected tracer reaches its per-thread state through an initial-exec
# thread-local (tracer/thread_state.h), which puts the library's whole TLS
# segment in the static TLS block that glibc reserves for libraries loaded
# later with dlopen. That reserve is small and shared (libgomp and others
# take from it); a library that no longer fits cannot be loaded, and CUDA
# then runs the program untraced. New per-thread data belongs in ThreadState.
lib=$1 limit=$2
memsz=$(readelf -lW "$lib" | awk '$1 == "TLS" { print $6 }')
if [ -z "$memsz" ]; then
  echo "$lib: no TLS segment"
  exit 0
fi
size=$(printf '%d' "$memsz")
echo "$lib: TLS segment of $size bytes (at most $limit)"
[ "$size" -le "$limit" ]
