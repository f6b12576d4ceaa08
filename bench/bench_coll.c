/*
 * Overhead of DART's collectives and two-sided calls over the raw MPI calls
 * on the same communicator (the team's, reached through dart__team_get).
 *
 * For every operation at 8 B, 4 KiB and 64 KiB per unit block (doubles) it
 * prints the time per call of DART in both wait modes (yield: non-blocking MPI
 * + yielding wait; block: blocking MPI call), of the blocking MPI call and of
 * the non-blocking MPI call + MPI_Wait, then the ratios: DART as configured
 * (the AUTO mode's choice for this run) over blocking MPI, next to the 5%
 * target, and each DART mode over the MPI call of the same kind. Each variant
 * runs in interleaved rounds; the reported time is the best round (per-call
 * average, maximum over units), which filters out noise from other processes on
 * a shared machine.
 *
 * With --small (issue 22 item 2, the DASH-shaped small collectives):
 * dart_allreduce, dart_bcast of 1, 4 and 16 doubles and dart_barrier only,
 * against the 10% target. Every allreduce, reduce and bcast result of DART
 * (both wait modes) is checked once per size after timing (exact sums of
 * known values); --out=FILE writes the rows as CSV (unit 0) with a check
 * column. --quick: 3 rounds of 200 calls.
 *
 * Every timed variant stops early after --budget=SECONDS (default 1) of
 * calls; the "calls" column (CSV: min_calls) is the fewest calls any
 * variant timed over all rounds, so a baseline cut short is visible (MPICH's
 * blocking collectives poll, and with more units than cores each call can
 * take a scheduler time slice).
 *
 * Usage: mpiexec -n N bench_coll [--small] [--quick] [--out=FILE]
 *                                [--budget=SECONDS] [rounds]
 *                                [iterations-at-8B]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_internal.h"
#include "team/dart_team.h"
#include <dash/dart/if/dart.h>

enum { V_DART, V_DART_BLOCK, V_MPI, V_MPI_NB, NVAR };

typedef struct {
  const char *name;
  /* runs one call of variant v with nelem doubles per block */
  int (*run)(int v, size_t nelem);
} bench_t;

static MPI_Comm comm;
static int me, nu;
static bool auto_block; /* what DART_COLL AUTO mode picks here */
static double *sbuf, *rbuf;
static size_t *cnts, *dsps;
static int *icnts, *idsps;

#define NB_WAIT(call)                                                          \
  do {                                                                         \
    MPI_Request rq_;                                                           \
    call;                                                                      \
    return MPI_Wait(&rq_, MPI_STATUS_IGNORE);                                  \
  } while (0)

static int b_barrier(int v, size_t n)
{
  (void)n;
  if (v == V_DART) return dart_barrier(DART_TEAM_ALL);
  if (v == V_MPI) return MPI_Barrier(comm);
  NB_WAIT(MPI_Ibarrier(comm, &rq_));
}

static int b_bcast(int v, size_t n)
{
  if (v == V_DART)
    return dart_bcast(rbuf, n, DART_TYPE_DOUBLE, (dart_team_unit_t){0},
                      DART_TEAM_ALL);
  if (v == V_MPI) return MPI_Bcast(rbuf, (int)n, MPI_DOUBLE, 0, comm);
  NB_WAIT(MPI_Ibcast(rbuf, (int)n, MPI_DOUBLE, 0, comm, &rq_));
}

static int b_scatter(int v, size_t n)
{
  if (v == V_DART)
    return dart_scatter(sbuf, rbuf, n, DART_TYPE_DOUBLE, (dart_team_unit_t){0},
                        DART_TEAM_ALL);
  if (v == V_MPI)
    return MPI_Scatter(sbuf, (int)n, MPI_DOUBLE, rbuf, (int)n, MPI_DOUBLE, 0,
                       comm);
  NB_WAIT(MPI_Iscatter(sbuf, (int)n, MPI_DOUBLE, rbuf, (int)n, MPI_DOUBLE, 0,
                       comm, &rq_));
}

static int b_gather(int v, size_t n)
{
  if (v == V_DART)
    return dart_gather(sbuf, rbuf, n, DART_TYPE_DOUBLE, (dart_team_unit_t){0},
                       DART_TEAM_ALL);
  if (v == V_MPI)
    return MPI_Gather(sbuf, (int)n, MPI_DOUBLE, rbuf, (int)n, MPI_DOUBLE, 0,
                      comm);
  NB_WAIT(MPI_Igather(sbuf, (int)n, MPI_DOUBLE, rbuf, (int)n, MPI_DOUBLE, 0,
                      comm, &rq_));
}

