/*
 * bench_common.h — shared harness of the paper benchmarks (bench/paper).
 *
 * Start-up of MPI, OpenSHMEM (when built with it) and DART in one process,
 * option parsing, a monotonic clock, interleaved trial execution with
 * median statistics, and CSV output written by unit 0.
 *
 * Methodology (survives a noisy shared machine): every comparison runs all
 * of its variants inside the same process, interleaved trial by trial (in
 * an order shuffled per trial), and reports the median over trials.
 */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <mpi.h>

#include <dash/dart/if/dart.h>

#ifdef BENCH_HAVE_SHMEM
#include <shmem.h>
#endif

/** Process-wide state of one benchmark run. */
typedef struct {
  int quick;       /* --quick: reduced sizes/iterations (CI)     */
  int trials;      /* --trials=N (default: per program)          */
  const char *out; /* --out=FILE: CSV destination on unit 0       */
  int rank, size;  /* rank/size in MPI_COMM_WORLD                 */
  int have_dart;   /* dart_init succeeded on every unit           */
  int have_shmem;  /* shmem_init was called (OpenSHMEM variant)   */
  FILE *csv;       /* open CSV stream on unit 0, NULL elsewhere   */
} bench_env_t;

extern bench_env_t bench;

/** One variant of a comparison: fn runs `iters` operations and returns
 *  the elapsed seconds measured on this unit (0 if this unit only
 *  assists), or a negative value on error. */
typedef struct {
  const char *name;
  double (*fn)(void *ctx, long iters);
  void *ctx;
  int enabled;
} bench_variant_t;

/** Result of bench_interleave for one variant (seconds per operation). */
typedef struct {
  double median;
  double min;
  double mad; /* median absolute deviation from the median */
  long iters; /* operations per timed call                */
  int ok;     /* 0 if any trial failed on any unit */
} bench_result_t;

/* MPI_Init, shmem_init (if compiled in), dart_init; parses the common
 * options (--quick, --trials=N, --out=FILE) and hands every other argument
 * to `extra` (may be NULL), which returns 0 for an unknown option. Without
 * --trials, quick_trials or full_trials trials are run. */
void bench_init(int *argc, char ***argv, int (*extra)(const char *arg),
                int quick_trials, int full_trials);

/* Collective: opens the CSV file on unit 0 and writes the header line
 * plus the #placement (host and CPU affinity of every unit) and #trials
 * annotations. */
void bench_csv_header(const char *header);

/* printf-style CSV row, written by unit 0 only. */
void bench_csv_row(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* dart_exit, shmem_finalize, MPI_Finalize (each only if still needed). */
void bench_finalize(void);

/* Aborts the whole job with a message (never hangs). */
void bench_die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

/* Monotonic time in seconds. */
double bench_now(void);

/* Median of v[0..n-1] (v is reordered). */
double bench_median(double *v, int n);

/* Runs every enabled variant `trials` times with `iters` operations each,
 * in an order shuffled per trial (the same on all units), after one warm-up
 * call per variant (iters/4 operations). With budget > 0 (seconds), if the
 * warm-up shows that `iters` operations of some variant would take longer, all
 * variants run fewer (at least 3) so that slow variants cannot stall the suite;
 * res[v].iters tells (equal for all variants of one call).
 * Each call is preceded by an MPI_Barrier; the per-call time is the
 * maximum over units. res[v] receives median, minimum and MAD per
 * operation. */
void bench_interleave(bench_variant_t *v, int nv, long iters, double budget,
                      bench_result_t *res);

/* Time budget per timed call of the micro-benchmarks (seconds). */
#define BENCH_CALL_BUDGET 0.001

/* Trials of the micro-benchmarks: many short ones (at most ~1 ms, well
 * under a scheduler time slice), so that the median dodges the slices
 * other processes take on a shared machine. */
#define BENCH_MICRO_TRIALS 9, 31
/* Trials of the application benchmarks (fixed work per trial). */
#define BENCH_APP_TRIALS 5, 11

/* True if the DART call succeeded on every unit (collective). */
int bench_all_ok(int ok);

#endif /* BENCH_COMMON_H */
