#!/usr/bin/env bash
# The benchmark suite of docs/benchmarks.md: installs what is missing, builds
# DART (Release) and bench/paper against it, runs every benchmark and
# regenerates docs/benchmarks.md, docs/bench/*.csv and docs/bench/*.png.
#
#   scripts/bench.sh [--quick] [--mpi openmpi|mpich|both] [--docs DIR]
#                    [--multihost-only | --dash-only | --scale-only |
#                     --observe-only]
#
#   --quick  fewer sizes, iterations and trials: under a minute (CI).
#   --mpi    MPI(s) to build and run with; default openmpi (the only one
#            with OpenSHMEM here).
#   --docs   output directory instead of docs/.
#   --multihost-only  only the inter-host section (the others are reported
#            as not run; use with --docs DIR to keep docs/ as it is).
#   --dash-only  only the DASH-shaped workloads (bench_accumulate,
#            bench_coll --small); rewrites only that section of
#            benchmarks.md (between its markers) and its CSV/PNG files.
#   --scale-only  only the scale section (bench_scale, bench_init_mem,
#            test_globmem_scale); rewrites that section and its files.
#   --observe-only  only the statistics section (run_observe: the cost of
#            the DART_STATS hooks, bench_onesided --ab, and paper_halo's
#            matrix); rewrites that section and its files (about 10 min
#            per MPI in full mode).
#
# The full run also measures across two hosts made on this machine by
# scripts/multihost/dmh (the report's inter-host section, Open MPI only;
# needs root and iproute2, else it is reported as skipped). Quick mode
# leaves it out: over TCP between hosts on 2 shared cores it takes minutes.
#
# Exit status: 0 if every benchmark ran and every data check passed (missed
# performance targets are reported, not failed); 1 otherwise.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
quick=0
mh_only=0
dash_only=0
scale_only=0
observe_only=0
mpis=(openmpi)
docs="$root/docs"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --mpi) shift; [ "${1:-}" = both ] && mpis=(openmpi mpich) || mpis=("${1:?}") ;;
    --docs) shift; docs=${1:?} ;;
    --multihost-only) mh_only=1 ;;
    --dash-only) dash_only=1 ;;
    --scale-only) scale_only=1 ;;
    --observe-only) observe_only=1 ;;
    *) echo "usage: $0 [--quick] [--mpi openmpi|mpich|both] [--docs DIR] [--multihost-only | --dash-only | --scale-only | --observe-only]" >&2; exit 2 ;;
  esac
  shift
done
start=$(date +%s)
status=0

install_missing() {
  if [ -x "$root/scripts/setup.sh" ]; then
    "$root/scripts/setup.sh" || return 1
  fi
  # Debian's python3-matplotlib belongs to /usr/bin/python3, which may not
  # be the first python3 on PATH (pyenv and the like).
  for py in /usr/bin/python3 python3; do
    "$py" -c "import matplotlib" 2>/dev/null && return 0
  done
  echo "bench: installing python3-matplotlib"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
    $SUDO apt-get install -y -qq --no-install-recommends python3-matplotlib > /dev/null
  py=/usr/bin/python3
}

