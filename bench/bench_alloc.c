/*
 * Collective allocation cost: dart_team_memalloc_aligned + dart_team_memfree
 * on DART_TEAM_ALL at 64 B, 1 KiB, 64 KiB and 1 MiB per unit, next to one
 * 8-byte MPI_Allreduce on the team's communicator (the cost of the
 * smallest collective) and to the raw MPI_Win_allocate + MPI_Win_free of
 * the same size, all measured in the same run, trial by trial
 * interleaved. Also dart_team_memregister + dart_team_memderegister of a
 * buffer of the same size (deregistration is local, collection happens at
 * the next registration, so the loop measures the whole cycle), and the
 * cost of allocations while many are live: `live` allocations of 64 B are
 * made (time per allocation), then 1 KiB alloc + free is timed with all of
 * them live, then all are freed.
 *
 * With DART_TEST_APPINIT=1 the program initializes MPI itself before
 * dart_init (tests/common/appinit.c), as DASH does; run with
 * DART_SIM_NODE_SIZE=1 for the multi-node window scheme.
 *
 * Times: minimum over trials of the slowest unit's mean per operation.
 *
 * usage: bench_alloc [--quick] [--out=FILE.csv] [--live=N] [iterations]
 */
#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "team/dart_team.h"

static int me, nunits;
static MPI_Comm comm; /* DART_TEAM_ALL's communicator */

/* Slowest unit's mean time per iteration in microseconds. */
static double finish(double t0, int iters)
{
  double dt = (MPI_Wtime() - t0) / iters * 1e6, max;
  MPI_Allreduce(&dt, &max, 1, MPI_DOUBLE, MPI_MAX, comm);
  return max;
}

enum { V_DART, V_ALLREDUCE, V_WIN, V_REG, NV };

static double run(int v, size_t bytes, char *buf, int iters)
{
  dart_gptr_t g;
  MPI_Win win;
  void *base;
  long long x = me, y;
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    switch (v) {
    case V_DART:
      BENCH_CHECK(
          dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &g));
      BENCH_CHECK(dart_team_memfree(g));
      break;
    case V_ALLREDUCE:
      BENCH_CHECK(MPI_Allreduce(&x, &y, 1, MPI_LONG_LONG, MPI_SUM, comm));
      break;
    case V_WIN:
      BENCH_CHECK(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, comm,
                                   &base, &win));
      BENCH_CHECK(MPI_Win_free(&win));
      break;
    default:
      BENCH_CHECK(
          dart_team_memregister(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, buf, &g));
      BENCH_CHECK(dart_team_memderegister(g));
    }
  }
  return finish(t0, iters);
}

/* Many live allocations: time per allocation while making them, then a
 * 1 KiB alloc + free with all of them live. */
static void live(FILE *out, int n, int iters)
{
  dart_gptr_t *g = malloc((size_t)n * sizeof *g);
  BENCH_CHECK(g == NULL);
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  for (int i = 0; i < n; i++)
    BENCH_CHECK(
        dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_BYTE, &g[i]));
  double per = finish(t0, n);
  double cyc = 1e30, ar = 1e30;
  for (int t = 0; t < 5; t++) {
    double c = run(V_DART, 1024, NULL, iters),
           a = run(V_ALLREDUCE, 0, 0, iters);
    if (c < cyc) cyc = c;
    if (a < ar) ar = a;
  }
  for (int i = 0; i < n; i++) BENCH_CHECK(dart_team_memfree(g[i]));
  free(g);
  if (me == 0) {
    printf("  %d live allocations: %.1f us each; 1 KiB alloc+free with them "
           "live %.1f us = %.2f x allreduce\n",
           n, per, cyc, cyc / ar);
    if (out)
      fprintf(out,
              "live_alloc,%d,%.3f,%.3f,,%.3f,\nlive_cycle,1024,%.3f,%.3f,,"
              "%.3f,\n",
              n, per, ar, per / ar, cyc, ar, cyc / ar);
  }
}

