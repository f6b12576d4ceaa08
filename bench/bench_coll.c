/*
 * Overhead of DART's collectives and two-sided calls over the raw MPI calls
 * on the same communicator (the team's, reached through dart__team_get).
 *
 * For every operation at 8 B and 64 KiB per unit block (doubles) it prints
 * the time per call of DART in both wait modes (yield: non-blocking MPI +
 * yielding wait; block: blocking MPI call), of the blocking MPI call and of
 * the non-blocking MPI call + MPI_Wait, then the ratios: DART as configured
 * (the AUTO mode's choice for this run) over blocking MPI, next to the 5%
 * target, and each DART mode over the MPI call of the same kind. Each variant
 * runs in interleaved rounds; the reported time is the best round (per-call
 * average, maximum over units), which filters out noise from other processes on
 * a shared machine.
 *
 * Usage: mpiexec -n N bench_coll [rounds] [iterations-at-8B]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll_internal.h"
#include "dart_team.h"
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

/* Average time per call of `iters` calls, maximum over all units. */
static double time_variant(const bench_t *b, int v, size_t n, int iters)
{
  dart__coll_wait_mode =
      v == V_DART_BLOCK ? DART__COLL_WAIT_BLOCK : DART__COLL_WAIT_YIELD;
  if (v == V_DART_BLOCK) v = V_DART;
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (b->run(v, n) != 0) {
      fprintf(stderr, "%s variant %d failed\n", b->name, v);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  double t = (MPI_Wtime() - t0) / iters, tmax;
  MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm);
  return tmax;
}

static void bench_one(const bench_t *b, size_t n, int rounds, int iters)
{
  double best[NVAR];
  for (int v = 0; v < NVAR; v++) {
    time_variant(b, v, n, iters / 10 + 1); /* warm-up */
    best[v] = 1e30;
  }
  for (int r = 0; r < rounds; r++)
    for (int v = 0; v < NVAR; v++) {
      double t = time_variant(b, v, n, iters);
      if (t < best[v]) best[v] = t;
    }
  if (me == 0) {
    double dart = auto_block ? best[V_DART_BLOCK] : best[V_DART];
    double r = dart / best[V_MPI];
    printf("%-11s %6zu B %8.2f %8.2f %8.2f %8.2f %7.3f %-4s %7.3f %7.3f\n",
           b->name, n * sizeof(double), best[V_DART] * 1e6,
           best[V_DART_BLOCK] * 1e6, best[V_MPI] * 1e6, best[V_MPI_NB] * 1e6, r,
           r <= 1.05 ? "ok" : "OVER", best[V_DART] / best[V_MPI_NB],
           best[V_DART_BLOCK] / best[V_MPI]);
  }
}

int main(int argc, char **argv)
{
  int rounds = argc > 1 ? atoi(argv[1]) : 5;
  int iters_small = argc > 2 ? atoi(argv[2]) : 2000;
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  comm = dart__team_get(DART_TEAM_ALL)->comm;
  auto_block = dart__coll_blocking();
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &nu);
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
      {"sendrecv", b_sendrecv}};
  if (me == 0) {
    printf("# bench_coll: %d units, best of %d rounds, times in us per call\n"
           "# dart_y: DART yield mode, dart_b: DART block mode, mpi: blocking "
           "MPI, mpi_nb: MPI_I* + MPI_Wait\n"
           "# ratio: DART as auto-configured here (%s) / mpi, target <= 1.05; "
           "y/nb = dart_y / mpi_nb; b/mpi = dart_b / mpi\n",
           nu, rounds, auto_block ? "block" : "yield");
    printf("%-11s %8s %8s %8s %8s %8s %7s %-4s %7s %7s\n", "op", "size",
           "dart_y", "dart_b", "mpi", "mpi_nb", "ratio", "5%", "y/nb", "b/mpi");
  }
  size_t sizes[2] = {1, maxn};
  for (int s = 0; s < 2; s++)
    for (size_t k = 0; k < sizeof benches / sizeof benches[0]; k++) {
      int iters = s == 0 ? iters_small : iters_small / 20 + 1;
      bench_one(&benches[k], sizes[s], rounds, iters);
    }
  free(sbuf);
  free(rbuf);
  free(cnts);
  free(icnts);
  dart_exit();
  return 0;
}