# build <mpi> <dir>: DART (library only) -> <dir>/prefix, then bench/paper
# standalone against the installed package; bench_lock if the tree has it.
build() {
  local mpi=$1 dir=$2
  local mpiargs=(-DMPI_C_COMPILER="mpicc.$mpi" -DMPI_CXX_COMPILER="mpicxx.$mpi"
                 -DMPIEXEC_EXECUTABLE="/usr/bin/mpiexec.$mpi")
  mkdir -p "$dir"
  { cmake -S "$root" -B "$dir/dart" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DDART_BUILD_TESTS=ON -DDART_BUILD_EXAMPLES=OFF "${mpiargs[@]}" &&
    cmake --build "$dir/dart" --target dart-mpi dart-mpi-static dart-shmem dart-shmem-static &&
    cmake --install "$dir/dart" --prefix "$dir/prefix" &&
    cmake -S "$root/bench/paper" -B "$dir/paper" -G Ninja \
      -DCMAKE_PREFIX_PATH="$dir/prefix" "${mpiargs[@]}" &&
    cmake --build "$dir/paper"; } > "$dir/build.log" 2>&1 \
    || { tail -40 "$dir/build.log"; return 1; }
  # (no pipe into grep -q: with pipefail, ninja's SIGPIPE fails the test)
  local targets
  targets=$(ninja -C "$dir/dart" -t targets all 2>/dev/null)
  if grep -q '^bench_lock:' <<< "$targets"; then
    cmake --build "$dir/dart" --target bench_lock >> "$dir/build.log" 2>&1 || return 1
  fi
  cmake --build "$dir/dart" --target bench_alloc bench_progress bench_scale \
    bench_init_mem test_globmem_scale \
    bench_accumulate bench_coll bench_dash bench_onesided >> "$dir/build.log" 2>&1 || return 1
  # Full mode: the same benchmark against a DART without the statistics
  # hooks (the "no hooks" column of the statistics section).
  if [ $quick -eq 0 ]; then
    { cmake -S "$root" -B "$dir/dart-nohooks" -G Ninja -DCMAKE_BUILD_TYPE=Release \
        -DDART_BUILD_TESTS=OFF -DDART_BUILD_EXAMPLES=OFF -DDART_OBSERVE_HOOKS=OFF \
        "${mpiargs[@]}" &&
      cmake --build "$dir/dart-nohooks" --target bench_onesided; } \
      >> "$dir/build.log" 2>&1 || return 1
  fi
}

# run <mpi> <np> <name> <exe> [args]: one benchmark, CSV to $res/<name>.csv.
run() {
  local mpi=$1 np=$2 name=$3 exe=$4
  shift 4
  local flags=() t0=$SECONDS
  if [ "$mpi" = openmpi ]; then
    flags=(--oversubscribe)
  elif [ "$np" -le 2 ]; then
    flags=(-bind-to core)
  fi
  timeout "$tmo" "mpiexec.$mpi" -n "$np" "${flags[@]}" "$exe" "${qflag[@]}" \
    --out="$res/$name.csv" "$@" > "$res/$name.log" 2>&1
  local rc=$?
  printf 'bench: %-12s %-14s %d units  %3ds  %s\n' "$mpi" "$name" "$np" \
    $((SECONDS - t0)) "$([ $rc -eq 0 ] && echo ok || echo "FAILED (rc $rc)")"
  if [ $rc -ne 0 ]; then
    tail -20 "$res/$name.log"; rm -f "$res/$name.csv"; status=1
  fi
}

mpi_version() {
  if [ "$1" = openmpi ]; then
    mpiexec.openmpi --version 2>/dev/null | head -1
  else
    mpichversion 2>/dev/null | head -2 | tr '\n' ' ' || mpiexec.mpich --version | head -2
  fi
}

write_meta() {
  local mpi=$1 dir=$2
  local shmem=no
  grep -q "OpenSHMEM variants ON" "$dir/build.log" && \
    shmem="yes (Open MPI oshmem $(oshmem_info --parsable 2>/dev/null | \
      sed -n 's/^oshmem:version:full://p' | head -1))"
  cat > "$res/meta.txt" <<EOF
date=$(date '+%Y-%m-%d %H:%M %Z')
mode=$([ $quick -eq 1 ] && echo "quick (--quick)" || echo full)
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
cores=$(nproc) online, $(lscpu | sed -n 's/^Thread(s) per core: *//p') thread(s) per core
memory=$(free -g | awk '/^Mem:/ {print $2 " GiB"}')
os=$(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}"), kernel $(uname -r)
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null)$(git -C "$root" diff --quiet 2>/dev/null || echo " (modified)")
mpi_version=$(mpi_version "$mpi")
shmem=$shmem
lock_units=4
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
EOF
}

# Allocation cost (bench/bench_alloc.c) at 2 and 4 units, MPI initialized
# by DART and by the application, on one node and with simulated nodes.
run_alloc() {
  local mpi=$1 dir=$2 np init sim
  for np in 2 4; do
    for init in dart app; do
      for sim in 0 1; do
        # (a subshell per configuration: its environment only)
        ( if [ "$init" = app ]; then
            # the application's MPI_Init with the MPI's default settings
            unset OMPI_MCA_osc; export DART_TEST_APPINIT=1
          fi
          [ "$sim" = 1 ] && export DART_SIM_NODE_SIZE=1
          run "$mpi" "$np" "alloc_np${np}_${init}_sim${sim}" \
            "$dir/dart/bench/bench_alloc"
          exit $status ) || status=1
      done
    done
  done
}