int main(int argc, char **argv)
{
  MPI_Comm world;
  bench_setup(&argc, &argv, &world, &me, &nunits);
  MPI_Comm_free(&world);
  comm = dart__team_get(DART_TEAM_ALL)->comm;
  int quick = 0, iters = 200, nlive = 10000;
  const char *outname = NULL;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--quick") == 0)
      quick = 1;
    else if (strncmp(argv[a], "--out=", 6) == 0)
      outname = argv[a] + 6;
    else if (strncmp(argv[a], "--live=", 7) == 0)
      nlive = atoi(argv[a] + 7);
    else
      iters = atoi(argv[a]);
  }
  if (quick) iters = iters < 50 ? iters : 50;
  int trials = quick ? 5 : 9;
  const char *sim = getenv("DART_SIM_NODE_SIZE");
  const char *app = getenv("DART_TEST_APPINIT");
  int appinit = app != NULL && app[0] != '\0' && strcmp(app, "0") != 0;
  FILE *out = NULL;
  if (me == 0 && outname != NULL) {
    out = fopen(outname, "w");
    BENCH_CHECK(out == NULL);
    fprintf(out, "#units=%d\n#init=%s\n#sim_node_size=%s\n#iterations=%d\n",
            nunits, appinit ? "application" : "dart", sim ? sim : "0", iters);
    fprintf(out, "op,bytes,dart_us,allreduce_us,win_allocate_us,"
                 "ratio_allreduce,ratio_win\n");
  }
  if (me == 0)
    printf("# bench_alloc: %d units, MPI initialized by %s, "
           "DART_SIM_NODE_SIZE=%s, %d iterations, best of %d trials\n"
           "# %8s %10s %10s %12s %12s %10s %10s %10s\n",
           nunits, appinit ? "the application" : "DART", sim ? sim : "(unset)",
           iters, trials, "bytes", "dart[us]", "allreduce", "Win_allocate",
           "register", "/allreduce", "/Win_alloc", "reg/allr");
  size_t sizes[] = {64, 1024, 64 << 10, 1 << 20};
  for (int s = 0; s < 4; s++) {
    char *buf = calloc(1, sizes[s]);
    BENCH_CHECK(buf == NULL);
    double best[NV];
    for (int v = 0; v < NV; v++) best[v] = 1e30;
    for (int v = 0; v < NV; v++) run(v, sizes[s], buf, 2); /* warm-up */
    for (int t = 0; t < trials; t++)
      for (int v = 0; v < NV; v++) {
        /* Window creation can take ms when oversubscribed: fewer. */
        int n = (v == V_WIN) ? iters / 5 + 1 : iters;
        double x = run(v, sizes[s], buf, n);
        if (x < best[v]) best[v] = x;
      }
    free(buf);
    if (me == 0) {
      printf("  %8zu %10.2f %10.2f %12.1f %12.2f %10.2f %10.3f %10.2f\n",
             sizes[s], best[V_DART], best[V_ALLREDUCE], best[V_WIN],
             best[V_REG], best[V_DART] / best[V_ALLREDUCE],
             best[V_DART] / best[V_WIN], best[V_REG] / best[V_ALLREDUCE]);
      for (int v = 0; out && v < NV; v += 3)
        fprintf(out, "%s,%zu,%.3f,%.3f,%.3f,%.3f,%.4f\n",
                v == V_DART ? "alloc_free" : "register_deregister", sizes[s],
                best[v], best[V_ALLREDUCE], best[V_WIN],
                best[v] / best[V_ALLREDUCE], best[v] / best[V_WIN]);
    }
    fflush(stdout);
  }
  live(out, quick && nlive > 2000 ? 2000 : nlive, iters);
  if (out) fclose(out);
  BENCH_CHECK(dart_exit());
  return 0;
}
