#!/usr/bin/env bash
# Usage: expect_abort.sh <regex> <command...>
# Runs the command (an mpiexec job) and passes only if it exits non-zero
# and its output has a line matching the extended regex. The command's own
# output is shown either way.
set -u
regex=$1
shift
out=$("$@" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
  echo "expect_abort: the job exited with code 0"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq "$regex"; then
  echo "expect_abort: exit code $rc, but no line matches: $regex"
  exit 1
fi
echo "expect_abort: exit code $rc and the expected line"
