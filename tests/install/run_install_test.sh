#!/usr/bin/env bash
# Usage: run_install_test.sh <build-dir> <work-dir> <mpicc> <mpiexec> [mpiexec-flags]
set -euo pipefail
build=$1 work=$2 mpicc=$3 mpiexec=$4 flags=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work"
prefix=$work/prefix

echo "== cmake --install into $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
test -f "$prefix/include/dash/dart/if/dart.h"
test -f "$prefix/include/dash/dart/if/dart_profiling.h"
test -f "$prefix/lib/cmake/DART/DARTConfig.cmake" || test -f "$prefix"/lib*/cmake/DART/DARTConfig.cmake
ls "$prefix"/lib*/libdart-mpi.so "$prefix"/lib*/libdart-mpi.a > /dev/null

echo "== find_package(DART) consumer"
cmake -S "$here/consumer" -B "$work/cm" -DCMAKE_PREFIX_PATH="$prefix" \
      -DMPI_C_COMPILER="$mpicc" > "$work/cm-configure.log"
cmake --build "$work/cm" > "$work/cm-build.log"
# shellcheck disable=SC2086
LD_LIBRARY_PATH="$(dirname "$(ls "$prefix"/lib*/libdart-mpi.so | head -1)")" \
  "$mpiexec" -n 2 $flags "$work/cm/consumer_c"
LD_LIBRARY_PATH="$(dirname "$(ls "$prefix"/lib*/libdart-mpi.so | head -1)")" \
  "$mpiexec" -n 2 $flags "$work/cm/consumer_cxx"
"$mpiexec" -n 2 $flags "$work/cm/consumer_static"

echo "== pkg-config consumer"
pcdir=$(dirname "$(ls "$prefix"/lib*/pkgconfig/dart-mpi.pc | head -1)")
cflags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags dart-mpi)
libs=$(PKG_CONFIG_PATH=$pcdir pkg-config --libs dart-mpi)
# shellcheck disable=SC2086
cc -o "$work/pc_consumer" "$here/consumer/consumer.c" $cflags $libs \
   -Wl,-rpath,"$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir dart-mpi)"
# shellcheck disable=SC2086
"$mpiexec" -n 2 $flags "$work/pc_consumer"

echo "== tool library on the installed profiling interface (LD_PRELOAD)"
root=$(cd "$here/../.." && pwd)
# shellcheck disable=SC2086
cc -shared -fPIC -o "$work/libtool_count.so" "$root/examples/tool_count.c" \
   $cflags $libs
# shellcheck disable=SC2086
out=$("$mpiexec" -n 2 $flags env LD_PRELOAD="$work/libtool_count.so" \
      "$work/pc_consumer")
echo "$out"
grep -q "^tool_count: total: .* dart_barrier=2 " <<< "$out"
echo "install.consumer: all checks passed"
