/*
 * Bulk accumulate on mapped memory and single-element atomics next to it
 * (issue 22 item 1, docs/design.md 5.3), 2 units on one node, unit 0
 * timing while unit 1 waits (except in the traffic section). All numbers
 * are medians over rounds that alternate the variants; ratios are
 * medians of the per-round ratios (same run).
 *
 *   1. dart_accumulate of n doubles (SUM) + dart_flush, into the caller's
 *      own portion and into the neighbour's, n = 1 K .. max, against
 *      - "before": the same call with the gate switched off, i.e. one CPU
 *        atomic (a CAS loop) per element, as before the gate;
 *      - MPI: MPI_Accumulate + MPI_Win_flush on an MPI_Win_allocate_shared
 *        window in a lock_all epoch (osc/sm with Open MPI);
 *      - floor: the plain loop t[i] += v[i] on that shared window + fence.
 *   2. dart_fetch_and_op (long SUM) on the neighbour's memory, with the
 *      gate (asymmetric and symmetric fence) and without, against
 *      __atomic_fetch_add on the same address.
 *   3. The single/bulk threshold: accumulates of 1 .. 256 doubles by CPU
 *      atomics under an announcement vs by the gate and a plain loop,
 *      from one unit and from both at once into the same elements.
 *   4. The chunk size: 1 M doubles alone, and unit 0's fetch_and_op on
 *      its own memory while unit 1 accumulates 1 M doubles into it
 *      without pause (mean and 99th percentile per op, unit 1's rate).
 *
 * usage: bench_accumulate [max elements (16M)] [rounds (7)]
 */
#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "dart_segment.h"
#include "transport/cpu_gate.h"

enum { MAXR = 64, NV = 4 };

static int me, rounds = 7;
static size_t nmax = (size_t)16 << 20;

/* The floor: what a plain loop takes on the same memory, compiled as
 * DART's (src/transport/cpu_bulk.c: vectorized, AVX-512/AVX2 clones). */
#if defined(__GNUC__) && !defined(__clang__)
#define BENCH_VECTORIZE __attribute__((optimize("O3")))
#else
#define BENCH_VECTORIZE
#endif
#if defined(__x86_64__) && defined(__gnu_linux__) &&                           \
    (!defined(__clang__) || __clang_major__ >= 14)
#define BENCH_CLONES                                                           \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define BENCH_CLONES
#endif

static BENCH_VECTORIZE BENCH_CLONES __attribute__((noinline)) void
floor_loop(double *t, const double *v, size_t n)
{
  for (size_t i = 0; i < n; i++) t[i] += v[i];
}

