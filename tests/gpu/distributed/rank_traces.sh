# Sourced by the multi-rank GPU runners (run_distributed_tests.sh,
# ../mpi/run_mpi_tests.sh): each rank of a traced job writes TRACE.<pid>;
# name_rank_traces renames them after the rank in their process record.
# Needs $sc, the streamcheck binary.

# rank_of_trace TRACE: the rank its process_info record names, or nothing.
rank_of_trace() {
  "$sc" trace dump "$1" 2>/dev/null | awk '/^process_info/ { if (match($0, /rank=[0-9]+/)) print substr($0, RSTART + 5, RLENGTH - 5); exit }'
}

# name_rank_traces TRACE PREFIX: TRACE.* becomes PREFIX.rankR.sctrace.
name_rank_traces() {
  local t rank
  for t in "$1".*; do
    [[ -f "$t" ]] || continue
    rank=$(rank_of_trace "$t")
    [[ -n "$rank" ]] && mv "$t" "$2.rank$rank.sctrace"
  done
  return 0
}
