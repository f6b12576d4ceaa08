#!/usr/bin/env bash
# Configures and builds DART against one MPI:
#   scripts/build.sh mpich|openmpi [--sanitize] [cmake args]
# Build tree: build/<mpi>. With --sanitize: build/<mpi>-sanitize, built with
# clang, -fsanitize=address,undefined (DART_SANITIZE) and MPI tests at 1
# and 2 units only (scripts/test.sh --sanitize). Extra arguments go to cmake.
set -euo pipefail
mpi=${1:?usage: build.sh mpich|openmpi [--sanitize] [cmake args]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
case "$mpi" in
  mpich|openmpi) ;;
  *) echo "unknown MPI '$mpi' (mpich or openmpi)" >&2; exit 2 ;;
esac
dir=$mpi
extra=()
if [ "${1:-}" = "--sanitize" ]; then
  shift
  dir=$mpi-sanitize
  # clang: gcc's UBSan does not flag arithmetic on a null pointer.
  extra=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
         -DDART_SANITIZE=ON "-DDART_TEST_UNITS=1;2" -DDART_BUILD_BENCH=OFF)
fi
mkdir -p "$root/build"
cmake -S "$root" -B "$root/build/$dir" -G Ninja \
  -DMPI_C_COMPILER="mpicc.$mpi" -DMPI_CXX_COMPILER="mpicxx.$mpi" \
  -DMPIEXEC_EXECUTABLE="/usr/bin/mpiexec.$mpi" "${extra[@]}" "$@" \
  > "$root/build/$dir.configure.log" 2>&1 \
  || { cat "$root/build/$dir.configure.log"; exit 1; }
cmake --build "$root/build/$dir"
