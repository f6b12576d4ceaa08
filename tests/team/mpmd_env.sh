#!/usr/bin/env bash
# Usage: mpmd_env.sh <mpiexec> <flags> <program> NAME EXPECT VALUE...
# Launches one unit per VALUE in one MPMD job (mpiexec -n 1 env NAME=v1
# prog : -n 1 env NAME=v2 prog ...; "-" leaves NAME unset on that unit),
# each running "prog NAME EXPECT" (test_env_agree.c). Passes if the job
# ends with code 0 within 60 s, every unit printed one line naming NAME
# and its mismatch, and no file named by a value other than EXPECT exists.
set -u
mpiexec=$1 flags=$2 prog=$3 name=$4 expect=$5
shift 5
args=() n=0
for v in "$@"; do
  [ "$n" -gt 0 ] && args+=(:)
  if [ "$v" = - ]; then
    args+=(-n 1 env -u "$name" "$prog" "$name" "$expect")
  else
    args+=(-n 1 env "$name=$v" "$prog" "$name" "$expect")
  fi
  n=$((n + 1))
done
for v in "$@"; do
  case "$v" in /*) rm -f "$v" "$v".part* ;; esac
done
# shellcheck disable=SC2086
out=$(timeout 60 "$mpiexec" $flags "${args[@]}" 2>&1)
rc=$?
printf '%s\n' "$out"
fail=0
[ "$rc" -eq 0 ] || { echo "mpmd_env: exit code $rc (124: hung)"; fail=1; }
for ((u = 0; u < n; u++)); do
  c=$(printf '%s\n' "$out" | grep -Ec "unit $u\] dart_init: $name differs between units: unit 0 has '[^']*', unit [1-9][0-9]* has '[^']*'")
  [ "$c" -eq 1 ] || { echo "mpmd_env: unit $u printed $c mismatch lines for $name"; fail=1; }
done
for v in "$@"; do
  case "$v" in
    /*) if [ "$v" != "$expect" ] && ls "$v" "$v".part* > /dev/null 2>&1; then
          echo "mpmd_env: $v exists (only unit 0's value may be used)"; fail=1
        fi
        rm -f "$v" "$v".part* ;;
  esac
done
[ "$fail" -eq 0 ] && echo "mpmd_env: $name ok ($n units)"
exit "$fail"
