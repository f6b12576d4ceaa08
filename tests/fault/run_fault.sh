#!/usr/bin/env bash
# Fault test driver (tests/fault, docs/multihost.md "When a host dies"):
#   run_fault.sh --hosts H --ppn P --kill host|unit --mpiexec PATH -- cmd...
# Makes a cluster of H hosts (scripts/multihost/dmh up), runs cmd (the
# test_fault program) on it with P units per host in the background, waits
# for its "fault: READY" line, then kills
#   host: the last host (dmh kill-host: its processes die, its link goes
#         down); host 1, where the launcher runs, survives;
#   unit: unit 1 alone, by SIGKILL on its host (dmh exec ... kill -KILL).
# It asserts that
#   * the job ends within LIMIT (30) s of the kill, with a non-zero code;
#   * its output has a line naming the lost host (host kill) or the lost
#     unit: its rank, its pid, or "unit 1" (unit kill);
#   * no process is left on any host (ip netns pids) within 5 s of the end;
#   * no /dev/shm file is left but those only processes of the dead host
#     had mapped (all hosts of a cluster share one /dev/shm; the files of a
#     dead host would go with the host on a real cluster).
# The cluster is always removed (trap, and dmh's reaper if this script is
# killed). Exit codes: 0 pass, 1 fail, 77 hosts cannot be made (skip).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dmh=$here/../../scripts/multihost/dmh
LIMIT=${FAULT_LIMIT:-30}
hosts=2 ppn=1 victim=host mpiexec=mpiexec
while [[ $# -gt 0 ]]; do
  case $1 in
    --hosts) hosts=$2; shift 2 ;;
    --ppn) ppn=$2; shift 2 ;;
    --kill) victim=$2; shift 2 ;;
    --mpiexec) mpiexec=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "run_fault: unknown option '$1'"; exit 2 ;;
  esac
