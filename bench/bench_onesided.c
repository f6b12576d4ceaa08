/*
 * One-sided communication: DART against the best raw alternative on the
 * same processes, measured in the same run. Unit 0 accesses unit 1's
 * memory; every ratio is printed next to its target.
 *
 * Units on one node (run without DART_SIM_NODE_SIZE):
 *   blocking 8-byte put / get     vs memcpy + fence via an MPI shared window
 *   burst of non-blocking puts    vs the same memcpy burst + one fence
 *     + flush
 *   8-byte fetch_and_op (SUM)     vs a CPU atomic on the shared window
 *   bandwidth of blocking put/get vs memcpy + fence, 64 KiB .. 4 MiB
 * With DART_SIM_NODE_SIZE=1 (MPI RMA path):
 *   blocking put / get            vs MPI_Put/Get + MPI_Win_flush
 *   non-blocking put initiation   vs MPI_Put
 *   fetch_and_op                  vs MPI_Fetch_and_op + MPI_Win_flush
 * on the very window DART uses there (MPI_Alloc_mem + MPI_Win_create over
 * the team), timed in alternating batches (best of 100 each, alternating
 * order). Times on one node are the best of 7 batches (machines may be shared).
 *
 * --ab: the cost of the statistics hooks instead (docs/profiling.md):
 * the same operations, timed in alternating batches with DART_STATS
 * counting and not counting (the flag the hooks test, switched between
 * batches in this one process); per round the best of 3 batches of each,
 * then the median and range over the rounds of the ratio on / off. A
 * library built with -DDART_OBSERVE_HOOKS=OFF says so ("hooks": 0), and
 * both of its columns are then that build's times.
 *
 * usage: bench_onesided [iterations] | --ab [--rounds=N] [--quick]
 *                                          [--out=FILE.csv]   (2 units)
 */
#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "dart_observe.h"         /* the statistics flag, for --ab */
#include "globmem/dart_segment.h" /* the segment's window, for the raw baseline */

static int me;
static int iters;
static size_t volatile rt_size = 8; /* runtime size: no inlined copies */

/* Runs body iters times on unit 0 in 7 batches; best time per op (ns).
 * Unit 1 waits in the barriers. */
#define TIME_NS(result, per_batch, body)                                       \
  do {                                                                         \
    double best_ = 1e30;                                                       \
    for (int b_ = 0; b_ < 7; b_++) {                                           \
      MPI_Barrier(MPI_COMM_WORLD);                                             \
      if (me == 0) {                                                           \
        double t0_ = MPI_Wtime();                                              \
        for (int i_ = 0; i_ < (per_batch); i_++) {                             \
          body;                                                                \
        }                                                                      \
        double dt_ = (MPI_Wtime() - t0_) / (per_batch)*1e9;                    \
        if (dt_ < best_) best_ = dt_;                                          \
      }                                                                        \
    }                                                                          \
    MPI_Bcast(&best_, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);                       \
    result = best_;                                                            \
  } while (0)

static void row(const char *what, double dart, double base, const char *unit,
                double ratio, const char *target, int ok)
{
  if (me == 0)
    printf("  %-34s %10.1f %10.1f %-5s %7.3f  %-8s %s\n", what, dart, base,
           unit, ratio, target, ok ? "ok" : "MISSED");
}

static void header(const char *title)
{
  if (me == 0)
    printf("# %s\n  %-34s %10s %10s %-5s %7s  %-8s\n", title, "operation",
           "DART", "baseline", "unit", "ratio", "target");
}

/* ---- units on one node ------------------------------------------------- */