static int b_allgather(int v, size_t n)
{
  if (v == V_DART)
    return dart_allgather(sbuf, rbuf, n, DART_TYPE_DOUBLE, DART_TEAM_ALL);
  if (v == V_MPI)
    return MPI_Allgather(sbuf, (int)n, MPI_DOUBLE, rbuf, (int)n, MPI_DOUBLE,
                         comm);
  NB_WAIT(MPI_Iallgather(sbuf, (int)n, MPI_DOUBLE, rbuf, (int)n, MPI_DOUBLE,
                         comm, &rq_));
}

static int b_allgatherv(int v, size_t n)
{
  for (int u = 0; u < nu; u++) {
    cnts[u] = n, dsps[u] = (size_t)u * n;
    icnts[u] = (int)n, idsps[u] = u * (int)n;
  }
  if (v == V_DART)
    return dart_allgatherv(sbuf, n, DART_TYPE_DOUBLE, rbuf, cnts, dsps,
                           DART_TEAM_ALL);
  if (v == V_MPI)
    return MPI_Allgatherv(sbuf, (int)n, MPI_DOUBLE, rbuf, icnts, idsps,
                          MPI_DOUBLE, comm);
  NB_WAIT(MPI_Iallgatherv(sbuf, (int)n, MPI_DOUBLE, rbuf, icnts, idsps,
                          MPI_DOUBLE, comm, &rq_));
}

static int b_alltoall(int v, size_t n)
{
  if (v == V_DART)
    return dart_alltoall(sbuf, rbuf, n, DART_TYPE_DOUBLE, DART_TEAM_ALL);
  if (v == V_MPI)
    return MPI_Alltoall(sbuf, (int)n, MPI_DOUBLE, rbuf, (int)n, MPI_DOUBLE,
                        comm);
  NB_WAIT(MPI_Ialltoall(sbuf, (int)n, MPI_DOUBLE, rbuf, (int)n, MPI_DOUBLE,
                        comm, &rq_));
}

static int b_allreduce(int v, size_t n)
{
  if (v == V_DART)
    return dart_allreduce(sbuf, rbuf, n, DART_TYPE_DOUBLE, DART_OP_SUM,
                          DART_TEAM_ALL);
  if (v == V_MPI)
    return MPI_Allreduce(sbuf, rbuf, (int)n, MPI_DOUBLE, MPI_SUM, comm);
  NB_WAIT(MPI_Iallreduce(sbuf, rbuf, (int)n, MPI_DOUBLE, MPI_SUM, comm, &rq_));
}

static int b_reduce(int v, size_t n)
{
  if (v == V_DART)
    return dart_reduce(sbuf, rbuf, n, DART_TYPE_DOUBLE, DART_OP_SUM,
                       (dart_team_unit_t){0}, DART_TEAM_ALL);
  if (v == V_MPI)
    return MPI_Reduce(sbuf, rbuf, (int)n, MPI_DOUBLE, MPI_SUM, 0, comm);
  NB_WAIT(MPI_Ireduce(sbuf, rbuf, (int)n, MPI_DOUBLE, MPI_SUM, 0, comm, &rq_));
}

/* Ring exchange; DART's runs on its private world duplicate, the raw one
 * on the same communicator. */
static int b_sendrecv(int v, size_t n)
{
  int next = (me + 1) % nu, prev = (me + nu - 1) % nu;
  if (v == V_DART)
    return dart_sendrecv(sbuf, n, DART_TYPE_DOUBLE, 3,
                         (dart_global_unit_t){next}, rbuf, n, DART_TYPE_DOUBLE,
                         3, (dart_global_unit_t){prev});
  if (v == V_MPI)
    return MPI_Sendrecv(sbuf, (int)n, MPI_DOUBLE, next, 4, rbuf, (int)n,
                        MPI_DOUBLE, prev, 4, comm, MPI_STATUS_IGNORE);
  MPI_Request rq[2];
  MPI_Status st[2];
  MPI_Irecv(rbuf, (int)n, MPI_DOUBLE, prev, 5, comm, &rq[0]);
  MPI_Isend(sbuf, (int)n, MPI_DOUBLE, next, 5, comm, &rq[1]);
  return MPI_Waitall(2, rq, st);
}

static FILE *csv;
static double target = 1.05;

/* Runs DART's op once in each wait mode on known data and compares the
 * result exactly: allreduce/reduce of me + 1 + i, bcast from unit 0.
 * Returns "ok", "FAILED", or "-" for an operation without a check. */
