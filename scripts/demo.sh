#!/usr/bin/env bash
# The main job: installs what is missing, builds DART (Open MPI by default,
# or the MPI given as first argument), runs the demos on 4 units (the
# OpenSHMEM example shmem_histogram checks its own result, docs/shmem.md) and
# then the quick benchmark report (docs/benchmarks.md, 4 units and less).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpi=${1:-openmpi}
"$root/scripts/setup.sh"
mkdir -p "$root/build"
"$root/scripts/build.sh" "$mpi" > "$root/build/$mpi.build.log" 2>&1 \
  || { cat "$root/build/$mpi.build.log"; exit 1; }
flags=()
if [ "$mpi" = openmpi ]; then
  flags=(--oversubscribe)
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
for demo in demo_teams demo_pgas shmem_histogram; do
  echo "=== $demo on 4 units ($mpi) ==="
  "mpiexec.$mpi" -n 4 "${flags[@]}" "$root/build/$mpi/examples/$demo"
done
echo "=== quick benchmark report (DART vs MPI vs OpenSHMEM) ==="
"$root/scripts/bench.sh" --quick