# Latency while the target computes (bench/bench_progress.c) at 2 and 3
# units, on one node and with simulated nodes.
run_progress() {
  local mpi=$1 dir=$2 np sim
  for np in 2 3; do
    for sim in 0 1; do
      ( [ "$sim" = 1 ] && export DART_SIM_NODE_SIZE=1
        run "$mpi" "$np" "progress_np${np}_sim${sim}" \
          "$dir/dart/bench/bench_progress"
        exit $status ) || status=1
    done
  done
}

# The locality build on synthetic records (bench/bench_scale.c, no MPI):
# SCALE lines in $res/scale.log (quick: P up to 10^4, well under 5 s).
run_scale() {
  local dir=$1 t0=$SECONDS
  if timeout "$tmo" "$dir/dart/bench/bench_scale" "${qflag[@]}" > "$res/scale.log" 2>&1; then
    printf 'bench: %-12s %-14s %s  %3ds  ok\n' - bench_scale "no MPI " $((SECONDS - t0))
  else
    echo "bench: bench_scale FAILED"; tail -20 "$res/scale.log"; status=1
  fi
}

# run_log <mpi> <np> <sim 0|1> <name> <exe> [args]: one MPI program whose
# output is the result (SCALE lines), to $res/<name>.log.
run_log() {
  local mpi=$1 np=$2 sim=$3 name=$4 exe=$5
  shift 5
  local flags=() t0=$SECONDS rc
  if [ "$mpi" = openmpi ]; then
    flags=(--oversubscribe)
  elif [ "$np" -le 2 ]; then
    flags=(-bind-to core)
  fi
  ( [ "$sim" = 1 ] && export DART_SIM_NODE_SIZE=1
    exec timeout "$tmo" "mpiexec.$mpi" -n "$np" "${flags[@]}" "$exe" "$@" ) \
    > "$res/$name.log" 2>&1
  rc=$?
  printf 'bench: %-12s %-14s %d units  %3ds  %s\n' "$mpi" "$name" "$np" \
    $((SECONDS - t0)) "$([ $rc -eq 0 ] && echo ok || echo "FAILED (rc $rc)")"
  if [ $rc -ne 0 ]; then
    tail -20 "$res/$name.log"; status=1
  fi
}

# dart_init's heap (bench/bench_init_mem.c, MPI started by the program):
# 1-4 units (and 8, 16 in full mode), on one node and with every unit its
# own simulated node; the per-object bytes of tests/globmem's scale test
# at 2 and 4 units (informational: a failed check there does not fail the
# run; the report shows it). SCALE lines in $res/init_mem_np<n>_sim<s>.log and
# $res/globmem_scale_np<n>_sim<s>.log (bench/paper/report_scale.py).
run_init_mem() {
  local mpi=$1 dir=$2 np sim nps=(1 2 3 4)
  [ $quick -eq 1 ] || nps+=(8 16)
  for np in "${nps[@]}"; do
    for sim in 0 1; do
      run_log "$mpi" "$np" "$sim" "init_mem_np${np}_sim${sim}" \
        "$dir/dart/bench/bench_init_mem"
    done
  done
  local t="$dir/dart/tests/globmem/test_globmem_scale"
  [ -x "$t" ] || t=$(find "$dir/dart/tests" -name test_globmem_scale -type f | head -1)
  # (a test: its own assertion failing is reported, not a benchmark failure;
  # the subshell keeps $status)
  for np in 2 4; do
    for sim in 0 1; do
      ( run_log "$mpi" "$np" "$sim" "globmem_scale_np${np}_sim${sim}" "$t" )
    done
  done
}