static void bench_shared(dart_gptr_t g, size_t bytes)
{
  MPI_Win win;
  char *mine, *peer;
  MPI_Aint sz;
  int du;
  BENCH_CHECK(MPI_Win_allocate_shared((MPI_Aint)bytes, 1, MPI_INFO_NULL,
                                      MPI_COMM_WORLD, &mine, &win));
  BENCH_CHECK(MPI_Win_shared_query(win, 1, &sz, &du, &peer));
  dart_gptr_t t = g;
  t.unitid = 1;
  long v = 42, r = 0;
  double d, b;
  int n = iters;
  header("2 units on one node: load/store paths");
  TIME_NS(d, n, dart_put_blocking(t, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  TIME_NS(b, n, memcpy(peer, &v, rt_size); BENCH_FENCE());
  row("blocking put 8 B", d, b, "ns", d / b, "<= 2", d / b <= 2);
  TIME_NS(d, n, dart_get_blocking(&r, t, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  TIME_NS(b, n, BENCH_FENCE(); memcpy(&r, peer, rt_size));
  row("blocking get 8 B", d, b, "ns", d / b, "<= 2", d / b <= 2);

  enum { BURST = 1000 };
  TIME_NS(d, n / BURST + 1, {
    for (int k = 0; k < BURST; k++) {
      t.addr_or_offs.offset = (uint64_t)k * 8;
      dart_put(t, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG);
    }
    dart_flush(t);
  });
  TIME_NS(b, n / BURST + 1, {
    for (int k = 0; k < BURST; k++) memcpy(peer + (size_t)k * 8, &v, rt_size);
    BENCH_FENCE();
  });
  row("1000 x put 8 B + flush", d / BURST, b / BURST, "ns/op", d / b, "<= 2",
      d / b <= 2);
  t.addr_or_offs.offset = 0;

  long one = 1, old;
  TIME_NS(d, n, dart_fetch_and_op(t, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
  TIME_NS(b, n,
          old =
              __atomic_fetch_add((long *)(void *)peer, one, __ATOMIC_SEQ_CST));
  row("fetch_and_op SUM 8 B", d, b, "ns", d / b, "<= 2", d / b <= 2);
  (void)old;

  for (size_t s = 64 << 10; s <= bytes && s <= (4 << 20); s *= 4) {
    char *src = malloc(s);
    memset(src, 1, s);
    int m = (int)(((size_t)64 << 20) / s) + 2; /* ~64 MiB per batch */
    TIME_NS(d, m, dart_put_blocking(t, src, s, DART_TYPE_BYTE, DART_TYPE_BYTE));
    TIME_NS(b, m, memcpy(peer, src, s); BENCH_FENCE());
    char what[64];
    snprintf(what, sizeof what, "put bandwidth %zu KiB", s >> 10);
    double gd = (double)s / d, gb = (double)s / b; /* bytes/ns = GB/s */
    row(what, gd, gb, "GB/s", gd / gb, ">= 0.9", gd / gb >= 0.9);
    TIME_NS(d, m, dart_get_blocking(src, t, s, DART_TYPE_BYTE, DART_TYPE_BYTE));
    TIME_NS(b, m, BENCH_FENCE(); memcpy(src, peer, s));
    snprintf(what, sizeof what, "get bandwidth %zu KiB", s >> 10);
    gd = (double)s / d;
    gb = (double)s / b;
    row(what, gd, gb, "GB/s", gd / gb, ">= 0.9", gd / gb >= 0.9);
    free(src);
  }
  MPI_Win_free(&win);
}

/* ---- MPI RMA path (DART_SIM_NODE_SIZE=1) ------------------------------- */

/*
 * MPI RMA latencies vary by tens of percent between runs (and MPICH's
 * MPI_Put initiation by 2x): DART and raw MPI are timed in alternating
 * batches, ROUNDS times, and the best batch of each is compared.
 */
enum { ROUNDS = 100, BATCH = 100, BURST = 50 };

typedef struct {
  dart_gptr_t t;
  MPI_Win win;
  long v, r, one, old;
} rma_ctx_t;

/* One timed batch of an op kind; which: 0 = DART, 1 = raw MPI. Returns ns
 * per op on unit 0. Non-blocking puts are completed after the clock. */
static double rma_batch(rma_ctx_t *c, int kind, int which)
{
  double t0 = MPI_Wtime();
  int n = kind == 2 ? BURST : BATCH;
  for (int k = 0; k < n; k++) {
    if (which == 0) {
      switch (kind) {
      case 0:
        dart_put_blocking(c->t, &c->v, 1, DART_TYPE_LONG, DART_TYPE_LONG);
        break;
      case 1:
        dart_get_blocking(&c->r, c->t, 1, DART_TYPE_LONG, DART_TYPE_LONG);
        break;
      case 2:
        c->t.addr_or_offs.offset = (uint64_t)k * 8;
        dart_put(c->t, &c->v, 1, DART_TYPE_LONG, DART_TYPE_LONG);
        break;
      default:
        dart_fetch_and_op(c->t, &c->one, &c->old, DART_TYPE_LONG, DART_OP_SUM);
        dart_flush(c->t);
      }
    } else {
      switch (kind) {
      case 0:
        MPI_Put(&c->v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, c->win);
        MPI_Win_flush(1, c->win);
        break;
      case 1:
        MPI_Get(&c->r, 1, MPI_LONG, 1, 0, 1, MPI_LONG, c->win);
        MPI_Win_flush(1, c->win);
        break;
      case 2:
        MPI_Put(&c->v, 1, MPI_LONG, 1, (MPI_Aint)k * 8, 1, MPI_LONG, c->win);
        break;
      default:
        MPI_Fetch_and_op(&c->one, &c->old, MPI_LONG, 1, 8, MPI_SUM, c->win);
        MPI_Win_flush(1, c->win);
      }
    }
  }
  double dt = (MPI_Wtime() - t0) / n * 1e9;
  if (kind == 2) {
    if (which == 0)
      dart_flush(c->t);
    else
      MPI_Win_flush(1, c->win);
    c->t.addr_or_offs.offset = 0;
  }
  return dt;
}

static void bench_rma(dart_gptr_t g)
{
  rma_ctx_t c = {.t = g, .v = 42, .one = 1};
  c.t.unitid = 1;
  /* The baseline runs on DART's own window of the segment (MPI_Alloc_mem +
   * MPI_Win_create over the team): two windows of the same kind differ by
   * more than DART's overhead from run to run. */
  dart__target_t tgt = {0};
  BENCH_CHECK(dart__segment_resolve("bench_onesided", c.t, 8, &tgt));
  c.win = tgt.seg->win;
  static const char *names[] = {"blocking put 8 B", "blocking get 8 B",
                                "put 8 B initiation",
                                "fetch_and_op SUM 8 B + flush"};
  static const double limit[] = {0.05, 0.05, 0.10, -1};
  header("MPI RMA path (DART_SIM_NODE_SIZE=1), raw MPI on DART's window; "
         "ratio = overhead");
  for (int kind = 0; kind < 4; kind++) {
    double best[2] = {1e30, 1e30};
    for (int round = 0; round < ROUNDS; round++)
      for (int i = 0; i < 2; i++) {
        int which = (round + i) % 2; /* alternate who goes first */
        MPI_Barrier(MPI_COMM_WORLD);
        if (me != 0) continue;
        double x = rma_batch(&c, kind, which);
        if (x < best[which]) best[which] = x;
      }
    MPI_Bcast(best, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    double over = best[0] / best[1] - 1;
    char target[16];
    if (limit[kind] >= 0)
      snprintf(target, sizeof target, "<= %.2f", limit[kind]);
    else
      snprintf(target, sizeof target, "(info)");
    row(names[kind], best[0], best[1], "ns", over, target,
        limit[kind] < 0 || over <= limit[kind]);
  }
}

/* ---- statistics hooks: same-run A/B (--ab) ------------------------------ */

typedef struct {
  dart_gptr_t t;
  long v, r, one, old;
  int rma; /* DART_SIM_NODE_SIZE=1 */
} ab_ctx_t;

enum { AB_NOPS = 4, AB_BURST = 1000 };
static const char *const ab_names[2][AB_NOPS] = {
    {"blocking put 8 B", "blocking get 8 B", "fetch_and_op SUM 8 B",
     "1000 x put 8 B + flush"},
    {"blocking put 8 B", "blocking get 8 B", "fetch_and_op SUM 8 B + flush",
     "put 8 B initiation"}};

/* n operations of kind op; ns per operation. The MPI path's non-blocking
 * puts are completed after the clock (initiation only). */
static double ab_batch(ab_ctx_t *c, int op, int n)
{
  double t0 = MPI_Wtime();
  for (int k = 0; k < n; k++) {
    switch (op) {
    case 0:
      dart_put_blocking(c->t, &c->v, 1, DART_TYPE_LONG, DART_TYPE_LONG);
      break;
    case 1:
      dart_get_blocking(&c->r, c->t, 1, DART_TYPE_LONG, DART_TYPE_LONG);
      break;
    case 2:
      dart_fetch_and_op(c->t, &c->one, &c->old, DART_TYPE_LONG, DART_OP_SUM);
      if (c->rma) dart_flush(c->t);
      break;
    default:
      c->t.addr_or_offs.offset = (uint64_t)(k % AB_BURST) * 8;
      dart_put(c->t, &c->v, 1, DART_TYPE_LONG, DART_TYPE_LONG);
      if (!c->rma && k % AB_BURST == AB_BURST - 1) dart_flush(c->t);
    }
  }
  double dt = (MPI_Wtime() - t0) / n * 1e9;
  if (op == 3) {
    if (c->rma) dart_flush(c->t);
    c->t.addr_or_offs.offset = 0;
  }
  return dt;
}

/* Per round: 3 x (off, on) in alternating order, best of each state. */
static void ab_round(ab_ctx_t *c, int op, int n, int round, double best[2])
{
  best[0] = best[1] = 1e30;
  for (int rep = 0; rep < 3; rep++)
    for (int i = 0; i < 2; i++) {
      int on = (round + rep + i) % 2;
      dart__obs.on = on;
      double x = ab_batch(c, op, n);
      if (x < best[on]) best[on] = x;
    }
}

static void bench_ab(dart_gptr_t g, int rma, int rounds, const char *out)
{
  ab_ctx_t c = {.t = g, .v = 42, .one = 1, .rma = rma};
  c.t.unitid = 1;
  int was_on = dart__obs.on;
  FILE *f = bench_csv_open(me, out, "bench_onesided");
  if (f != NULL)
    fprintf(f,
            "#hooks=%d\n#rounds=%d\npath,op,off_ns,on_ns,ratio,ratio_min,"
            "ratio_max\n",
            dart__obs_hooks, rounds);
  if (me == 0)
    printf("# statistics hooks (%s), %d rounds%s\n  %-30s %8s %8s %7s  %s\n",
           rma ? "MPI RMA path, DART_SIM_NODE_SIZE=1" : "units on one node",
           rounds, dart__obs_hooks ? "" : ", HOOKS COMPILED OUT", "operation",
           "off ns", "on ns", "on/off", "[min, max]");
  double *t[2], *ratio;
  t[0] = malloc(3 * (size_t)rounds * sizeof(double));
  t[1] = t[0] + rounds;
  ratio = t[1] + rounds;
  for (int op = 0; op < AB_NOPS; op++) {
    int n = rma ? (op == 3 ? 50 : 100) : (op == 3 ? AB_BURST : 2000);
    for (int r = 0; r < rounds; r++) {
      MPI_Barrier(MPI_COMM_WORLD);
      if (me != 0) continue;
      double best[2];
      ab_round(&c, op, n, r, best);
      t[0][r] = best[0];
      t[1][r] = best[1];
      ratio[r] = best[1] / best[0];
    }
    if (me != 0) continue;
    double m0 = bench_median(t[0], rounds), m1 = bench_median(t[1], rounds);
    double mr =
        bench_median(ratio, rounds); /* sorts ratio: [0] min, [n-1] max */
    printf("  %-30s %8.2f %8.2f %7.3f  [%.3f, %.3f]\n", ab_names[rma][op], m0,
           m1, mr, ratio[0], ratio[rounds - 1]);
    if (f != NULL)
      fprintf(f, "%s,%s,%.3f,%.3f,%.4f,%.4f,%.4f\n", rma ? "rma" : "node",
              ab_names[rma][op], m0, m1, mr, ratio[0], ratio[rounds - 1]);
  }
  free(t[0]);
  if (f != NULL) fclose(f);
  dart__obs.on = was_on;
}

int main(int argc, char **argv)
{
  MPI_Comm world;
  int n;
  int one_node = bench_setup(&argc, &argv, &world, &me, &n);
  int ab = 0, rounds = 0;
  const char *out = NULL;
  iters = 200000;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--ab") == 0)
      ab = 1;
    else if (strcmp(argv[i], "--quick") == 0)
      rounds = rounds ? rounds : 15;
    else if (strncmp(argv[i], "--rounds=", 9) == 0)
      rounds = atoi(argv[i] + 9);
    else if (strncmp(argv[i], "--out=", 6) == 0)
      out = argv[i] + 6;
    else
      iters = atoi(argv[i]);
  }
  if (rounds <= 0) rounds = 101;
  if (n != 2) {
    if (me == 0) printf("bench_onesided: run with 2 units\n");
    dart_exit();
    return 0;
  }
  size_t bytes = 16 << 20;
  dart_gptr_t g;
  BENCH_CHECK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &g));
  char *own;
  dart_gptr_t mine = g;
  mine.unitid = me;
  BENCH_CHECK(dart_gptr_getaddr(mine, (void **)&own));
  memset(own, 0, bytes); /* touch the pages before timing */
  const char *sim = getenv("DART_SIM_NODE_SIZE");
  int rma = sim != NULL && atoi(sim) == 1;
  if (ab && (rma || one_node))
    bench_ab(g, rma, rounds, out);
  else if (rma)
    bench_rma(g);
  else if (one_node)
    bench_shared(g, bytes);
  else if (me == 0)
    printf("bench_onesided: units are on different nodes\n");
  MPI_Comm_free(&world);
  BENCH_CHECK(dart_team_memfree(g));
  BENCH_CHECK(dart_exit());
  return 0;
}
