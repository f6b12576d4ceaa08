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
 *   5. DASH-shaped (issue 22 item 3), at any number of units on one node:
 *      every unit at once accumulates n doubles (+ flush) into its own
 *      portion, into its neighbour's, or into unit 0's (all-to-one),
 *      DART vs MPI_Accumulate on the shared window vs the plain loop (for
 *      all-to-one: unit 0 alone running the loop once per unit, what a
 *      perfect per-target lock gives). Time per call, maximum over units.
 *   6. dart_fetch_and_op (long SUM) by unit 0 on unit 1's memory while
 *      every other unit accumulates min(1 M, max/2) doubles into unit 1's
 *      portion without pause, vs a CPU atomic under the same traffic and
 *      vs MPI_Fetch_and_op under MPI_Accumulate traffic (mean, p99).
 * Sections 1-4 need exactly 2 units; 5 and 6 run at 2 or more.
 *
 * Data checks: every measurement of sections 1, 5 and 6 starts on zeroed
 * targets and ends with an exact comparison of every element with the
 * expected sum (origin values 1..7, so misplaced elements show); a
 * failure prints FAILED and the CSV row's check column says so.
 *
 * usage: bench_accumulate [--quick] [--out=FILE.csv] [--sections=1256]
 *                         [max elements (16M)] [rounds (7)]
 */
#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "globmem/dart_segment.h"
#include "transport/cpu_gate.h"

enum { MAXR = 64, NV = 4 };

static int me, nu, rounds = 7;
static size_t nmax = (size_t)16 << 20;
static size_t budget = (size_t)32 << 20; /* elements per measurement */
static bool quick, all_ok = true;
static FILE *csv; /* --out, on unit 0 */
static MPI_Comm world;

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
  dart_gptr_t g; /* DART segment, 16-byte aligned portions           */
  MPI_Win win;   /* raw MPI shared window of the same size           */
  double **mpi;  /* its portions, mapped, one per unit               */
  double **dart; /* the DART segment's portions, mapped              */
  double *src;   /* origin buffer: 1 + i % 7                         */
} ctx_t;

/* A CSV number, or an empty cell for a negative (not measured) value. */
static void csv_num(double x)
{
  if (x >= 0)
    fprintf(csv, ",%.6g", x);
  else
    fputs(",", csv);
}

/* One CSV row (unit 0, with --out): times in us, ratios of medians. */
static void csv_row(const char *kind, const char *pat, size_t n,
                    const double *v, int nv, bool ok)
{
  if (csv == NULL) return;
  fprintf(csv, "%s,%s,%d,%zu", kind, pat, nu, n);
  for (int i = 0; i < nv; i++) csv_num(v[i]);
  fprintf(csv, ",%s\n", ok ? "ok" : "FAILED");
  fflush(csv);
}

/* Zeroes t[0..n) (a target about to be measured). */
static void zero(double *t, size_t n)
{
  memset(t, 0, n * sizeof *t);
}

