/*
 * DASH's benchmark programs as DART call sequences (issue 38 item 4): the
 * inner loop of each program named in the issue, written with the DART
 * calls DASH makes for it, next to the same loop in raw MPI on the same
 * processes (an MPI_Win_allocate_shared window for the data, the team's
 * own communicator for the collectives), timed in the same run.
 *
 *   jacobi-1d     bench.06: per step two blocking gets of the neighbours'
 *                 edge elements and the 3-point stencil over the local
 *                 block, twice (A->B, B->A), each half ending in a barrier
 *                 (see k_jacobi)
 *   min-element   bench.08: local minimum, allgather of (value, index)
 *                 pairs, the global minimum, a barrier
 *   igups         bench.01: ++ through a global reference on every element
 *                 of the own block (blocking get + blocking put each)
 *   multi-reader  bench.09: every unit copies the whole array as DASH's
 *                 blocking dash::copy does (one dart_get per unit's block,
 *                 dart_flush_local_all), then a barrier
 *   for_each      bench.12: a loop over the local block, then a barrier
 *   allreduce     bench.13: dart_allreduce of single values: MIN, MAX,
 *                 MINMAX (one pair) and a user operation (dart_op_create)
 *   accumulate    bench.14: dart_accumulate of one double (SUM) into the
 *                 right neighbour + dart_flush, every unit at once
 *
 * Each kernel runs in rounds alternating DART and MPI (order flipped every
 * round); a variant's time per iteration is the slowest unit's, the row
 * gives the medians over rounds and the median, minimum and maximum of the
 * per-round ratio DART / MPI. Every kernel's DART result is checked
 * against the value the MPI variant computes or the exact expected value;
 * a mismatch prints FAILED and makes the exit status 1.
 *
 * usage: bench_dash [--quick | --check] [--out=FILE.csv] [rounds]   (any
 * units, one node; elsewhere it says so and exits 0 with no rows).
 * --quick: a quarter of the iterations, 5 rounds; --check (the CTest
 * variant): a twentieth, 1 round, the data checks unchanged.
 */
#include <dash/dart/if/dart.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

enum { V_DART, V_MPI };
/* Elements per unit. A: READ_N (jacobi's first JAC_N, min-element, the
 * multi-reader's source); B: jacobi's second array (JAC_N), igups' block
 * at B_GUPS, for_each's at B_EACH, the accumulate target at B_ACC. */
enum {
  JAC_N = 256,
  MIN_N = 1 << 14,
  READ_N = 1 << 14,
  GUPS_N = 1024,
  EACH_N = 1 << 12,
  B_GUPS = READ_N,
  B_EACH = B_GUPS + GUPS_N,
  B_ACC = B_EACH + EACH_N,
  B_N = B_ACC + 1,
  MIN_AT = MIN_N - 5
};

static MPI_Comm comm;
static int me, nu, left, right, failed;
static double *la, *lb; /* own blocks of the DART arrays A, B */
static dart_gptr_t ga, gb;
static MPI_Win swin;    /* the MPI variant's shared window: A|B per unit */
static double *sa, *sb; /* own blocks in it */
static double *rbuf;    /* multi-reader destination (nu * READ_N) */
static dart_operation_t uop;
static MPI_Op mpi_uop, mpi_minmax;

/* Element off of unit u's block in array base g. */
static dart_gptr_t at(dart_gptr_t g, int u, size_t off)
{
  g.unitid = u;
  g.addr_or_offs.offset += off * sizeof(double);
  return g;
}

/* Unit u's block of the shared window (A, or B if second): queried once
 * in setup (a benchmark may keep one pointer per unit). */
static double **peer_a;

static double *shared_block(int u, int second)
{
  return peer_a[u] + (second ? READ_N : 0);
}

static void fill(double *a, double *b, int n)
{
  for (int i = 0; i < n; i++) a[i] = b[i] = (double)((me * 131 + i * 7) % 97);
}

static void barrier(int v)
{
  if (v == V_DART)
    BENCH_CHECK(dart_barrier(DART_TEAM_ALL));
  else
    BENCH_CHECK(MPI_Barrier(comm));
}

/* ---- jacobi-1d ---------------------------------------------------------- */
static void stencil(const double *in, double *out, double l, double r)
{
  out[0] = 0.25 * l + 0.5 * in[0] + 0.25 * in[1];
  for (int i = 1; i < JAC_N - 1; i++)
    out[i] = 0.25 * in[i - 1] + 0.5 * in[i] + 0.25 * in[i + 1];
  out[JAC_N - 1] = 0.25 * in[JAC_N - 2] + 0.5 * in[JAC_N - 1] + 0.25 * r;
}

