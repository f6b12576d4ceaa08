#!/usr/bin/env bash
# Usage: run_tool_test.sh <units> <program> <preload-lib|-> <mpiexec> [flags...]
# Runs tool_prog with examples/tool_count in front of DART (LD_PRELOAD of the
# given library, or none when the program was linked with the tool) and
# asserts the tool saw exactly the program's calls: per unit 100
# dart_put_blocking, 1 dart_get_blocking, 2 dart_barrier, 1 dart_allreduce
# and nothing else it counts (the tool prints the sum, minimum and maximum
# over the units on unit 0).
set -uo pipefail
n=$1 prog=$2 preload=$3 mpiexec=$4
shift 4
launch=("$prog")
if [ "$preload" != "-" ]; then
  # Through env, so only the program, not the launcher, gets the tool.
  launch=(env "LD_PRELOAD=$preload" "$prog")
  # The tool defines dart_put_blocking and reaches DART through pdart_*.
  nm -D --defined-only "$preload" | grep -qE " T dart_put_blocking$" \
    || { echo "FAIL: $preload does not define dart_put_blocking"; exit 1; }
  nm -D --undefined-only "$preload" | grep -qE " U pdart_put_blocking$" \
    || { echo "FAIL: $preload does not call pdart_put_blocking"; exit 1; }
fi
out=$(timeout 100 "$mpiexec" -n "$n" "$@" "${launch[@]}" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 0 ] || { echo "FAIL: program exited with $rc"; exit 1; }
counts() { # $1 = units the line sums over
  echo "dart_put_blocking=$((100 * $1)) dart_get_blocking=$1 dart_put=0" \
       "dart_get=0 dart_flush=0 dart_barrier=$((2 * $1))" \
       "dart_allreduce=$1 dart_bcast=0"
}
fail=0
# The smallest and the largest count over the units are exactly one unit's.
for want in "tool_count: total: $(counts "$n")" "tool_count: min: $(counts 1)" \
            "tool_count: max: $(counts 1)"; do
  grep -qxF "$want" <<< "$out" || { echo "FAIL: missing line '$want'"; fail=1; }
done
lines=$(grep -c "tool_count: " <<< "$out")
[ "$lines" -eq 3 ] || { echo "FAIL: $lines tool_count lines, want 3"; fail=1; }
[ "$fail" -eq 0 ] && echo "tool test: dart_put_blocking intercepted and passed to pdart_put_blocking, exact counts on $n unit(s)"
exit "$fail"