done
[[ $# -gt 0 && ($victim == host || $victim == unit) ]] || {
  echo "usage: run_fault.sh --hosts H --ppn P --kill host|unit --mpiexec PATH -- cmd..."
  exit 2
}

"$dmh" check || exit $? # 77: skip, with dmh's reason

errors=0
fail() { echo "run_fault: FAILED: $*"; errors=$((errors + 1)); }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

id=
out=$(mktemp)
cleanup() {
  [[ -z $id ]] || "$dmh" down "$id"
  rm -f "$out"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

id=$("$dmh" up --hosts "$hosts" --owner $$) || { echo "run_fault: dmh up failed"; exit 1; }
cluster=$id
host_name() { echo "dmh$cluster-h$1"; }
host_pids() { ip netns pids "dmh${cluster}h$1" 2> /dev/null; }

# Processes of every host, for the report of a failure.
show_procs() {
  local k p
  for k in $(seq 1 "$hosts"); do
    for p in $(host_pids "$k"); do
      echo "  $(host_name "$k") pid $p: $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | cut -c1-150)"
    done
  done
}

"$dmh" run --cluster "$id" --ppn "$ppn" --mpiexec "$mpiexec" -- "$@" > "$out" 2>&1 &
job=$!

ready=0
for _ in $(seq 1 240); do
  if grep -q '^fault: READY' "$out"; then ready=1; break; fi
  kill -0 "$job" 2> /dev/null || break
  sleep 0.25
done
if [[ $ready -eq 0 ]]; then
  cat "$out"
  echo "run_fault: FAILED: no READY line (the job ended or took more than 60 s)"
  kill "$job" 2> /dev/null
  exit 1
fi

# The victim, and its host.
if [[ $victim == host ]]; then
  vhost=$hosts
  what="host $(host_name "$vhost")"
else
  line=$(grep -m1 '^fault: unit 1 pid ' "$out")
  vpid=$(awk '{ print $5 }' <<< "$line")
  vname=$(awk '{ print $7 }' <<< "$line")
  vhost=${vname##*-h}
  [[ -n $vpid && $vhost =~ ^[0-9]+$ ]] || { cat "$out"; echo "run_fault: FAILED: no pid line of unit 1"; exit 1; }
  what="unit 1 (pid $vpid on $vname)"
fi

# Which host's processes map which /dev/shm file, just before the kill.
declare -A mappers
for k in $(seq 1 "$hosts"); do
  for p in $(host_pids "$k"); do
    while read -r f; do
      [[ ${mappers[$f]:-} == *"h$k "* ]] || mappers[$f]+="h$k "
    done < <(awk '$6 ~ /^\/dev\/shm\// { print $6 }' "/proc/$p/maps" 2> /dev/null | sort -u)
  done
done

echo "run_fault: killing $what"
t0=$(now)
if [[ $victim == host ]]; then
  "$dmh" kill-host "$id" "$vhost"
else
  "$dmh" exec "$id" "$vhost" kill -KILL "$vpid"
fi

ended=0
while awk -v a="$t0" -v b="$(now)" -v l="$LIMIT" 'BEGIN { exit !(b - a < l) }'; do
  if ! kill -0 "$job" 2> /dev/null; then ended=1; break; fi
  sleep 0.1
done
took=$(since "$t0")
if [[ $ended -eq 0 ]]; then
  fail "the job did not end within $LIMIT s of the kill; its processes:"
  show_procs
  "$dmh" down "$id" # ends the job: the launcher runs in the cluster
  id=
fi
wait "$job"
rc=$?
echo "----- job output"
cat "$out"
echo "-----"
echo "run_fault: the job ended $took s after the kill, exit code $rc"
[[ $rc -ne 0 ]] || fail "exit code 0 after $what was killed"

# A line naming the victim (the program's own pid lines do not count).
others=$(grep -v '^fault: unit [0-9]* pid ' "$out")
if [[ $victim == host ]]; then
  pat="$(host_name "$vhost")([^0-9]|$)"
else
  pat="(rank|unit|process) 1([^0-9]|$)|(^|[^0-9])$vpid([^0-9]|$)"
fi
# Known MPI behaviour (MPICH over UCX, docs/multihost.md): a survivor still
# serving a get of the killed unit aborts inside UCX ("Endpoint timeout",
# ucp_get_req_handler) before any unit reports the loss, and Hydra then
# names only that survivor. The job still has to end in time with a
# non-zero code and leave nothing behind (checked below); only the naming
# is out of DART's hands then, and this says so.
# Second known race (Hydra): its proxy on the victim's host SIGKILLs the
# unit that shares that host, and mpiexec may report that unit's pid
# ("PID <p> RUNNING AT <victim's host>") instead of the victim's.
ucx_abort='Fatal: unexpected error: Endpoint timeout'
hydra=$(sed -nE 's/^= *PID ([0-9]+) RUNNING AT ([^ ]+) *$/\1 \2/p' <<< "$others" | head -n 1)
mate=
if [[ $victim == unit && -n $hydra && ${hydra#* } == "$vname" ]] &&
  grep -q "^fault: unit [0-9]* pid ${hydra%% *} host $vname\$" "$out"; then
  mate=${hydra%% *}
fi
if ! grep -Eq "$pat" <<< "$others"; then
  if [[ $victim == unit ]] && grep -q "$ucx_abort" <<< "$others"; then
    echo "run_fault: no line names $what: a survivor aborted in UCX first" \
      "(known MPICH/UCX behaviour, docs/multihost.md)"
  elif [[ -n $mate ]]; then
    echo "run_fault: Hydra named pid $mate, the unit sharing $vname with" \
      "the victim (known Hydra reporting race, docs/multihost.md)"
  else
    fail "no line names $what (pattern '$pat')"
  fi
fi

if [[ -n $id ]]; then
  # no process left on any host (remote daemons may end just after the
  # launcher: 5 s grace)
  left=1
  for _ in $(seq 1 50); do
    left=0
    for k in $(seq 1 "$hosts"); do [[ -z $(host_pids "$k") ]] || left=1; done
    [[ $left -eq 1 ]] || break
    sleep 0.1
  done
  if [[ $left -eq 1 ]]; then
    fail "processes left after the job ended:"
    show_procs
  fi
  # no /dev/shm file left but the dead host's
  while read -r f; do
    [[ -n $f ]] || continue
    m=${mappers[/dev/shm/$f]:-}
    if [[ $victim == host && -n $m && $m == "h$vhost " ]]; then
      echo "run_fault: /dev/shm/$f is left, mapped only on the dead host (allowed)"
    else
      fail "/dev/shm/$f is left (mapped before the kill on: ${m:-no host})"
    fi
  done < <("$dmh" exec "$id" 1 ls -A /dev/shm)
fi

if [[ $errors -gt 0 ]]; then
  echo "run_fault: $errors check(s) failed"
  exit 1
fi
echo "run_fault: OK: $what killed, the job ended in $took s with code $rc"
