#!/usr/bin/env bash
# Runs the mismatched program test_watchdog (argument: the full mpiexec
# command line) with the watchdog on, and checks its report: the job must
# fail, every unit must have printed one line naming its call (dart_barrier
# or dart_allreduce), team 0 and the collective's sequence number, and both
# calls must appear.
set -uo pipefail
nunits=$1
shift
out=$(DART_WATCHDOG=1 DART_WATCHDOG_ABORT=5 "$@" 2>&1)
rc=$?
echo "$out"
fail() { echo "run_watchdog: FAILED: $*"; exit 1; }
[ "$rc" -ne 0 ] || fail "the job exited with 0"
for ((u = 0; u < nunits; u++)); do
  echo "$out" | grep -Eq "^\[DART watchdog\] unit $u waits [0-9.]+ s in dart_(barrier|allreduce) for MPI_I?(barrier|allreduce|Barrier|Allreduce): team 0 collective #[0-9]+$" \
    || fail "no report line of unit $u"
done
echo "$out" | grep -q "in dart_barrier" || fail "no unit reported dart_barrier"
echo "$out" | grep -q "in dart_allreduce" || fail "no unit reported dart_allreduce"
echo "$out" | grep -q "ending the job (DART_WATCHDOG_ABORT)" || fail "no abort line"
echo "run_watchdog: OK ($nunits units)"
