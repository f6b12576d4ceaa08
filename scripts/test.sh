#!/usr/bin/env bash
# The test command: installs what is missing, builds DART against MPICH and
# Open MPI, and runs the whole CTest suite for both. Exit code 0 = all passed.
#   scripts/test.sh            both MPIs
#   scripts/test.sh openmpi    one MPI
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" || exit 1
mpis=("${@:-mpich openmpi}")
read -r -a mpis <<< "${mpis[*]}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
total_pass=0 total_fail=0
for mpi in "${mpis[@]}"; do
  echo "=== DART tests with $mpi ==="
  if ! "$root/scripts/build.sh" "$mpi"; then
    echo "build with $mpi failed"; status=1; continue
  fi
  log="$root/build/$mpi.ctest.log"
  # Tests declare how many processes they start; ctest packs them onto the
  # 2 cores this suite is sized for.
  (cd "$root/build/$mpi" && ctest --output-on-failure -j2 --timeout 600) 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -ne 0 ] && status=1
  pass=$(grep -cE "Test +#[0-9]+: .* Passed" "$log" || true)
  fail=$(grep -cE "Test +#[0-9]+: .*(Failed|Timeout|Exception|Not Run|SIGPIPE|\*\*\*)" "$log" || true)
  total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
done
echo "suite: $total_pass passed, $total_fail failed"
exit $status