static int cmp_d(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *x, int n)
{
  double s[MAXR];
  memcpy(s, x, (size_t)n * sizeof *s);
  qsort(s, (size_t)n, sizeof *s, cmp_d);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* The gate switched off on this unit (the per-element path of before)
 * and back on. Only unit 0 runs atomics while it is off. */
static dart__gate_t saved_gate;
static void gate_off(void)
{
  saved_gate = dart__gate;
  dart__gate.base = NULL;
  dart__gate.plain = false;
}
static void gate_on(void)
{
  dart__gate = saved_gate;
}

typedef struct {
  dart_gptr_t g;  /* DART segment, 16-byte aligned portions           */
  MPI_Win win;    /* raw MPI shared window of the same size           */
  double *mpi[2]; /* its portions, mapped                             */
  double *src;    /* origin buffer                                    */
} ctx_t;

/* One timed measurement of variant v on target unit tgt: ns per call. */
static double run(ctx_t *c, int v, int tgt, size_t n, int reps)
{
  dart_gptr_t g = c->g;
  g.unitid = tgt;
  double t0 = MPI_Wtime();
  for (int r = 0; r < reps; r++) {
    switch (v) {
    case 0:
    case 1:
      BENCH_CHECK(dart_accumulate(g, c->src, n, DART_TYPE_DOUBLE, DART_OP_SUM));
      BENCH_CHECK(dart_flush(g));
      break;
    case 2:
      BENCH_CHECK(MPI_Accumulate(c->src, (int)n, MPI_DOUBLE, tgt, 0, (int)n,
                                 MPI_DOUBLE, MPI_SUM, c->win));
      BENCH_CHECK(MPI_Win_flush(tgt, c->win));
      break;
    default: floor_loop(c->mpi[tgt], c->src, n); BENCH_FENCE();
    }
  }
  return (MPI_Wtime() - t0) / reps * 1e9;
}

static void bench_bulk(ctx_t *c)
{
  static const char *tn[2] = {"own", "neighbour"};
  if (me == 0)
    printf("# 1. dart_accumulate n doubles SUM + flush (unit 0; us per call; "
           "medians of %d rounds)\n"
           "%-9s %9s %10s %10s %10s %10s %8s %8s %8s\n",
           rounds, "target", "n", "DART", "before", "MPI", "floor", "DART/MPI",
           "DART/flr", "bef/MPI");
  for (int tgt = 0; tgt < 2; tgt++)
    for (size_t n = 1024; n <= nmax; n *= 4) {
      double t[NV][MAXR] = {{0}}, ratio[3][MAXR] = {{0}};
      /* ~32 M elements per measurement, at least 1 call; before: 1/8 */
      int reps = (int)(((size_t)32 << 20) / n);
      if (reps < 1) reps = 1;
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < NV; k++) {
          int v = (k + r) % NV;
          MPI_Barrier(MPI_COMM_WORLD);
          if (me != 0) continue;
          if (v == 1) gate_off();
          int rp = v == 1 ? (reps + 7) / 8 : reps;
          if (rp > 4) run(c, v, tgt, n, 1); /* warm */
          t[v][r] = run(c, v, tgt, n, rp) * 1e-3;
          if (v == 1) gate_on();
        }
        ratio[0][r] = t[0][r] / t[2][r];
        ratio[1][r] = t[0][r] / t[3][r];
        ratio[2][r] = t[1][r] / t[2][r];
      }
      if (me == 0)
        printf("%-9s %9zu %10.2f %10.2f %10.2f %10.2f %8.3f %8.3f %8.2f\n",
               tn[tgt], n, median(t[0], rounds), median(t[1], rounds),
               median(t[2], rounds), median(t[3], rounds),
               median(ratio[0], rounds), median(ratio[1], rounds),
               median(ratio[2], rounds));
      fflush(stdout);
    }
}

static void bench_single(ctx_t *c)
{
  dart_gptr_t g = c->g;
  g.unitid = 1;
  g.addr_or_offs.offset = 64;
  dart__segment_t *seg;
  long *p = (long *)(void *)dart__segment_fast(g, 8, &seg);
  long one = 1, old = 0;
  enum { ITERS = 200000, NS = 4 };
  /* 0: the gate as configured (asymmetric fence if the node can), 1: the
   * gate with the symmetric fence, 2: no gate (before), 3: CPU atomic */
  double t[NS][MAXR] = {{0}}, ratio[NS][MAXR] = {{0}};
  bool asym = dart__gate.asym;
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < NS; k++) {
      int v = (k + r) % NS;
      MPI_Barrier(MPI_COMM_WORLD);
      if (me != 0) continue;
      if (v == 1) dart__gate.asym = false;
      if (v == 2) gate_off();
      double t0 = MPI_Wtime();
      for (int i = 0; i < ITERS; i++) {
        if (v < 3)
          dart_fetch_and_op(g, &one, &old, DART_TYPE_LONG, DART_OP_SUM);
        else
          old = __atomic_fetch_add(p, one, __ATOMIC_SEQ_CST);
      }
      t[v][r] = (MPI_Wtime() - t0) / ITERS * 1e9;
      if (v == 2) gate_on();
      dart__gate.asym = asym;
    }
    for (int v = 0; v < NS; v++) ratio[v][r] = t[v][r] / t[3][r];
  }
  (void)old;
  if (me == 0)
    printf("# 2. fetch_and_op long SUM on the neighbour (ns per op; ratio to "
           "the CPU atomic)\n%-22s %8s %8s\n",
           "", "ns", "ratio");
  static const char *names[NS] = {"DART, gate (default)",
                                  "DART, symmetric fence",
                                  "DART, no gate (before)", "CPU atomic"};
  for (int v = 0; v < NS && me == 0; v++)
    printf("%-22s %8.2f %8.3f\n", names[v], median(t[v], rounds),
           median(ratio[v], rounds));
}