# The DASH-shaped workloads (issue 22): bulk accumulate and singles under
# traffic (bench_accumulate) at 2 units and, every unit at once, at 4;
# small collectives (bench_coll --small) at 2, 3 and 4 units. Quick: 2
# units only, small sizes (a few seconds).
run_dash() {
  local mpi=$1 b="$2/dart/bench" np
  run "$mpi" 2 dash_acc_np2 "$b/bench_accumulate" --sections=1256
  for np in 2 3 4; do
    [ $quick -eq 1 ] && [ "$np" -gt 2 ] && break
    run "$mpi" "$np" "dash_coll_np$np" "$b/bench_coll" --small
  done
  [ $quick -eq 1 ] || run "$mpi" 4 dash_acc_np4 "$b/bench_accumulate" --sections=56
  for np in 2 4; do run "$mpi" "$np" "dash_prog_np$np" "$b/bench_dash"; done
}

# The statistics section (docs/profiling.md): the cost of the hooks
# (bench_onesided --ab: stats off/on in the same process; full mode also
# alternates with the build without hooks, 5 runs each) on one node and on
# the MPI path, and one program (paper_halo, 4 units) run with DART_STATS
# on, its matrix and operations plotted by scripts/dart_stats_plot.py.
run_observe() {
  local mpi=$1 dir=$2 sim k runs=1
  [ $quick -eq 1 ] || runs=5
  for sim in 0 1; do
    for k in $(seq 1 $runs); do
      ( [ "$sim" = 1 ] && export DART_SIM_NODE_SIZE=1
        run "$mpi" 2 "obs_ab_sim${sim}_$k" "$dir/dart/bench/bench_onesided" --ab
        if [ $quick -eq 0 ]; then
          run "$mpi" 2 "obs_nh_sim${sim}_$k" \
            "$dir/dart-nohooks/bench/bench_onesided" --ab
        fi
        exit $status ) || status=1
    done
  done
  ( export DART_STATS="$res/obs_halo_np4.json"
    run "$mpi" 4 obs_halo_np4 "$dir/paper/paper_halo"
    exit $status ) || status=1
  if "$py" "$root/scripts/dart_stats_plot.py" "$res/obs_halo_np4.json" \
       --out "$res/obs_halo_np4" > "$res/obs_plot.log" 2>&1; then
    echo "bench/paper/paper_halo (halo exchange, 4 units on one node)" \
      > "$res/obs_halo_np4.txt"
  else
    echo "bench: dart_stats_plot.py FAILED"; cat "$res/obs_plot.log"; status=1
  fi
}

run_suite() {
  local mpi=$1 dir=$2 b="$2/paper"
  run_scale "$dir"
  run_init_mem "$mpi" "$dir"
  run_dash "$mpi" "$dir"
  run_alloc "$mpi" "$dir"
  run_progress "$mpi" "$dir"
  run_observe "$mpi" "$dir"
  run "$mpi" 2 rma_shm "$b/paper_rma" --path=shm
  run "$mpi" 2 rma_rma "$b/paper_rma" --path=rma
  for np in 1 2 4; do run "$mpi" "$np" "gups_np$np" "$b/paper_gups"; done
  # The paper's stencil runs start at 4 units; 4 is also the target's.
  run "$mpi" 4 stencil_np4 "$b/paper_stencil"
  run "$mpi" 4 halo_np4 "$b/paper_halo"
  if [ -x "$dir/dart/bench/bench_lock" ]; then
    local flags=()
    [ "$mpi" = openmpi ] && flags=(--oversubscribe)
    # bench_lock [iterations per unit] [locks]
    local lock_args=()
    [ $quick -eq 1 ] && lock_args=(100)
    local t0=$SECONDS
    echo "lock_args=${lock_args[*]:-(defaults)}" >> "$res/meta.txt"
    if timeout "$tmo" "mpiexec.$mpi" -n 4 "${flags[@]}" \
         "$dir/dart/bench/bench_lock" "${lock_args[@]}" > "$res/lock.log" 2>&1; then
      printf 'bench: %-12s %-14s %d units  %3ds  ok\n' "$mpi" bench_lock 4 $((SECONDS - t0))
    else
      echo "bench: $mpi bench_lock FAILED"; tail -20 "$res/lock.log"; status=1
    fi
  fi
}