static void jacobi_half(int v, dart_gptr_t gin, const double *in, double *out,
                        int second)
{
  double l = 0, r = 0;
  if (v == V_DART) {
    if (me > 0)
      BENCH_CHECK(dart_get_blocking(&l, at(gin, left, JAC_N - 1), 1,
                                    DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
    if (me < nu - 1)
      BENCH_CHECK(dart_get_blocking(&r, at(gin, right, 0), 1, DART_TYPE_DOUBLE,
                                    DART_TYPE_DOUBLE));
  } else {
    BENCH_FENCE();
    if (me > 0) l = shared_block(left, second)[JAC_N - 1];
    if (me < nu - 1) r = shared_block(right, second)[0];
  }
  stencil(in, out, l, r);
}

/* DASH's program has one barrier per step, after both halves: a unit's
 * second half then overwrites A while a slower neighbour may still read
 * it, and the result depends on timing. Here each half ends in a barrier,
 * so both variants compute the same numbers, compared bit for bit. */
static void k_jacobi(int v, int iters)
{
  for (int it = 0; it < iters; it++) {
    jacobi_half(v, ga, v == V_DART ? la : sa, v == V_DART ? lb : sb, 0);
    barrier(v);
    jacobi_half(v, gb, v == V_DART ? lb : sb, v == V_DART ? la : sa, 1);
    barrier(v);
  }
}

static int c_jacobi(void)
{
  for (int i = 0; i < JAC_N; i++)
    if (la[i] != sa[i] || lb[i] != sb[i]) return 0;
  return 1;
}

/* ---- min-element -------------------------------------------------------- */
typedef struct {
  double value;
  long index;
} minloc_t;

static minloc_t min_result;

static void k_min(int v, int iters)
{
  const double *a = v == V_DART ? la : sa;
  minloc_t *all = malloc((size_t)nu * sizeof *all);
  for (int it = 0; it < iters; it++) {
    minloc_t m = {a[0], 0};
    for (int i = 1; i < MIN_N; i++)
      if (a[i] < m.value) m = (minloc_t){a[i], i};
    m.index += (long)me * MIN_N;
    if (v == V_DART) {
      BENCH_CHECK(
          dart_allgather(&m, all, sizeof m, DART_TYPE_BYTE, DART_TEAM_ALL));
    } else {
      BENCH_CHECK(MPI_Allgather(&m, (int)sizeof m, MPI_BYTE, all, (int)sizeof m,
                                MPI_BYTE, comm));
    }
    minloc_t g = all[0];
    for (int u = 1; u < nu; u++)
      if (all[u].value < g.value) g = all[u];
    min_result = g;
    barrier(v);
  }
  free(all);
}

static int c_min(void)
{
  /* The last unit planted -1 at its element MIN_AT (setup), past what
   * jacobi-1d changes: the minimum. */
  return min_result.value == -1.0 &&
         min_result.index == (long)(nu - 1) * MIN_N + MIN_AT;
}

/* ---- igups -------------------------------------------------------------- */
static long gups_calls[2];

static void k_gups(int v, int iters)
{
  dart_gptr_t g = at(gb, me, B_GUPS);
  for (int it = 0; it < iters; it++) {
    for (int i = 0; i < GUPS_N; i++) {
      double x;
      if (v == V_DART) {
        dart_gptr_t e = g;
        e.addr_or_offs.offset += (uint64_t)i * sizeof(double);
        BENCH_CHECK(
            dart_get_blocking(&x, e, 1, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
        x += 1;
        BENCH_CHECK(
            dart_put_blocking(e, &x, 1, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE));
      } else {
        BENCH_FENCE();
        memcpy(&x, sb + B_GUPS + i, sizeof x);
        x += 1;
        memcpy(sb + B_GUPS + i, &x, sizeof x);
        BENCH_FENCE();
      }
    }
  }
  gups_calls[v] += iters;
}

static int c_gups(void)
{
  /* igups' elements of B (own block) were zero and counted up. */
  for (int i = 0; i < GUPS_N; i++)
    if (lb[B_GUPS + i] != (double)gups_calls[V_DART] ||
        sb[B_GUPS + i] != (double)gups_calls[V_MPI])
      return 0;
  return 1;
}

/* ---- multi-reader ------------------------------------------------------- */
/* DASH's blocking dash::copy (global to local): one dart_get per unit's
 * block, then dart_flush_local_all. */
static void k_read(int v, int iters)
{
  for (int it = 0; it < iters; it++) {
    for (int u = 0; u < nu; u++) {
      double *dst = rbuf + (size_t)u * READ_N;
      if (v == V_DART)
        BENCH_CHECK(dart_get(dst, at(ga, u, 0), READ_N, DART_TYPE_DOUBLE,
                             DART_TYPE_DOUBLE));
      else
        memcpy(dst, shared_block(u, 0), READ_N * sizeof(double));
    }
    if (v == V_DART) {
      BENCH_CHECK(dart_flush_local_all(ga));
      BENCH_CHECK(dart_barrier(DART_TEAM_ALL));
    } else {
      BENCH_FENCE();
      BENCH_CHECK(MPI_Barrier(comm));
    }
  }
}

static int c_read(void)
{
  /* Both variants' A went through the same jacobi-1d steps: the copy of
   * DART's A must equal every unit's A of the MPI variant bit for bit. */
  for (int u = 0; u < nu; u++)
    if (memcmp(rbuf + (size_t)u * READ_N, shared_block(u, 0),
               READ_N * sizeof(double)) != 0)
      return 0;
  return 1;
}

/* ---- for_each ----------------------------------------------------------- */
static void k_each(int v, int iters)
{
  double *a = (v == V_DART ? lb : sb) + B_EACH;
  for (int it = 0; it < iters; it++) {
    for (int i = 0; i < EACH_N; i++) a[i] = a[i] * 0.5 + 1.0;
    barrier(v);
  }
}

static int c_each(void)
{
  /* x -> x/2 + 1 from 0 converges to 2; both variants ran enough. */
  double *a = lb + B_EACH, *b = sb + B_EACH;
  for (int i = 0; i < EACH_N; i++)
    if (fabs(a[i] - 2.0) > 1e-3 || fabs(b[i] - 2.0) > 1e-3) return 0;
  return 1;
}

/* ---- allreduce of single values ------------------------------------------ */
static double red_out[5]; /* MIN, MAX, MINMAX pair, user op */

static void user_sum(const void *in, void *inout, size_t len, void *data)
{
  (void)data;
  const double *a = in;
  double *b = inout;
  for (size_t i = 0; i < len; i++) b[i] += a[i];
}

static void mpi_sum(void *in, void *inout, int *len, MPI_Datatype *t)
{
  (void)t;
  user_sum(in, inout, (size_t)*len, NULL);
}

static void mpi_mm(void *in, void *inout, int *len, MPI_Datatype *t)
{
  (void)t;
  double *a = in, *b = inout;
  for (int i = 0; i + 1 < *len; i += 2) {
    b[i] = a[i] < b[i] ? a[i] : b[i];
    b[i + 1] = a[i + 1] > b[i + 1] ? a[i + 1] : b[i + 1];
  }
}

/* op: 0 MIN, 1 MAX, 2 MINMAX (one pair), 3 user op (a sum). */
static void reduce_once(int v, int op)
{
  static const int at_[4] = {0, 1, 2, 4};
  double x[2] = {me + 1.0, me + 1.0}, *r = red_out + at_[op];
  int n = op == 2 ? 2 : 1;
  if (v == V_DART) {
    static const dart_operation_t dop[3] = {DART_OP_MIN, DART_OP_MAX,
                                            DART_OP_MINMAX};
    BENCH_CHECK(dart_allreduce(x, r, (size_t)n, DART_TYPE_DOUBLE,
                               op == 3 ? uop : dop[op], DART_TEAM_ALL));
  } else {
    MPI_Op mop[4] = {MPI_MIN, MPI_MAX, mpi_minmax, mpi_uop};
    BENCH_CHECK(MPI_Allreduce(x, r, n, MPI_DOUBLE, mop[op], comm));
  }
}

#define RED_KERNEL(name, op)                                                   \
  static void name(int v, int iters)                                           \
  {                                                                            \
    for (int it = 0; it < iters; it++) reduce_once(v, op);                     \
  }
RED_KERNEL(k_rmin, 0)
RED_KERNEL(k_rmax, 1)
RED_KERNEL(k_rminmax, 2)
RED_KERNEL(k_ruser, 3)
#undef RED_KERNEL

/* Results of the last call (the driver's extra DART run). */
static int c_rmin(void)
{
  return red_out[0] == 1.0;
}
static int c_rmax(void)
{
  return red_out[1] == (double)nu;
}
static int c_rminmax(void)
{
  return red_out[2] == 1.0 && red_out[3] == nu;
}
static int c_ruser(void)
{
  return red_out[4] == nu * (nu + 1) / 2.0;
}

/* ---- accumulate of one double ---------------------------------------------
 */
static long acc_calls[2];

static void k_acc(int v, int iters)
{
  const double one = 1.0;
  for (int it = 0; it < iters; it++) {
    if (v == V_DART) {
      dart_gptr_t t = at(gb, right, B_ACC);
      BENCH_CHECK(dart_accumulate(t, &one, 1, DART_TYPE_DOUBLE, DART_OP_SUM));
      BENCH_CHECK(dart_flush(t));
    } else {
      BENCH_CHECK(MPI_Accumulate(&one, 1, MPI_DOUBLE, right, READ_N + B_ACC, 1,
                                 MPI_DOUBLE, MPI_SUM, swin));
      BENCH_CHECK(MPI_Win_flush(right, swin));
    }
  }
  acc_calls[v] += iters;
}

static int c_acc(void)
{
  /* The left neighbour (oneself with one unit) added 1 per call. */
  return lb[B_ACC] == (double)acc_calls[V_DART] &&
         sb[B_ACC] == (double)acc_calls[V_MPI];
}

/* ---- driver -----------------------------------------------------------------
 */
typedef struct {
  const char *name, *program;
  void (*run)(int v, int iters);
  int (*check)(void);
  int iters;     /* per round and variant (quick: a quarter) */
  int stateless; /* results depend on the last call only: one more DART
                    call before the check (the last timed one may be MPI's) */
} kernel_t;

static const kernel_t kernels[] = {
    {"jacobi-1d step", "bench.06.jacobi-1d", k_jacobi, c_jacobi, 200, 0},
    {"min_element", "bench.08.min-element", k_min, c_min, 200, 1},
    {"igups ++ref x1024", "bench.01.igups", k_gups, c_gups, 20, 0},
    {"copy whole array", "bench.09.multi-reader", k_read, c_read, 40, 1},
    {"for_each + barrier", "bench.12.for_each", k_each, c_each, 400, 0},
    {"allreduce MIN 1", "bench.13.allreduce", k_rmin, c_rmin, 400, 1},
    {"allreduce MAX 1", "bench.13.allreduce", k_rmax, c_rmax, 400, 1},
    {"allreduce MINMAX 1", "bench.13.allreduce", k_rminmax, c_rminmax, 400, 1},
    {"allreduce user op 1", "bench.13.allreduce", k_ruser, c_ruser, 400, 1},
    {"accumulate 1 + flush", "bench.14.accumulate", k_acc, c_acc, 400, 0},
};
enum { NK = sizeof kernels / sizeof kernels[0] };

/* Time per iteration of variant v (slowest unit), in microseconds. */
static double timed(const kernel_t *k, int v, int iters)
{
  BENCH_CHECK(MPI_Barrier(comm));
  double t0 = MPI_Wtime();
  k->run(v, iters);
  double dt = MPI_Wtime() - t0, mx;
  BENCH_CHECK(MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, comm));
  return mx / iters * 1e6;
}

/* Every unit's verdict on the kernel's data, agreed (min over units). */
static int checked(const kernel_t *k)
{
  BENCH_CHECK(MPI_Barrier(comm));
  int ok = k->check(), all;
  BENCH_CHECK(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm));
  return all;
}

static void run_kernel(const kernel_t *k, int rounds, int div, FILE *csv)
{
  int iters = (k->iters + div - 1) / div;
  double *t = malloc(3 * (size_t)rounds * sizeof *t), *td = t, *tm = t + rounds,
         *ratio = t + 2 * rounds;
  k->run(V_DART, 1); /* warm-up: first touches, caches, MPI's lazy setup */
  k->run(V_MPI, 1);
  int ok;
  for (int r = 0; r < rounds; r++) {
    int first = r % 2;
    double x[2];
    x[first] = timed(k, first, iters);
    x[!first] = timed(k, !first, iters);
    td[r] = x[V_DART];
    tm[r] = x[V_MPI];
    ratio[r] = x[V_DART] / x[V_MPI];
  }
  if (k->stateless) k->run(V_DART, 1);
  ok = checked(k);
  double d = bench_median(td, rounds), m = bench_median(tm, rounds),
         q = bench_median(ratio, rounds);
  if (me == 0) {
    printf("  %-22s %-22s %10.2f %10.2f %7.3f  [%.3f, %.3f]  %s%s\n", k->name,
           k->program, d, m, q, ratio[0], ratio[rounds - 1],
           q <= 1.10 ? "ok" : "above 1.10", ok ? "" : "  FAILED (data)");
    if (csv != NULL)
      fprintf(csv, "%s,%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%s\n", k->name,
              k->program, nu, d, m, q, ratio[0], ratio[rounds - 1],
              ok ? "ok" : "FAILED");
  }
  if (!ok) failed = 1;
  free(t);
}

static void setup(void)
{
  left = (me - 1 + nu) % nu;
  right = (me + 1) % nu;
  BENCH_CHECK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, READ_N, DART_TYPE_DOUBLE, &ga));
  BENCH_CHECK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, B_N, DART_TYPE_DOUBLE, &gb));
  dart_gptr_t g = at(ga, me, 0);
  BENCH_CHECK(dart_gptr_getaddr(g, (void **)&la));
  g = at(gb, me, 0);
  BENCH_CHECK(dart_gptr_getaddr(g, (void **)&lb));
  double *base;
  BENCH_CHECK(MPI_Win_allocate_shared((MPI_Aint)(READ_N + B_N) * 8, 8,
                                      MPI_INFO_NULL, comm, &base, &swin));
  BENCH_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, swin));
  peer_a = malloc((size_t)nu * sizeof *peer_a);
  for (int u = 0; u < nu; u++) {
    MPI_Aint sz;
    int du;
    BENCH_CHECK(MPI_Win_shared_query(swin, u, &sz, &du, &peer_a[u]));
  }
  sa = peer_a[me];
  sb = sa + READ_N;
  memset(lb, 0, B_N * sizeof(double));
  memset(sb, 0, B_N * sizeof(double));
  fill(la, sa, READ_N);
  if (me == nu - 1) la[MIN_AT] = sa[MIN_AT] = -1.0;
  rbuf = calloc((size_t)nu * READ_N, sizeof(double));
  BENCH_CHECK(
      dart_op_create(user_sum, NULL, true, DART_TYPE_DOUBLE, false, &uop));
  BENCH_CHECK(MPI_Op_create(mpi_sum, 1, &mpi_uop));
  BENCH_CHECK(MPI_Op_create(mpi_mm, 1, &mpi_minmax));
  BENCH_CHECK(MPI_Win_sync(swin));
  BENCH_CHECK(dart_barrier(DART_TEAM_ALL));
  BENCH_CHECK(MPI_Barrier(comm));
}