static const char *check_op(const bench_t *b, size_t n)
{
  bool red = b->run == b_allreduce || b->run == b_reduce;
  if (!red && b->run != b_bcast) return "-";
  int ok = 1;
  for (int mode = 0; mode < 2; mode++) {
    dart__coll_wait_mode = mode ? DART__COLL_WAIT_BLOCK : DART__COLL_WAIT_YIELD;
    for (size_t i = 0; i < n; i++) {
      sbuf[i] = me + 1 + (double)i;
      rbuf[i] = b->run == b_bcast && me == 0 ? 7.0 + (double)i : -1.0;
    }
    if (b->run(V_DART, n) != 0) ok = 0;
    bool has = b->run != b_reduce || me == 0;
    for (size_t i = 0; i < n && has; i++) {
      double want =
          red ? nu * (nu + 1) / 2.0 + (double)nu * (double)i : 7.0 + (double)i;
      if (rbuf[i] != want) {
        fprintf(stderr,
                "bench_coll: FAILED %s (%s mode) unit %d element %zu: "
                "%g, expected %g\n",
                b->name, mode ? "block" : "yield", me, i, rbuf[i], want);
        ok = 0;
        break;
      }
    }
  }
  dart__coll_wait_mode = DART__COLL_WAIT_AUTO;
  int all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
  return all ? "ok" : "FAILED";
}

/* Seconds one timed variant may take before it stops early (--budget=). */
static double budget = 1.0;

/*
 * Average time per call, maximum over all units, of up to `iters` calls.
 * The calls run in chunks of doubling length; after each chunk the units
 * agree (one MPI_Allreduce, not timed) whether to go on, so a variant whose
 * calls are pathologically slow here (MPICH's polling blocking collectives
 * when units outnumber cores take milliseconds each) stops after about
 * `budget` seconds instead of running for minutes. Sets *done to the
 * number of calls timed.
 */