static void bench_threshold(ctx_t *c)
{
  dart_gptr_t g = c->g;
  g.unitid = 0;
  size_t keep = dart__gate.single_max;
  if (me == 0)
    printf("# 3. accumulate of n doubles into unit 0 by unit 1 alone, and by "
           "both at once: CPU atomics vs gate + loop (ns per call)\n"
           "%6s %10s %10s %10s %10s\n",
           "n", "atomics", "gate+loop", "2: atomics", "2: gate");
  for (size_t n = 1; n <= 256; n *= 2) {
    double t[4][MAXR] = {{0}};
    enum { ITERS = 20000 };
    for (int r = 0; r < rounds; r++)
      for (int k = 0; k < 4; k++) {
        int v = (k + r) % 4;
        dart__gate.single_max = v % 2 == 0 ? SIZE_MAX : 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (me != 1 && v < 2) continue;
        double t0 = MPI_Wtime();
        for (int i = 0; i < ITERS; i++)
          dart_accumulate(g, c->src, n, DART_TYPE_DOUBLE, DART_OP_SUM);
        t[v][r] = (MPI_Wtime() - t0) / ITERS * 1e9;
      }
    double m[4];
    for (int v = 0; v < 4; v++) m[v] = median(t[v], rounds);
    if (me == 1)
      printf("%6zu %10.1f %10.1f %10.1f %10.1f\n", n, m[0], m[1], m[2], m[3]);
    fflush(stdout);
  }
  dart__gate.single_max = keep;
  MPI_Barrier(MPI_COMM_WORLD);
}