/* True if t[i] == k * src[i] for every i < n; prints the first miss. */
static bool check_sum(const char *what, const double *t, const double *src,
                      size_t n, double k)
{
  for (size_t i = 0; i < n; i++)
    if (t[i] != k * src[i]) {
      fprintf(stderr,
              "bench_accumulate: FAILED %s: unit %d element %zu of %zu is "
              "%.17g, expected %.17g\n",
              what, me, i, n, t[i], k * src[i]);
      all_ok = false;
      return false;
    }
  return true;
}

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
      bool ok = true;
      /* ~32 M elements per measurement, at least 1 call; before: 1/8 */
      int reps = (int)(budget / n);
      if (reps < 1) reps = 1;
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < NV; k++) {
          int v = (k + r) % NV;
          MPI_Barrier(MPI_COMM_WORLD);
          if (me != 0) continue;
          if (v == 1) gate_off();
          int rp = v == 1 ? (reps + 7) / 8 : reps;
          double *tm = v < 2 ? c->dart[tgt] : c->mpi[tgt];
          zero(tm, n);
          if (rp > 4) run(c, v, tgt, n, 1); /* warm */
          t[v][r] = run(c, v, tgt, n, rp) * 1e-3;
          if (v == 1) gate_on();
          if (v >= 2) BENCH_CHECK(MPI_Win_sync(c->win));
          ok &= check_sum("section 1", tm, c->src, n, rp + (rp > 4));
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
      if (me == 0) {
        double row[] = {median(t[0], rounds),
                        median(t[1], rounds),
                        median(t[2], rounds),
                        median(t[3], rounds),
                        median(ratio[0], rounds),
                        median(ratio[1], rounds),
                        -1,
                        -1};
        csv_row("alone", tn[tgt], n, row, 8, ok);
      }
      fflush(stdout);
    }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void bench_single(ctx_t *c)
{
  dart_gptr_t g = c->g;
  g.unitid = 1;
  g.addr_or_offs.offset = 64;
  dart__segment_t *seg;
  long *p = (long *)(void *)dart__segment_fast(g, 8, &seg);
  long one = 1, old = 0;
  enum { NS = 4 };
  const int ITERS = quick ? 20000 : 200000;
  if (me == 0) *p = 0;
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
  if (me == 0) {
    bool ok = *p == (long)rounds * NS * ITERS;
    if (!ok) {
      fprintf(stderr,
              "bench_accumulate: FAILED section 2: counter %ld, "
              "expected %ld\n",
              *p, (long)rounds * NS * ITERS);
      all_ok = false;
    }
    double row[] = {median(t[0], rounds) * 1e-3,
                    median(t[2], rounds) * 1e-3,
                    -1,
                    median(t[3], rounds) * 1e-3,
                    -1,
                    median(ratio[0], rounds),
                    -1,
                    -1};
    csv_row("fop", "idle", 1, row, 8, ok);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* unit 1 must not run ahead to 5 */
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

/* CLOCK_MONOTONIC is one clock for all processes of the node. */
static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Section 5: the target of unit me under pattern p (own, neighbour,
 * all-to-one), and how many units write into unit u's portion. */
static int pat_target(int p)
{
  return p == 0 ? me : p == 1 ? (me + 1) % nu : 0;
}
static int pat_writers(int p, int u)
{
  return p < 2 ? 1 : (u == 0 ? nu : 0);
}

/* One measurement of section 5: every unit runs reps calls of variant v
 * (0 DART, 1 MPI, 2 floor) under pattern p on zeroed targets; returns us
 * per call (maximum over units) and ands the data check into *ok. */
static double conc_run(ctx_t *c, int p, int v, size_t n, int reps, bool *ok)
{
  double *mine = v == 0 ? c->dart[me] : c->mpi[me];
  zero(mine, n);
  if (v > 0) BENCH_CHECK(MPI_Win_sync(c->win));
  MPI_Barrier(world);
  int tgt = pat_target(p);
  dart_gptr_t g = c->g;
  g.unitid = tgt;
  /* from the first unit's start to the last unit's end, on the node's
   * common clock (with more units than cores a unit's own elapsed time
   * leaves out the time it waited for a core) */
  double t[2] = {-now(), 0};
  for (int r = 0; r < reps; r++) {
    if (v == 0) {
      BENCH_CHECK(dart_accumulate(g, c->src, n, DART_TYPE_DOUBLE, DART_OP_SUM));
      BENCH_CHECK(dart_flush(g));
    } else if (v == 1) {
      BENCH_CHECK(MPI_Accumulate(c->src, (int)n, MPI_DOUBLE, tgt, 0, (int)n,
                                 MPI_DOUBLE, MPI_SUM, c->win));
      BENCH_CHECK(MPI_Win_flush(tgt, c->win));
    } else if (p < 2) {
      floor_loop(c->mpi[tgt], c->src, n);
      BENCH_FENCE();
    } else if (me == 0) { /* all-to-one floor: the sums one after another */
      for (int u = 0; u < nu; u++) floor_loop(c->mpi[0], c->src, n);
      BENCH_FENCE();
    }
  }
  t[1] = now();
  double tmax[2];
  BENCH_CHECK(MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, world));
  if (v > 0) BENCH_CHECK(MPI_Win_sync(c->win));
  MPI_Barrier(world);
  if (v > 0) BENCH_CHECK(MPI_Win_sync(c->win));
  static const char *vn[3] = {"section 5 DART", "section 5 MPI",
                              "section 5 floor"};
  *ok &= check_sum(vn[v], mine, c->src, n, (double)pat_writers(p, me) * reps);
  return (tmax[1] + tmax[0]) / reps * 1e6;
}

static void bench_dash(ctx_t *c)
{
  static const char *pn[3] = {"own", "neighbour", "all-to-one"};
  if (me == 0)
    printf("# 5. every unit at once: dart_accumulate n doubles SUM + flush "
           "(%d units; us per call, max over units; medians of %d rounds)\n"
           "%-10s %9s %10s %10s %10s %8s %8s %5s\n",
           nu, rounds, "pattern", "n", "DART", "MPI", "floor", "DART/MPI",
           "DART/flr", "check");
  for (int p = 0; p < 3; p++)
    for (size_t n = 1024; n <= nmax; n *= 4) {
      double t[3][MAXR] = {{0}}, ratio[2][MAXR] = {{0}};
      bool ok = true;
      int reps = (int)(budget / 2 / n);
      if (reps < 1) reps = 1;
      for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < 3; k++) {
          int v = (k + r) % 3;
          t[v][r] = conc_run(c, p, v, n, reps, &ok);
        }
        ratio[0][r] = t[0][r] / t[1][r];
        ratio[1][r] = t[0][r] / t[2][r];
      }
      int okall = ok, okred;
      BENCH_CHECK(MPI_Allreduce(&okall, &okred, 1, MPI_INT, MPI_LAND, world));
      if (me != 0) continue;
      double row[] = {median(t[0], rounds),
                      -1,
                      median(t[1], rounds),
                      median(t[2], rounds),
                      median(ratio[0], rounds),
                      median(ratio[1], rounds),
                      -1,
                      -1};
      printf("%-10s %9zu %10.2f %10.2f %10.2f %8.3f %8.3f %5s\n", pn[p], n,
             row[0], row[2], row[3], row[4], row[5], okred ? "ok" : "FAIL");
      fflush(stdout);
      csv_row("all", pn[p], n, row, 8, okred);
    }
}

