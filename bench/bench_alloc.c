/*
 * Collective allocation latency: dart_team_memalloc_aligned +
 * dart_team_memfree on DART_TEAM_ALL versus the raw MPI_Win_allocate +
 * MPI_Win_free (and MPI_Win_allocate_shared + free) on the same processes,
 * measured in the same run, and dart_team_memregister +
 * dart_team_memderegister of a buffer of the same size (deregistration is
 * local; the window is freed at the next registration, so a loop measures
 * the whole cycle). Run at 2 and 4 units (and with DART_SIM_NODE_SIZE=1 / 2
 * for the other window schemes).
 *
 * Times are the best of 5 batches (the machine may be shared).
 *
 * usage: bench_alloc [iterations]
 */
#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static int me, nunits;
static MPI_Comm world;

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != 0) {                                                         \
      fprintf(stderr, "bench_alloc: %s failed\n", #call);                      \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
    }                                                                          \
  } while (0)

/* Slowest unit's mean time per iteration in microseconds. */
static double finish(double t0, int iters)
{
  double dt = (MPI_Wtime() - t0) / iters * 1e6, max;
  MPI_Allreduce(&dt, &max, 1, MPI_DOUBLE, MPI_MAX, world);
  return max;
}

/* The machine may be shared: the best of 5 batches is the estimate. */
#define BEST_OF_5(result, call)                                                \
  do {                                                                         \
    result = 1e30;                                                             \
    for (int b_ = 0; b_ < 5; b_++) {                                           \
      double t_ = (call);                                                      \
      if (t_ < result) result = t_;                                            \
    }                                                                          \
  } while (0)

static double time_dart(size_t bytes, int iters)
{
  dart_gptr_t g;
  MPI_Barrier(world);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &g));
    CHECK(dart_team_memfree(g));
  }
  return finish(t0, iters);
}

static double time_register(char *buf, size_t bytes, int iters)
{
  dart_gptr_t g;
  MPI_Barrier(world);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    CHECK(dart_team_memregister(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, buf, &g));
    CHECK(dart_team_memderegister(g));
  }
  return finish(t0, iters);
}

static double time_mpi(size_t bytes, int iters, int shared)
{
  void *base;
  MPI_Win win;
  MPI_Barrier(world);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    if (shared)
      CHECK(MPI_Win_allocate_shared((MPI_Aint)bytes, 1, MPI_INFO_NULL, world,
                                    &base, &win));
    else
      CHECK(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, world, &base,
                             &win));
    CHECK(MPI_Win_free(&win));
  }
  return finish(t0, iters);
}

int main(int argc, char **argv)
{
  /* Shared windows need all ranks on one node: only compare when so. */
  int one_node = bench_setup(&argc, &argv, &world, &me, &nunits);
  int iters = argc > 1 ? atoi(argv[1]) : 200;
  const char *sim = getenv("DART_SIM_NODE_SIZE");
  if (me == 0)
    printf("# bench_alloc: %d units, DART_SIM_NODE_SIZE=%s, %d iterations\n"
           "# %10s %12s %14s %10s %18s %14s %10s\n",
           nunits, sim ? sim : "(unset)", iters, "bytes", "dart [us]",
           "MPI_Win_alloc", "ratio", "Win_alloc_shared", "register [us]",
           "reg/alloc");
  size_t sizes[] = {64, 4096, 1 << 20};
  for (int s = 0; s < 3; s++) {
    int batch = iters / 5 + 1;
    double td, tm, ts = -1, tr;
    char *buf = calloc(1, sizes[s]);
    CHECK(buf == NULL);
    time_dart(sizes[s], batch); /* warm-up */
    BEST_OF_5(td, time_dart(sizes[s], batch));
    BEST_OF_5(tr, time_register(buf, sizes[s], batch));
    free(buf);
    BEST_OF_5(tm, time_mpi(sizes[s], batch, 0));
    if (one_node) BEST_OF_5(ts, time_mpi(sizes[s], batch, 1));
    if (me == 0)
      printf("  %10zu %12.1f %14.1f %10.2f %18.1f %14.1f %10.2f\n", sizes[s],
             td, tm, td / tm, ts, tr, tr / td);
    fflush(stdout);
  }
  MPI_Comm_free(&world);
  CHECK(dart_exit());
  return 0;
}