static void bench_chunk(ctx_t *c)
{
  size_t n = nmax < ((size_t)1 << 20) ? nmax : ((size_t)1 << 20);
  size_t keep = dart__gate.chunk;
  if (me == 0)
    printf("# 4. chunk size: accumulate of %zu doubles alone (us), and unit "
           "0's fetch_and_op on its memory while unit 1 accumulates into it "
           "(ns per op: mean, p99; unit 1's GB/s)\n%8s %10s %10s %10s %10s\n",
           n, "chunk", "alone", "fop mean", "fop p99", "bulk GB/s");
  /* Stop flag of unit 1's traffic: a word of the raw MPI window. */
  volatile int *stop = (volatile int *)(void *)(c->mpi[1] + nmax);
  enum { OPS = 20000 };
  static double lat[OPS];
  for (size_t ch = 16 << 10; ch <= (4 << 20); ch *= 4) {
    dart__gate.chunk = ch;
    double alone[MAXR] = {0}, mean[MAXR] = {0}, p99[MAXR] = {0},
           rate[MAXR] = {0};
    for (int r = 0; r < rounds; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (me == 0) alone[r] = run(c, 0, 1, n, 8) * 1e-3;
      *stop = 0;
      MPI_Barrier(MPI_COMM_WORLD);
      dart_gptr_t g = c->g;
      g.unitid = 0;
      if (me == 1) {
        double t0 = MPI_Wtime();
        long calls = 0;
        while (!*stop) {
          BENCH_CHECK(
              dart_accumulate(g, c->src, n, DART_TYPE_DOUBLE, DART_OP_SUM));
          calls++;
        }
        rate[r] = (double)calls * (double)n * 8 / (MPI_Wtime() - t0) * 1e-9;
      } else {
        g.addr_or_offs.offset = 4096;
        long one = 1, old;
        double sum = 0;
        for (int i = 0; i < OPS; i++) {
          double t0 = MPI_Wtime();
          dart_fetch_and_op(g, &one, &old, DART_TYPE_LONG, DART_OP_SUM);
          lat[i] = (MPI_Wtime() - t0) * 1e9;
          sum += lat[i];
        }
        *stop = 1;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        qsort(lat, OPS, sizeof *lat, cmp_d);
        mean[r] = sum / OPS;
        p99[r] = lat[OPS * 99 / 100];
      }
      MPI_Barrier(MPI_COMM_WORLD);
    }
    double rt = 0;
    if (me == 1) rt = median(rate, rounds);
    MPI_Bcast(&rt, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    if (me == 0)
      printf("%7zuK %10.1f %10.1f %10.1f %10.2f\n", ch >> 10,
             median(alone, rounds), median(mean, rounds), median(p99, rounds),
             rt);
  }
  dart__gate.chunk = keep;
}

int main(int argc, char **argv)
{
  MPI_Comm world;
  int n;
  int one_node = bench_setup(&argc, &argv, &world, &me, &n);
  if (argc > 1) nmax = (size_t)strtoull(argv[1], NULL, 0);
  if (argc > 2) rounds = atoi(argv[2]);
  if (rounds < 1) rounds = 1;
  if (rounds > MAXR) rounds = MAXR;
  if (n != 2 || !one_node) {
    if (me == 0) printf("bench_accumulate: run with 2 units on one node\n");
    dart_exit();
    return 0;
  }
  ctx_t c;
  size_t bytes = nmax * sizeof(double);
  BENCH_CHECK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, nmax, DART_TYPE_DOUBLE, &c.g));
  double *mine;
  BENCH_CHECK(MPI_Win_allocate_shared((MPI_Aint)(bytes + 64), sizeof(double),
                                      MPI_INFO_NULL, world, &mine, &c.win));
  for (int u = 0; u < 2; u++) {
    MPI_Aint sz;
    int du;
    BENCH_CHECK(MPI_Win_shared_query(c.win, u, &sz, &du, &c.mpi[u]));
  }
  BENCH_CHECK(MPI_Win_lock_all(0, c.win));
  c.src = malloc(bytes);
  for (size_t i = 0; i < nmax; i++) c.src[i] = 1.0;
  /* Every page touched by its owner before any timing. */
  dart_gptr_t own = c.g;
  own.unitid = me;
  double *dmine;
  BENCH_CHECK(dart_gptr_getaddr(own, (void **)&dmine));
  memset(dmine, 0, bytes);
  memset(mine, 0, bytes + 64);
  MPI_Barrier(MPI_COMM_WORLD);
  char name[MPI_MAX_OBJECT_NAME] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Win_get_name(c.win, name, &len);
  MPI_Get_library_version(lib, &len);
  lib[strcspn(lib, "\n,")] = '\0';
  if (me == 0)
    printf("bench_accumulate: %s, 2 units, %zu doubles max, raw MPI window "
           "\"%s\", gate: T = %zu elements, chunk = %zu KiB, %s fence\n",
           lib, nmax, name, dart__gate.single_max, dart__gate.chunk >> 10,
           dart__gate.base == NULL ? "no gate, no"
           : dart__gate.asym       ? "asymmetric"
                                   : "symmetric");
  bench_bulk(&c);
  bench_single(&c);
  bench_threshold(&c);
  bench_chunk(&c);
  MPI_Barrier(MPI_COMM_WORLD);
  BENCH_CHECK(MPI_Win_unlock_all(c.win));
  MPI_Win_free(&c.win);
  free(c.src);
  BENCH_CHECK(dart_team_memfree(c.g));
  MPI_Comm_free(&world);
  dart_exit();
  return 0;
}
