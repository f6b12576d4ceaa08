#!/usr/bin/env bash
# The test command: installs what is missing, builds DART against MPICH and
# Open MPI, and runs the whole CTest suite for both. Exit code 0 = all passed.
#   scripts/test.sh            both MPIs
#   scripts/test.sh openmpi    one MPI
#   scripts/test.sh --sanitize [mpi]
#       AddressSanitizer + UndefinedBehaviorSanitizer build (clang) of the
#       library and tests, build/<mpi>-sanitize (default MPICH); runs the
#       unit tests and every MPI test at 1 and 2 units. Leaks inside the MPI
#       are suppressed by tests/sanitizers/lsan.supp (each entry explained).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" || exit 1
sanitize=()
select=()
if [ "${1:-}" = "--sanitize" ]; then
  shift
  sanitize=(--sanitize)
  select=(-L "^(nompi|np1|np2)$")
  set -- "${@:-mpich}"
  supp="$root/tests/sanitizers"
  export ASAN_OPTIONS=detect_leaks=1
  export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  # shellcheck source=../tests/sanitizers/env.sh
  . "$supp/env.sh"
fi
mpis=("${@:-mpich openmpi}")
read -r -a mpis <<< "${mpis[*]}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
status=0
total_pass=0 total_fail=0 total_skip=0
for mpi in "${mpis[@]}"; do
  dir=$mpi${sanitize:+-sanitize}
  echo "=== DART tests with $mpi${sanitize:+ (sanitizers)} ==="
  if ! "$root/scripts/build.sh" "$mpi" ${sanitize[@]+"${sanitize[@]}"}; then
    echo "build with $mpi failed"; status=1; continue
  fi
  log="$root/build/$dir.ctest.log"
  # Tests declare how many processes they start; ctest packs them onto the
  # 2 cores this suite is sized for.
  (cd "$root/build/$dir" && ctest --output-on-failure -j2 --timeout 600 \
     ${select[@]+"${select[@]}"}) 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  [ "$rc" -ne 0 ] && status=1
  pass=$(grep -cE "Test +#[0-9]+: .* Passed" "$log" || true)
  skip=$(grep -cE "Test +#[0-9]+: .*\*\*\*Skipped" "$log" || true)
  fail=$(grep -E "Test +#[0-9]+: .*(Failed|Timeout|Exception|Not Run|SIGPIPE|\*\*\*)" "$log" \
         | grep -cv "\*\*\*Skipped" || true)
  total_pass=$((total_pass + pass)); total_fail=$((total_fail + fail))
  total_skip=$((total_skip + skip))
done
echo "suite: $total_pass passed, $total_fail failed, $total_skip skipped (reasons in the logs)"
exit $status
