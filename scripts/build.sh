#!/usr/bin/env bash
# Configures and builds DART against one MPI: scripts/build.sh mpich|openmpi
# Build tree: build/<mpi>. Extra arguments are passed to cmake.
set -euo pipefail
mpi=${1:?usage: build.sh mpich|openmpi [cmake args]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
case "$mpi" in
  mpich|openmpi) ;;
  *) echo "unknown MPI '$mpi' (mpich or openmpi)" >&2; exit 2 ;;
esac
mkdir -p "$root/build"
cmake -S "$root" -B "$root/build/$mpi" -G Ninja \
  -DMPI_C_COMPILER="mpicc.$mpi" -DMPI_CXX_COMPILER="mpicxx.$mpi" \
  -DMPIEXEC_EXECUTABLE="/usr/bin/mpiexec.$mpi" "$@" > "$root/build/$mpi.configure.log" 2>&1 \
  || { cat "$root/build/$mpi.configure.log"; exit 1; }
cmake --build "$root/build/$mpi"
