#!/usr/bin/env bash
# Usage: run_threads_test.sh <units> <stats|trace> <program> <checker> <outdir> <mpiexec> [flags...]
# Runs obs_threads with DART_STATS=1 (stats) or DART_STATS=1 and
# DART_TRACE=file (trace) and checks what dart_exit wrote (check_threads.py).
set -uo pipefail
n=$1 mode=$2 prog=$3 checker=$4 out=$5 mpiexec=$6
shift 6
mkdir -p "$out"
stats=$out/threads.$mode.np$n.stats.json trace=$out/threads.$mode.np$n.trace.json
rm -f "$stats" "$trace"
tr=
[ "$mode" = trace ] && tr=$trace
env DART_STATS=1 DART_STATS_FILE="$stats" DART_TRACE="$tr" \
  timeout 100 "$mpiexec" -n "$n" "$@" "$prog" 2>&1
rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: program exited with $rc"; exit 1; }
[ -n "$tr" ] || trace=-
python3 "$checker" "$stats" "$trace" "$n"