static void teardown(void)
{
  BENCH_CHECK(MPI_Win_unlock_all(swin));
  BENCH_CHECK(MPI_Win_free(&swin));
  BENCH_CHECK(MPI_Op_free(&mpi_uop));
  BENCH_CHECK(MPI_Op_free(&mpi_minmax));
  BENCH_CHECK(dart_op_destroy(&uop));
  BENCH_CHECK(dart_team_memfree(ga));
  BENCH_CHECK(dart_team_memfree(gb));
  free(peer_a);
  free(rbuf);
}

int main(int argc, char **argv)
{
  int div = 1, rounds = 0; /* iteration divisor: --quick 4, --check 20 */
  const char *out = NULL;
  int one_node = bench_setup(&argc, &argv, &comm, &me, &nu);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      div = 4;
    else if (strcmp(argv[i], "--check") == 0)
      div = 20;
    else if (strncmp(argv[i], "--out=", 6) == 0)
      out = argv[i] + 6;
    else
      rounds = atoi(argv[i]);
  }
  if (rounds <= 0) rounds = div == 20 ? 1 : div == 4 ? 5 : 11;
  if (!one_node) {
    if (me == 0)
      printf("bench_dash: the units span nodes; the MPI variant needs one "
             "shared window: no rows\n");
    dart_exit();
    return 0;
  }
  FILE *csv = bench_csv_open(me, out, "bench_dash");
  if (csv != NULL)
    fprintf(csv,
            "#rounds=%d\nkernel,program,units,dart_us,mpi_us,ratio,"
            "ratio_min,ratio_max,check\n",
            rounds);
  setup();
  if (me == 0)
    printf("# DASH programs' inner loops, %d units, %d rounds%s: time per "
           "iteration (us, slowest unit)\n  %-22s %-22s %10s %10s %7s  %s\n",
           nu, rounds,
           div == 1   ? ""
           : div == 4 ? " (quick)"
                      : " (check)",
           "kernel", "program", "DART", "MPI", "DART/MPI", "[min, max]");
  for (int k = 0; k < NK; k++) run_kernel(&kernels[k], rounds, div, csv);
  if (csv != NULL) fclose(csv);
  teardown();
  dart_exit();
  return failed;
}