/* Section 6, one round of variant v (0 DART fop, 1 CPU atomic, both under
 * DART traffic; 2 MPI_Fetch_and_op under MPI_Accumulate traffic): unit 0
 * runs ops single ops on unit 1's word while the others accumulate nt
 * doubles into unit 1's portion until told to stop. Unit 0 returns the
 * mean latency (ns) and sets *p99; the check is anded into *ok. */
static double traffic_round(ctx_t *c, int v, size_t nt, int maxops, double *lat,
                            double *p99, bool *ok)
{
  /* unit 0's ops run for span seconds (many scheduler slices, so that the
   * traffic runs too when units outnumber cores), at least 10 */
  double span = quick ? 0.02 : 0.2;
  int ops = 0;
  volatile int *stop = (volatile int *)(void *)(c->mpi[1] + nmax);
  double *region = v < 2 ? c->dart[1] : c->mpi[1];
  long *word = (long *)(void *)(region + nmax - 8);
  if (me == 1) {
    zero(region, nt);
    *word = 0;
    *stop = 0;
  }
  BENCH_CHECK(MPI_Win_sync(c->win));
  MPI_Barrier(world);
  BENCH_CHECK(MPI_Win_sync(c->win));
  dart_gptr_t g = c->g;
  g.unitid = 1;
  long calls = 0, total = 0, one = 1, old;
  double mean = 0;
  if (me != 0) {
    while (!*stop) {
      if (v < 2) {
        BENCH_CHECK(
            dart_accumulate(g, c->src, nt, DART_TYPE_DOUBLE, DART_OP_SUM));
        BENCH_CHECK(dart_flush(g));
      } else {
        BENCH_CHECK(MPI_Accumulate(c->src, (int)nt, MPI_DOUBLE, 1, 0, (int)nt,
                                   MPI_DOUBLE, MPI_SUM, c->win));
        BENCH_CHECK(MPI_Win_flush(1, c->win));
      }
      calls++;
    }
  } else {
    g.addr_or_offs.offset += (nmax - 8) * sizeof(double);
    MPI_Aint disp = (MPI_Aint)(nmax - 8);
    double end = now() + span;
    for (int i = 0; i < maxops && (i < 10 || now() < end); i++, ops++) {
      double t0 = MPI_Wtime();
      if (v == 0)
        BENCH_CHECK(
            dart_fetch_and_op(g, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
      else if (v == 1)
        old = __atomic_fetch_add(word, one, __ATOMIC_SEQ_CST);
      else {
        BENCH_CHECK(
            MPI_Fetch_and_op(&one, &old, MPI_LONG, 1, disp, MPI_SUM, c->win));
        BENCH_CHECK(MPI_Win_flush(1, c->win));
      }
      lat[i] = (MPI_Wtime() - t0) * 1e9;
      mean += lat[i];
    }
    if (v == 0) BENCH_CHECK(dart_flush(g));
    *stop = 1;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    qsort(lat, (size_t)ops, sizeof *lat, cmp_d);
    *p99 = lat[ops * 99 / 100];
    mean /= ops;
  }
  (void)old;
  BENCH_CHECK(MPI_Bcast(&ops, 1, MPI_INT, 0, world));
  BENCH_CHECK(MPI_Reduce(&calls, &total, 1, MPI_LONG, MPI_SUM, 1, world));
  BENCH_CHECK(MPI_Win_sync(c->win));
  MPI_Barrier(world);
  BENCH_CHECK(MPI_Win_sync(c->win));
  if (me == 1) {
    *ok &= check_sum("section 6 bulk", region, c->src, nt, (double)total);
    if (*word != ops) {
      fprintf(stderr,
              "bench_accumulate: FAILED section 6: counter %ld, "
              "expected %d\n",
              *word, ops);
      all_ok = false;
      *ok = false;
    }
  }
  return mean;
}

static void bench_traffic(ctx_t *c)
{
  size_t nt = nmax / 2 < ((size_t)1 << 20) ? nmax / 2 : ((size_t)1 << 20);
  int ops = 1 << 20;
  double *lat = malloc((size_t)ops * sizeof *lat);
  double mean[3][MAXR] = {{0}}, p99[3][MAXR] = {{0}}, ratio[2][MAXR] = {{0}};
  bool ok = true;
  for (int r = 0; r < rounds; r++) {
    for (int k = 0; k < 3; k++) {
      int v = (k + r) % 3;
      mean[v][r] = traffic_round(c, v, nt, ops, lat, &p99[v][r], &ok);
    }
    ratio[0][r] = mean[0][r] / mean[1][r];
    ratio[1][r] = mean[0][r] / mean[2][r];
  }
  free(lat);
  int okall = ok, okred;
  BENCH_CHECK(MPI_Allreduce(&okall, &okred, 1, MPI_INT, MPI_LAND, world));
  if (me != 0) return;
  static const char *names[3] = {"DART fetch_and_op", "CPU atomic",
                                 "MPI_Fetch_and_op"};
  printf("# 6. single long SUM by unit 0 on unit 1's memory while %d unit(s) "
         "accumulate %zu doubles into it (ns per op; medians of %d rounds)\n"
         "%-18s %10s %10s\n",
         nu - 1, nt, rounds, "", "mean", "p99");
  for (int v = 0; v < 3; v++)
    printf("%-18s %10.1f %10.1f\n", names[v], median(mean[v], rounds),
           median(p99[v], rounds));
  printf("DART/CPU %.3f, DART/MPI %.3f, check %s\n", median(ratio[0], rounds),
         median(ratio[1], rounds), okred ? "ok" : "FAILED");
  double row[] = {
      median(mean[0], rounds) * 1e-3, -1,
      median(mean[2], rounds) * 1e-3, median(mean[1], rounds) * 1e-3,
      median(ratio[1], rounds),       median(ratio[0], rounds),
      median(p99[0], rounds) * 1e-3,  median(p99[1], rounds) * 1e-3};
  csv_row("fop", "traffic", nt, row, 8, okred);
}

/* Options: --quick, --out=FILE, --sections=DIGITS; positional max
 * elements and rounds. Returns the sections to run. */
static const char *parse_args(int argc, char **argv, const char **out)
{
  const char *sec = NULL;
  int pos = 0;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--quick") == 0)
      quick = true;
    else if (strncmp(argv[a], "--out=", 6) == 0)
      *out = argv[a] + 6;
    else if (strncmp(argv[a], "--sections=", 11) == 0)
      sec = argv[a] + 11;
    else if (pos++ == 0)
      nmax = (size_t)strtoull(argv[a], NULL, 0);
    else
      rounds = atoi(argv[a]);
  }
  if (quick) {
    if (pos < 1) nmax = (size_t)256 << 10;
    if (pos < 2) rounds = 3;
    budget = (size_t)1 << 20;
  }
  if (nmax < 1024) nmax = 1024;
  if (rounds < 1) rounds = 1;
  if (rounds > MAXR) rounds = MAXR;
  return sec != NULL ? sec : quick ? "1256" : "123456";
}

/* Maps every unit's portion of the DART segment and of the raw window. */
static void map_portions(ctx_t *c)
{
  c->mpi = malloc((size_t)nu * sizeof *c->mpi);
  c->dart = malloc((size_t)nu * sizeof *c->dart);
  for (int u = 0; u < nu; u++) {
    MPI_Aint sz;
    int du;
    BENCH_CHECK(MPI_Win_shared_query(c->win, u, &sz, &du, &c->mpi[u]));
    dart_gptr_t g = c->g;
    g.unitid = u;
    dart__segment_t *seg;
    c->dart[u] =
        (double *)(void *)dart__segment_fast(g, nmax * sizeof(double), &seg);
    if (c->dart[u] == NULL) {
      fprintf(stderr, "bench_accumulate: unit %d's portion is not mapped\n", u);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

static void print_header(ctx_t *c, const char *sec)
{
  char name[MPI_MAX_OBJECT_NAME] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int len;
  MPI_Win_get_name(c->win, name, &len);
  MPI_Get_library_version(lib, &len);
  lib[strcspn(lib, "\n,")] = '\0';
  const char *fence = dart__gate.base == NULL ? "no gate, no"
                      : dart__gate.asym       ? "asymmetric"
                                              : "symmetric";
  printf("bench_accumulate: %s, %d units, %zu doubles max, raw MPI window "
         "\"%s\", gate: T = %zu elements, chunk = %zu KiB, %s fence, "
         "sections %s%s\n",
         lib, nu, nmax, name, dart__gate.single_max, dart__gate.chunk >> 10,
         fence, sec, quick ? " (quick)" : "");
  if (csv == NULL) return;
  fprintf(csv,
          "#units=%d\n#trials=%d\n#mpi_library=%s\n#gate=T %zu, chunk %zu "
          "KiB, %s fence\n#quick=%d\n"
          "kind,pattern,units,n,dart_us,before_us,mpi_us,floor_us,dart_mpi,"
          "dart_floor,dart_p99_us,floor_p99_us,check\n",
          nu, rounds, lib, dart__gate.single_max, dart__gate.chunk >> 10, fence,
          quick);
}

int main(int argc, char **argv)
{
  int one_node = bench_setup(&argc, &argv, &world, &me, &nu);
  const char *out = NULL;
  const char *sec = parse_args(argc, argv, &out);
  if (nu < 2 || !one_node) {
    if (me == 0)
      printf("bench_accumulate: run with 2 or more units on one node\n");
    dart_exit();
    return 0;
  }
  if (me == 0 && out != NULL && (csv = fopen(out, "w")) == NULL) {
    fprintf(stderr, "bench_accumulate: cannot write %s\n", out);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  ctx_t c;
  size_t bytes = nmax * sizeof(double);
  BENCH_CHECK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, nmax, DART_TYPE_DOUBLE, &c.g));
  double *mine;
  BENCH_CHECK(MPI_Win_allocate_shared((MPI_Aint)(bytes + 64), sizeof(double),
                                      MPI_INFO_NULL, world, &mine, &c.win));
  map_portions(&c);
  BENCH_CHECK(MPI_Win_lock_all(0, c.win));
  c.src = malloc(bytes);
  for (size_t i = 0; i < nmax; i++) c.src[i] = (double)(1 + i % 7);
  /* Every page touched by its owner before any timing. */
  memset(c.dart[me], 0, bytes);
  memset(mine, 0, bytes + 64);
  BENCH_CHECK(MPI_Win_sync(c.win));
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == 0) print_header(&c, sec);
  /* Sections 1-4 time units 0 and 1 alone: only at 2 units. */
  if (nu == 2 && strchr(sec, '1')) bench_bulk(&c);
  if (nu == 2 && strchr(sec, '2')) bench_single(&c);
  if (nu == 2 && strchr(sec, '3')) bench_threshold(&c);
  if (nu == 2 && strchr(sec, '4')) bench_chunk(&c);
  if (strchr(sec, '5')) bench_dash(&c);
  if (strchr(sec, '6')) bench_traffic(&c);
  MPI_Barrier(MPI_COMM_WORLD);
  BENCH_CHECK(MPI_Win_unlock_all(c.win));
  MPI_Win_free(&c.win);
  free(c.src);
  free(c.mpi);
  free(c.dart);
  BENCH_CHECK(dart_team_memfree(c.g));
  MPI_Comm_free(&world);
  int ok = all_ok, okall;
  MPI_Allreduce(&ok, &okall, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (me == 0 && !okall) printf("bench_accumulate: data checks FAILED\n");
  if (csv != NULL) fclose(csv);
  dart_exit();
  return okall ? 0 : 1;
}
