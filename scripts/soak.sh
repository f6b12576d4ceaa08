#!/usr/bin/env bash
# Soak: runs the CTest suite (or a part of it) N times against one MPI, no
# retries, and prints per test how often it failed and how (failure,
# timeout), so that a test failing once in ten runs stands out.
#   scripts/soak.sh [--mpi openmpi|mpich] [--runs N] [--label L]
#                   [--regex R] [-j J]
#     --mpi    build tree build/<mpi> (default openmpi), built beforehand
#              with scripts/build.sh
#     --runs   number of full runs (default 10)
#     --label  only tests with a label matching L (ctest -L)
#     --regex  only tests whose name matches R (ctest -R)
#     -j       parallel tests (default 2: the machine has 2 cores)
# Every run's ctest output is kept in build/<mpi>/soak/<date>/run<i>.log;
# the table goes to stdout and to table.txt there. Exit code 0 when no
# test failed in any run, 1 otherwise, 2 on bad usage.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpi=openmpi runs=10 jobs=2
select=()
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --mpi) mpi=${2:?}; shift 2 ;;
    --runs) runs=${2:?}; shift 2 ;;
    --label) select+=(-L "${2:?}"); shift 2 ;;
    --regex) select+=(-R "${2:?}"); shift 2 ;;
    -j) jobs=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "soak.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
case "$mpi" in mpich|openmpi) ;; *) echo "soak.sh: --mpi mpich|openmpi" >&2; exit 2 ;; esac
case "$runs" in ''|*[!0-9]*|0) echo "soak.sh: --runs needs a positive number" >&2; exit 2 ;; esac
build="$root/build/$mpi"
[ -f "$build/CTestTestfile.cmake" ] || {
  echo "soak.sh: no build in $build (run scripts/build.sh $mpi first)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out="$build/soak/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
total=$(ctest --test-dir "$build" -N "${select[@]}" | sed -n 's/^Total Tests: //p')
echo "soak: $mpi, $runs runs of ${total:-?} tests (${select[*]:-all}), logs in $out"
for i in $(seq 1 "$runs"); do
  t0=$(date +%s)
  ctest --test-dir "$build" -j "$jobs" "${select[@]}" --output-on-failure \
    > "$out/run$i.log" 2>&1
  rc=$?
  nfail=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*' "$out/run$i.log")
  echo "run $i: ctest exit $rc, $nfail failed, $(( $(date +%s) - t0 )) s"
done
# One row per test that failed at least once: its name, failures (any
# kind), of which timeouts, and the runs it failed in.
for i in $(seq 1 "$runs"); do
  sed -nE 's/^ *[0-9]+\/[0-9]+ Test +#[0-9]+: ([^ ]+) \.*\*\*\*([A-Za-z]+).*/\1 \2/p' \
    "$out/run$i.log" | sed "s/\$/ $i/"
done | awk -v runs="$runs" '
  { n[$1]++; if ($2 == "Timeout") t[$1]++; r[$1] = r[$1] (r[$1] == "" ? "" : ",") $3 }
  END { for (k in n) printf "%-50s %5d/%-2d %8d  %s\n", k, n[k], runs, t[k], r[k] }' \
  | sort > "$out/rows.txt"
{
  printf "%-50s %8s %8s  %s\n" test failed timeout runs
  if [ -s "$out/rows.txt" ]; then cat "$out/rows.txt"; else echo "(no test failed)"; fi
} | tee "$out/table.txt"
[ ! -s "$out/rows.txt" ]
