#!/usr/bin/env bash
# The main job: installs what is missing, builds DART (Open MPI by default,
# or the MPI given as first argument) and runs the demo on 4 units.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpi=${1:-openmpi}
"$root/scripts/setup.sh"
"$root/scripts/build.sh" "$mpi" > "$root/build/$mpi.build.log" 2>&1 \
  || { cat "$root/build/$mpi.build.log"; exit 1; }
flags=()
if [ "$mpi" = openmpi ]; then
  flags=(--oversubscribe)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
echo "=== demo_teams on 4 units ($mpi) ==="
"mpiexec.$mpi" -n 4 "${flags[@]}" "$root/build/$mpi/examples/demo_teams"