static double time_variant(const bench_t *b, int v, size_t n, int iters,
                           int *done)
{
  dart__coll_wait_mode =
      v == V_DART_BLOCK ? DART__COLL_WAIT_BLOCK : DART__COLL_WAIT_YIELD;
  if (v == V_DART_BLOCK) v = V_DART;
  MPI_Barrier(comm);
  double spent = 0.0;
  int count = 0, chunk = 1, more = 1;
  while (more) {
    if (chunk > iters - count) chunk = iters - count;
    double t0 = MPI_Wtime();
    for (int i = 0; i < chunk; i++) {
      if (b->run(v, n) != 0) {
        fprintf(stderr, "%s variant %d failed\n", b->name, v);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    spent += MPI_Wtime() - t0;
    count += chunk;
    chunk *= 2;
    int mine = count < iters && spent < budget, all;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LOR, comm);
    more = all;
  }
  double t = spent / count, tmax;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  if (done != NULL) *done = count;
  return tmax;
}

static int bench_one(const bench_t *b, size_t n, int rounds, int iters)
{
  double best[NVAR];
  int calls[NVAR];
  for (int v = 0; v < NVAR; v++) {
    time_variant(b, v, n, iters / 10 + 1, NULL); /* warm-up */
    best[v] = 1e30;
    calls[v] = 0;
  }
  for (int r = 0; r < rounds; r++)
    for (int v = 0; v < NVAR; v++) {
      int done;
      double t = time_variant(b, v, n, iters, &done);
      if (t < best[v]) best[v] = t;
      calls[v] += done;
    }
  int fewest = calls[0];
  for (int v = 1; v < NVAR; v++)
    if (calls[v] < fewest) fewest = calls[v];
  const char *check = check_op(b, n);
  if (b->run == b_barrier) n = 0;
  if (me == 0) {
    double dart = auto_block ? best[V_DART_BLOCK] : best[V_DART];
    double r = dart / best[V_MPI];
    printf("%-11s %6zu B %8.2f %8.2f %8.2f %8.2f %7.3f %-4s %7.3f %7.3f %-6s "
           "%d\n",
           b->name, n * sizeof(double), best[V_DART] * 1e6,
           best[V_DART_BLOCK] * 1e6, best[V_MPI] * 1e6, best[V_MPI_NB] * 1e6, r,
           r <= target ? "ok" : "OVER", best[V_DART] / best[V_MPI_NB],
           best[V_DART_BLOCK] / best[V_MPI], check, fewest);
    if (csv != NULL)
      fprintf(csv, "%s,%zu,%d,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4g,%s,%d\n",
              b->name, n, nu, auto_block ? "block" : "yield", dart * 1e6,
              best[V_DART] * 1e6, best[V_DART_BLOCK] * 1e6, best[V_MPI] * 1e6,
              best[V_MPI_NB] * 1e6, r, target, check, fewest);
  }
  return strcmp(check, "FAILED") != 0;
}

int main(int argc, char **argv)
{
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  int rounds = 5, iters_small = 2000, pos = 0;
  bool small = false, quick = false;
  const char *out = NULL;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--small") == 0)
      small = true;
    else if (strcmp(argv[a], "--quick") == 0)
      quick = true;
    else if (strncmp(argv[a], "--out=", 6) == 0)
      out = argv[a] + 6;
    else if (strncmp(argv[a], "--budget=", 9) == 0)
      budget = atof(argv[a] + 9);
    else if (pos++ == 0)
      rounds = atoi(argv[a]);
    else
      iters_small = atoi(argv[a]);
  }
  if (quick && pos < 1) rounds = 3;
  if (quick && pos < 2) iters_small = 200;
  if (rounds < 1) rounds = 1;
  if (iters_small < 1) iters_small = 1;
  if (small) target = 1.10;
  comm = dart__team_get(DART_TEAM_ALL)->comm;
  auto_block = dart__coll_blocking();
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &nu);
  if (me == 0 && out != NULL) {
    if ((csv = fopen(out, "w")) == NULL) {
      fprintf(stderr, "bench_coll: cannot write %s\n", out);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const char *cw = getenv("DART_COLL_WAIT");
    fprintf(csv,
            "#units=%d\n#trials=%d\n#iterations=%d\n#coll_wait=%s\n"
            "op,elements,units,auto_mode,dart_us,dart_yield_us,dart_block_us,"
            "mpi_us,mpi_nb_us,ratio,target,check,min_calls\n",
            nu, rounds, iters_small, cw ? cw : "(unset: auto)");
  }
  size_t maxn = 64 * 1024 / sizeof(double);
  sbuf = calloc(maxn * (size_t)nu, sizeof(double));
  rbuf = calloc(maxn * (size_t)nu, sizeof(double));
  cnts = malloc(sizeof(size_t) * 2 * nu);
  dsps = cnts + nu;
  icnts = malloc(sizeof(int) * 2 * nu);
  idsps = icnts + nu;
  static const bench_t benches[] = {
      {"bcast", b_bcast},           {"scatter", b_scatter},
      {"gather", b_gather},         {"allgather", b_allgather},
      {"allgatherv", b_allgatherv}, {"alltoall", b_alltoall},
      {"allreduce", b_allreduce},   {"reduce", b_reduce},
      {"sendrecv", b_sendrecv},     {"barrier", b_barrier}};
  static const bench_t small_benches[] = {
      {"allreduce", b_allreduce}, {"bcast", b_bcast}, {"barrier", b_barrier}};
  if (me == 0) {
    printf("# bench_coll: %d units, best of %d rounds, times in us per call\n"
           "# dart_y: DART yield mode, dart_b: DART block mode, mpi: blocking "
           "MPI, mpi_nb: MPI_I* + MPI_Wait\n"
           "# ratio: DART as auto-configured here (%s) / mpi, target <= %.2f; "
           "y/nb = dart_y / mpi_nb; b/mpi = dart_b / mpi\n",
           nu, rounds, auto_block ? "block" : "yield", target);
    printf("%-11s %8s %8s %8s %8s %8s %7s %-4s %7s %7s %-6s %s\n", "op", "size",
           "dart_y", "dart_b", "mpi", "mpi_nb", "ratio", "tgt", "y/nb", "b/mpi",
           "check", "calls");
  }
  int ok = 1;
  if (small) {
    static const size_t sz[3] = {1, 4, 16};
    for (int k = 0; k < 3; k++)
      for (int s = 0; s < 3; s++) {
        if (k == 2 && s > 0) break; /* barrier: no size */
        ok &= bench_one(&small_benches[k], sz[s], rounds, iters_small);
      }
  } else {
    /* 8 B, 4 KiB (the most DART_TEAM_ALL's allreduce and allgather move
     * through shared memory on one node, docs/collectives.md), 64 KiB */
    size_t sizes[3] = {1, 4096 / sizeof(double), maxn};
    static const int divisor[3] = {1, 4, 20};
    for (int s = 0; s < 3; s++)
      for (size_t k = 0; k < sizeof benches / sizeof benches[0]; k++) {
        if (s > 0 && benches[k].run == b_barrier) continue;
        int iters = iters_small / divisor[s] + (s > 0);
        ok &= bench_one(&benches[k], sizes[s], rounds, iters);
      }
  }
  if (csv != NULL) fclose(csv);
  free(sbuf);
  free(rbuf);
  free(cnts);
  free(icnts);
  dart_exit();
  return ok ? 0 : 1;
}
