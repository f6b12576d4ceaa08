#!/usr/bin/env bash
# Runs the mismatched program test_watchdog with the watchdog on, and
# checks its report. Arguments: the mismatch (allreduce or team), the
# number of units, the full mpiexec command line (for team it ends with the
# program's argument "team"). The job must fail, every unit must have
# printed one line naming its call (dart_barrier, or dart_allreduce /
# dart_team_create), the team (0; with team the barrier's is the clone of
# DART_TEAM_ALL) and the collective's sequence number, and both calls must
# appear.
set -uo pipefail
mode=$1
nunits=$2
shift 2
case "$mode" in
  allreduce)
    other=dart_allreduce
    calls='dart_(barrier|allreduce)'
    # the text of the MPI call, cut at its argument list
    # (DART_TEAM_ALL on one node: the shared-memory barrier or allreduce)
    what='(MPI_I?(barrier|allreduce|Barrier|Allreduce)|shared-memory (barrier|allreduce))'
    team='0'
    must='' ;;
  team)
    other=dart_team_create
    calls='dart_(barrier|team_create)'
    # an MPI call with an optional note: "MPI_Allreduce (team id agreement)"
    what='(MPI_[A-Za-z_]+( \([^)]*\))?|shared-memory barrier)'
    team='[0-9]+'
    # the creating half cannot get past the id agreement on team 0
    must='in dart_team_create for MPI_Allreduce (team id agreement): team 0 ' ;;
  *) echo "run_watchdog: unknown mismatch '$mode'"; exit 2 ;;
esac
out=$(DART_WATCHDOG=1 DART_WATCHDOG_ABORT=5 "$@" 2>&1)
rc=$?
echo "$out"
fail() { echo "run_watchdog: FAILED: $*"; exit 1; }
# grep reads here-strings, not a pipe from echo: grep -q stops at the first
# match, and with pipefail the writer's SIGPIPE would count as no match.
[ "$rc" -ne 0 ] || fail "the job exited with 0"
for ((u = 0; u < nunits; u++)); do
  grep -Eq "^\[DART watchdog\] unit $u waits [0-9.]+ s in $calls for $what: team $team collective #[0-9]+$" <<<"$out" \
    || fail "no report line of unit $u"
done
grep -q "in dart_barrier" <<<"$out" || fail "no unit reported dart_barrier"
grep -q "in $other" <<<"$out" || fail "no unit reported $other"
[ -z "$must" ] || grep -qF "$must" <<<"$out" || fail "no line with '$must'"
grep -q "ending the job (DART_WATCHDOG_ABORT)" <<<"$out" || fail "no abort line"
echo "run_watchdog: OK ($mode, $nunits units)"
