#!/usr/bin/env bash
# Usage: run_obs_test.sh <units> <shm|mpi> <program> <checker> <outdir> <mpiexec> [flags...]
# Runs obs_prog with DART_STATS and DART_TRACE on (mpi: DART_SIM_NODE_SIZE=1,
# so every put takes the MPI path) and checks both files (check_obs.py).
set -uo pipefail
n=$1 path=$2 prog=$3 checker=$4 out=$5 mpiexec=$6
shift 6
mkdir -p "$out"
stats=$out/stats.$path.np$n.json trace=$out/trace.$path.np$n.json
rm -f "$stats" "$trace"
sim=0
[ "$path" = mpi ] && sim=1
env DART_STATS="$stats" DART_TRACE="$trace" DART_SIM_NODE_SIZE=$sim \
  timeout 50 "$mpiexec" -n "$n" "$@" "$prog" 2>&1
rc=$?
[ "$rc" -eq 0 ] || { echo "FAIL: program exited with $rc"; exit 1; }
ls "$trace".part* > /dev/null 2>&1 && { echo "FAIL: part files left"; exit 1; }
python3 "$checker" "$stats" "$trace" "$n" "$path"
