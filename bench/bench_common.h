/* Shared setup of the DART benchmarks. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* The cheapest full fence (as DART's and bench/paper's floor): on x86-64 a
 * locked add below the stack pointer; the compiler's locked op on the
 * stack top stalls loads of that word right after. */
#if defined(__x86_64__)
#define BENCH_FENCE()                                                          \
  __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")
#else
#define BENCH_FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#endif

/* Aborts the job, naming the source line and the call, unless call
 * returns 0 (DART_OK / MPI_SUCCESS). */
#define BENCH_CHECK(call)                                                      \
  do {                                                                         \
    if ((call) != 0) {                                                         \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call);        \
      MPI_Abort(MPI_COMM_WORLD, 1);                                            \
    }                                                                          \
  } while (0)

/*
 * dart_init, then a private duplicate of MPI_COMM_WORLD with the caller's
 * rank and size. Returns 1 if all processes share one node (shared
 * windows possible), 0 otherwise.
 */
static inline int bench_setup(int *argc, char ***argv, MPI_Comm *world, int *me,
                              int *nunits)
{
  if (dart_init(argc, argv) != DART_OK) {
    fprintf(stderr, "dart_init failed\n");
    exit(1);
  }
  MPI_Comm_dup(MPI_COMM_WORLD, world);
  MPI_Comm_rank(*world, me);
  MPI_Comm_size(*world, nunits);
  MPI_Comm node;
  int nsize;
  MPI_Comm_split_type(*world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &nsize);
  MPI_Comm_free(&node);
  return nsize == *nunits;
}

/* The CSV file out (NULL: none) opened on unit 0 only; a failure to open
 * is said on stderr and gives NULL. */
static inline FILE *bench_csv_open(int me, const char *out, const char *prog)
{
  FILE *f = NULL;
  if (me == 0 && out != NULL && (f = fopen(out, "w")) == NULL)
    fprintf(stderr, "%s: cannot write %s\n", prog, out);
  return f;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of v[0..n) (n > 0); sorts v, so v[0] and v[n-1] are then the
 * minimum and maximum. */
static inline double bench_median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif /* BENCH_COMMON_H */
