/*
 * bench_common.c — harness shared by the paper benchmarks: start-up and
 * shutdown of MPI / OpenSHMEM / DART in one process, options, clock,
 * interleaved trials with medians, CSV output. See bench_common.h.
 */
#include "bench_common.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bench_env_t bench;
static int dart_started; /* dart_init succeeded on this unit */

static int common_arg(const char *arg)
{
  if (strcmp(arg, "--quick") == 0) {
    bench.quick = 1;
  } else if (strncmp(arg, "--trials=", 9) == 0) {
    bench.trials = atoi(arg + 9);
  } else if (strncmp(arg, "--out=", 6) == 0) {
    bench.out = arg + 6;
  } else {
    return 0;
  }
  return 1;
}

static void parse_args(int argc, char **argv, int (*extra)(const char *))
{
  for (int i = 1; i < argc; i++) {
    if (common_arg(argv[i])) continue;
    if (extra != NULL && extra(argv[i])) continue;
    bench_die("unknown option '%s'", argv[i]);
  }
}

void bench_init(int *argc, char ***argv, int (*extra)(const char *arg),
                int quick_trials, int full_trials)
{
  /* Open MPI's osc/rdma crashes in atomics on this class of machine; the
   * application initialises MPI here, so route around it like DART does. */
  setenv("OMPI_MCA_osc", "^rdma", 0);
  if (MPI_Init(argc, argv) != MPI_SUCCESS) {
    fprintf(stderr, "bench: MPI_Init failed\n");
    exit(1);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_rank(MPI_COMM_WORLD, &bench.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &bench.size);
  parse_args(*argc, *argv, extra);
  if (bench.trials <= 0)
    bench.trials = bench.quick ? quick_trials : full_trials;
#ifdef BENCH_HAVE_SHMEM
  shmem_init();
  bench.have_shmem = 1;
#endif
  dart_started = dart_init(argc, argv) == DART_OK;
  bench.have_dart = bench_all_ok(dart_started);
  if (!bench.have_dart && bench.rank == 0)
    fprintf(stderr, "bench: dart_init failed, DART variants disabled\n");
}

int bench_all_ok(int ok)
{
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return all;
}

/* "host:cpus" of this unit: its CPU affinity from /proc/self/status. */
static void placement(char *buf, size_t len)
{
  char host[MPI_MAX_PROCESSOR_NAME] = "?", line[256], cpus[128] = "?";
  int hl = 0;
  FILE *f = fopen("/proc/self/status", "r");
  MPI_Get_processor_name(host, &hl);
  while (f != NULL && fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "Cpus_allowed_list: %127s", cpus) == 1) break;
  if (f != NULL) fclose(f);
  snprintf(buf, len, "%s:cpus %s", host, cpus);
}

void bench_csv_header(const char *header)
{
  enum { LEN = 96 };
  char mine[LEN], *all = NULL;
  placement(mine, sizeof mine);
  if (bench.rank == 0 && (all = malloc((size_t)bench.size * LEN)) == NULL)
    bench_die("out of memory");
  MPI_Gather(mine, LEN, MPI_CHAR, all, LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (bench.rank != 0) return;
  if (bench.out == NULL) {
    bench.csv = stdout;
  } else {
    bench.csv = fopen(bench.out, "w");
    if (bench.csv == NULL) bench_die("cannot open '%s' for writing", bench.out);
  }
  fprintf(bench.csv, "%s\n#placement=", header);
  for (int r = 0; r < bench.size; r++)
    fprintf(bench.csv, "%sunit %d %s", r ? "; " : "", r, all + r * LEN);
  fprintf(bench.csv, "\n#trials=%d\n", bench.trials);
  free(all);
}

void bench_csv_row(const char *fmt, ...)
{
  if (bench.rank != 0 || bench.csv == NULL) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(bench.csv, fmt, ap);
  va_end(ap);
  fputc('\n', bench.csv);
  fflush(bench.csv);
}

void bench_finalize(void)
{
  if (bench.csv != NULL && bench.csv != stdout) fclose(bench.csv);
  bench.csv = NULL;
  if (dart_started) dart_exit();
#ifdef BENCH_HAVE_SHMEM
  /* Open MPI's shmem_finalize also finalizes MPI. */
  shmem_finalize();
#endif
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}

void bench_die(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "bench[%d]: ", bench.rank);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  exit(1);
}

double bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
  if (n <= 0) return 0.0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Runs one collective call of a variant; returns the maximum time over
 * units, or -1 if the call failed on any unit. */
static double timed_call(bench_variant_t *v, long iters)
{
  MPI_Barrier(MPI_COMM_WORLD);
  double t = v->fn(v->ctx, iters);
  double in[2] = {t < 0 ? 0.0 : t, t < 0 ? 1.0 : 0.0}, out[2];
  MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return out[1] > 0 ? -1.0 : out[0];
}

/* order[] = a permutation of 0..n-1 that depends only on seed (so it is
 * the same on every unit): the variants of a trial run in a shuffled
 * order, so that no variant always follows the same one (cache state). */
static void shuffle(int *order, int n, unsigned seed)
{
  uint64_t x = 0x9E3779B97F4A7C15ULL * (seed + 1);
  for (int i = 0; i < n; i++) order[i] = i;
  for (int i = n - 1; i > 0; i--) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    int k = (int)(x % (uint64_t)(i + 1));
    int t = order[i];
    order[i] = order[k];
    order[k] = t;
  }
}

/* Warm-up call of a variant; with a budget it also proposes an iteration
 * count with which one call takes about `budget` seconds. */
static void warm_up(bench_variant_t *v, long iters, double budget,
                    bench_result_t *r)
{
  long w = iters > 4 ? iters / 4 : 1;
  r->iters = iters;
  double s = v->enabled ? timed_call(v, w) : -1.0;
  r->ok = s >= 0;
  if (r->ok && budget > 0 && s > 0) {
    double n = budget / (s / (double)w);
    r->iters = n >= (double)iters ? iters : (n < 3 ? 3 : (long)n);
  }
}

void bench_interleave(bench_variant_t *v, int nv, long iters, double budget,
                      bench_result_t *res)
{
  int nt = bench.trials;
  double *t = calloc((size_t)(nv * nt), sizeof *t);
  if (t == NULL) bench_die("out of memory");
  long common = iters;
  for (int j = 0; j < nv; j++) {
    warm_up(&v[j], iters, budget, &res[j]);
    if (res[j].ok && res[j].iters < common) common = res[j].iters;
  }
  /* Same operation count for every variant: a burst's length changes what
   * it measures (cache reuse, queue depth). */
  for (int j = 0; j < nv; j++) res[j].iters = common;
  int order[nv];
  for (int trial = 0; trial < nt; trial++) {
    shuffle(order, nv, (unsigned)trial);
    for (int k = 0; k < nv; k++) {
      int j = order[k];
      if (!res[j].ok) continue;
      double s = timed_call(&v[j], res[j].iters);
      if (s < 0) res[j].ok = 0;
      t[j * nt + trial] = s / (double)res[j].iters;
    }
  }
  for (int j = 0; j < nv; j++) {
    double *row = t + j * nt;
    res[j].median = res[j].min = res[j].mad = 0.0;
    if (!res[j].ok) continue;
    res[j].median = bench_median(row, nt);
    res[j].min = row[0]; /* sorted by bench_median */
    for (int k = 0; k < nt; k++) row[k] = fabs(row[k] - res[j].median);
    res[j].mad = bench_median(row, nt);
  }
  free(t);
}
