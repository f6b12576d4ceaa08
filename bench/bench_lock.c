/*
 * Lock benchmark.
 *
 * 1. All units contend on one lock: acquire + one-word increment of a
 *    counter on unit 0 + release, DART's MCS lock against a mutex built on
 *    MPI_Win_lock(MPI_LOCK_EXCLUSIVE) (the epoch on unit 0's window is the
 *    critical section). Prints acquisitions per second (all units) and the
 *    ratio DART / MPI.
 * 2. The team holds many locks and every unit takes random ones: the same
 *    workload with lock tails spread over the units (DART_LOCK_TAIL=spread)
 *    and all on unit 0 (unit0, the paper's layout). Prints both rates and
 *    spread / unit0.
 * The final counters are checked, so a broken mutex is reported. Every
 * figure is the best of `rounds` runs (the machine may be shared).
 *
 * Usage: mpiexec -n N bench_lock [iterations per unit] [locks] [rounds]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "team/dart_team.h"
#include <dash/dart/if/dart.h>

static int me, nu;

/* Counter increment inside a critical section, through DART RMA. */
static void dart_increment(dart_gptr_t g)
{
  long v;
  dart_get_blocking(&v, g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
  v++;
  dart_put_blocking(g, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG);
}

static void dart_counter_check(dart_gptr_t g, long want, const char *what)
{
  long v = -1;
  dart_barrier(DART_TEAM_ALL);
  dart_get_blocking(&v, g, 1, DART_TYPE_LONG, DART_TYPE_LONG);
  if (v != want) {
    fprintf(stderr, "[%d] %s: counter %ld, expected %ld\n", me, what, v, want);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/* Acquisitions per second, all units, of `iters` rounds per unit. */
static double dart_one_lock(int iters, dart_gptr_t g)
{
  dart_lock_t lock;
  dart_team_lock_init(DART_TEAM_ALL, &lock);
  dart_barrier(DART_TEAM_ALL);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    dart_lock_acquire(lock);
    dart_increment(g);
    dart_lock_release(lock);
  }
  dart_barrier(DART_TEAM_ALL);
  double t = MPI_Wtime() - t0;
  dart_team_lock_destroy(&lock);
  return (double)iters * nu / t;
}

/* The MPI baseline: an exclusive epoch on unit 0 is the critical section. */
static double mpi_one_lock(int iters, MPI_Comm comm)
{
  long *base;
  MPI_Win win;
  MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, comm, &base,
                   &win);
  *base = 0;
  MPI_Barrier(comm);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    long v;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
    MPI_Win_flush(0, win);
    v++;
    MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win);
    MPI_Win_unlock(0, win);
  }
  MPI_Barrier(comm);
  double t = MPI_Wtime() - t0;
  if (me == 0 && *base != (long)iters * nu) {
    fprintf(stderr, "MPI mutex: counter %ld, expected %ld\n", *base,
            (long)iters * nu);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Win_free(&win);
  return (double)iters * nu / t;
}

/* Many locks, random choice per iteration (same sequence for both modes). */
static double dart_many_locks(int iters, int nlocks, const char *tail)
{
  dart__env.lock_tail = tail; /* read when a lock is created */
  dart_lock_t *locks = malloc(sizeof(dart_lock_t) * (size_t)nlocks);
  for (int i = 0; i < nlocks; i++)
    dart_team_lock_init(DART_TEAM_ALL, &locks[i]);
  unsigned seed = 12345u + (unsigned)me;
  dart_barrier(DART_TEAM_ALL);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    dart_lock_t l = locks[rand_r(&seed) % (unsigned)nlocks];
    dart_lock_acquire(l);
    dart_lock_release(l);
  }
  dart_barrier(DART_TEAM_ALL);
  double t = MPI_Wtime() - t0;
  for (int i = 0; i < nlocks; i++) dart_team_lock_destroy(&locks[i]);
  free(locks);
  return (double)iters * nu / t;
}

int main(int argc, char **argv)
{
  int iters = argc > 1 ? atoi(argv[1]) : 300;
  int nlocks = argc > 2 ? atoi(argv[2]) : 64;
  if (dart_init(&argc, &argv) != DART_OK) return 1;
  MPI_Comm comm = dart__team_get(DART_TEAM_ALL)->comm;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &nu);
  dart_gptr_t g;
  dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &g);
  g.unitid = 0;
  long zero = 0;
  if (me == 0) dart_put_blocking(g, &zero, 1, DART_TYPE_LONG, DART_TYPE_LONG);
  dart_barrier(DART_TEAM_ALL);

  int rounds = argc > 3 ? atoi(argv[3]) : 3;
  mpi_one_lock(iters / 10 + 1, comm); /* warm-up */
  double mpi = 0, dart = 0, spread = 0, unit0 = 0;
  for (int r = 0; r < rounds; r++) {
    double m = mpi_one_lock(iters, comm);
    double d = dart_one_lock(iters, g);
    dart_counter_check(g, (long)iters * nu * (r + 1), "DART lock");
    double sp = dart_many_locks(iters, nlocks, "spread");
    double u0 = dart_many_locks(iters, nlocks, "unit0");
    mpi = m > mpi ? m : mpi;
    dart = d > dart ? d : dart;
    spread = sp > spread ? sp : spread;
    unit0 = u0 > unit0 ? u0 : unit0;
  }
  if (me == 0) {
    printf("# bench_lock: %d units, %d acquisitions per unit, %d locks in "
           "the many-locks run, best of %d rounds\n",
           nu, iters, nlocks, rounds);
    printf("one lock, all contend  DART %10.0f acq/s   MPI_Win_lock mutex "
           "%10.0f acq/s   DART/MPI %.2f\n",
           dart, mpi, dart / mpi);
    printf("%d locks, random use   spread %10.0f acq/s   unit0 %10.0f acq/s"
           "   spread/unit0 %.2f\n",
           nlocks, spread, unit0, spread / unit0);
  }
  dart_team_memfree(g);
  dart_exit();
  return 0;
}