# run_mh <mpi> <hosts> <units per host> <name> <exe> [args]: one benchmark
# across hosts made by scripts/multihost/dmh (MPI's own launcher).
run_mh() {
  local mpi=$1 hosts=$2 ppn=$3 name=$4 exe=$5
  shift 5
  local t0=$SECONDS rc=0
  "$root/scripts/multihost/dmh" run --hosts "$hosts" --ppn "$ppn" \
    --mpiexec "/usr/bin/mpiexec.$mpi" --timeout "$tmo" -- \
    "$exe" "${qflag[@]}" --out="$res/$name.csv" "$@" > "$res/$name.log" 2>&1 || rc=$?
  printf 'bench: %-12s %-14s %dx%d units %3ds  %s\n' "$mpi" "$name" "$hosts" "$ppn" \
    $((SECONDS - t0)) "$([ $rc -eq 0 ] && echo ok || echo "FAILED (rc $rc)")"
  if [ $rc -ne 0 ]; then
    tail -20 "$res/$name.log"; rm -f "$res/$name.csv"; status=1
  fi
}

# The inter-host section: put/get/atomics between two hosts (1 unit each),
# GUPS, stencil and halo at 2 hosts x 2 units (the problem sizes of quick
# mode: over TCP on 2 shared cores the full stencil alone takes 15 min).
run_multihost() {
  local mpi=$1 b="$2/paper" why
  if [ $quick -eq 1 ]; then
    echo "multihost=not run (quick mode)" >> "$res/meta.txt"
    return
  fi
  if [ "$mpi" = mpich ]; then
    # MPICH 4.0.2 + UCX 1.13 hang in MPI_Finalize over TCP (docs/multihost.md)
    echo "multihost=not measured with MPICH: MPI_Finalize hangs over UCX's TCP transport" >> "$res/meta.txt"
    return
  fi
  if ! why=$("$root/scripts/multihost/dmh" check); then
    echo "bench: inter-host section skipped: $why"
    echo "multihost=skipped: ${why#dmh: SKIPPED: }" >> "$res/meta.txt"
    return
  fi
  echo "multihost=2 hosts (scripts/multihost/dmh)" >> "$res/meta.txt"
  run_mh "$mpi" 2 1 rma_net "$b/paper_rma" --path=net
  # 4 x 2^6 updates per unit: every update is a round trip over TCP.
  run_mh "$mpi" 2 2 mh_gups_np4 "$b/paper_gups" --log2-local=6
  run_mh "$mpi" 2 2 mh_stencil_np4 "$b/paper_stencil" --quick
  run_mh "$mpi" 2 2 mh_halo_np4 "$b/paper_halo" --quick
}

install_missing || exit 1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_osc='^rdma'
qflag=()
tmo=1800
if [ $quick -eq 1 ]; then qflag=(--quick); tmo=120; fi
results="$root/build/bench/results"
rm -rf "$results"
for mpi in "${mpis[@]}"; do
  dir="$root/build/bench/$mpi"
  res="$results/$mpi"
  mkdir -p "$res"
  echo "bench: building with $mpi"
  build "$mpi" "$dir" || { echo "bench: build with $mpi failed"; exit 1; }
  write_meta "$mpi" "$dir"
  if [ $dash_only -eq 1 ]; then
    run_dash "$mpi" "$dir"
  elif [ $scale_only -eq 1 ]; then
    run_scale "$dir"
    run_init_mem "$mpi" "$dir"
  elif [ $observe_only -eq 1 ]; then
    run_observe "$mpi" "$dir"
  else
    [ $mh_only -eq 1 ] || run_suite "$mpi" "$dir"
    run_multihost "$mpi" "$dir"
  fi
  echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$res/meta.txt"
done
"$py" "$root/bench/paper/report.py" --results "$results" --docs "$docs" \
  --print-targets $([ $dash_only -eq 1 ] && echo --splice-dash) \
  $([ $scale_only -eq 1 ] && echo --splice-scale) \
  $([ $observe_only -eq 1 ] && echo --splice-observe) || status=1
echo "bench: wrote $docs/benchmarks.md in $(( $(date +%s) - start ))s" \
  "($([ $status -eq 0 ] && echo 'all benchmarks ran, all data checks passed' || echo 'FAILURES above'))"
exit $status
