/*
 * bench_scale: how the locality build grows with the number of units
 * (issue 23). MPI-free: it feeds dart__locality_build (src/locality/tree.c)
 * synthetic hardware records, as the allgather of dart_init would deliver
 * them, for P units with k units per host, and measures
 *
 *   seconds  wall time of the build
 *   bytes    heap the finished locality data keeps (mallinfo2 delta)
 *   peak     largest heap in use above the start during the build (malloc
 *            is interposed; usable size + chunk header per allocation)
 *   input    the gathered records every process holds during dart_init
 *
 * One line per configuration:
 *   SCALE locality P=<n> per_host=<k> seconds=<s> bytes=<b> peak=<b> input=<b>
 *
 * dart_init no longer builds that tree (it is built when a program first
 * asks for it): what one process does for locality at init is the host-name
 * check of names.c on the allgathered word per unit, and what it keeps is
 * its own published record and the team's empty locality data:
 *   SCALE locality_init P=<n> per_host=<k> seconds=<s> bytes=<b> peak=<b>
 *       input=<b>
 * (seconds: the check; bytes: kept afterwards; peak: the words array and
 * anything the check allocates; input: the words received).
 * and per units-per-host the exponents of a least-squares fit of
 * log(seconds) and log(bytes) over log(P):
 *   SCALE_FIT locality per_host=<k> time_exponent=<e> bytes_exponent=<e>
 *
 *   bench_scale [--quick] [--max-p=N] [--budget=S]
 *
 *   --quick    P = 10^3 and 10^4 only (CI)
 *   --max-p    largest P (default 10^6)
 *   --budget   skip a configuration whose predicted time exceeds S seconds
 *              (default 60); the skip is printed as "SCALE ... skipped"
 */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "locality/locality_internal.h"

/* ---- heap accounting: malloc interposed on glibc for the peak ---------- */

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static long long heap_now, heap_peak; /* usable bytes, only while armed */
static int heap_armed;

static void heap_add(void *p, long long sign)
{
  if (p == NULL || !__atomic_load_n(&heap_armed, __ATOMIC_RELAXED)) return;
  /* usable size + glibc's chunk header, as mallinfo2 counts it */
  long long size = (long long)(malloc_usable_size(p) + sizeof(size_t));
  long long now = __atomic_add_fetch(&heap_now, sign * size, __ATOMIC_RELAXED);
  if (now > heap_peak) heap_peak = now;
}

void *malloc(size_t n)
{
  void *p = __libc_malloc(n);
  heap_add(p, 1);
  return p;
}

void *calloc(size_t m, size_t n)
{
  void *p = __libc_calloc(m, n);
  heap_add(p, 1);
  return p;
}

void *realloc(void *old, size_t n)
{
  heap_add(old, -1);
  void *p = __libc_realloc(old, n);
  heap_add(p != NULL ? p : old, 1);
  return p;
}

void free(void *p)
{
  heap_add(p, -1);
  __libc_free(p);
}

static long long heap_in_use(void)
{
  struct mallinfo2 mi = mallinfo2();
  return (long long)(mi.uordblks + mi.hblkhd);
}

/* ---- synthetic machine ------------------------------------------------- */

/*
 * Unit u of P, k units per host: host "n<u/k>", k cores in 2 packages (one
 * if k == 1), each package one NUMA domain with one shared L3; scopes
 * CORE < CACHE < NUMA < PACKAGE as the hwloc detection reports them.
 */
static void synth_unit(dart_hwinfo_t *hw, int u, int k)
{
  dart__hwinfo_clear(hw);
  int core = u % k, pkgs = k > 1 ? 2 : 1, pkg = core * pkgs / k;
  snprintf(hw->host, sizeof hw->host, "n%07d", u / k);
  hw->num_cores = k;
  hw->core_id = hw->cpu_id = core;
  hw->numa_id = pkg;
  hw->num_numa = pkgs;
  hw->num_sockets = pkgs;
  hw->max_shmem_mbps = 1235;
  hw->scopes[0] = (dart_locality_scope_pos_t){DART_LOCALITY_SCOPE_CORE, core};
  hw->scopes[1] = (dart_locality_scope_pos_t){DART_LOCALITY_SCOPE_CACHE, pkg};
  hw->scopes[2] = (dart_locality_scope_pos_t){DART_LOCALITY_SCOPE_NUMA, pkg};
  hw->scopes[3] = (dart_locality_scope_pos_t){DART_LOCALITY_SCOPE_PACKAGE, pkg};
  hw->num_scopes = 4;
}

typedef struct {
  double seconds;
  long long bytes, peak, input;
} result_t;

static int measure(int p, int k, result_t *r)
{
  dart_hwinfo_t *hw = malloc((size_t)p * sizeof *hw);
  int32_t *gids = malloc((size_t)p * sizeof *gids);
  if (hw == NULL || gids == NULL) return -1;
  for (int u = 0; u < p; u++) {
    synth_unit(&hw[u], u, k);
    gids[u] = u;
  }
  dart__locality_t *loc = NULL;
  long long before = heap_in_use();
  heap_now = heap_peak = 0;
  __atomic_store_n(&heap_armed, 1, __ATOMIC_RELAXED);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  dart_ret_t ret = dart__locality_build(DART_TEAM_ALL, p, gids, hw, &loc);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  __atomic_store_n(&heap_armed, 0, __ATOMIC_RELAXED);
  r->bytes = heap_in_use() - before;
  r->peak = heap_peak;
  r->input = (long long)p * (long long)sizeof(dart_hwinfo_t);
  r->seconds =
      (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  int ok = ret == DART_OK && loc != NULL && loc->num_units == p &&
           loc->root->num_units == p && loc->root->num_nodes == (p + k - 1) / k;
  dart__locality_free(loc);
  free(hw);
  free(gids);
  if (!ok) fprintf(stderr, "bench_scale: build at P=%d k=%d failed\n", p, k);
  return ok ? 0 : -1;
}

/*
 * One process's locality work in dart_init at P units, k per host: the
 * allgathered words (hash of each unit's node leader's host name, as every
 * unit contributes them) and the check; kept: the published record and the
 * team's locality data, both of constant size.
 */
static int measure_init(int p, int k, result_t *r)
{
  long long before = heap_in_use();
  heap_now = heap_peak = 0;
  __atomic_store_n(&heap_armed, 1, __ATOMIC_RELAXED);
  uint64_t *words = malloc((size_t)p * sizeof *words);
  dart_hwinfo_t *record = malloc(sizeof *record);
  dart__locality_t *loc = calloc(1, sizeof *loc);
  if (words == NULL || record == NULL || loc == NULL) return -1;
  char host[DART_LOCALITY_HOST_MAX_SIZE];
  for (int u = 0; u < p; u++) {
    if (u % k == 0) {
      snprintf(host, sizeof host, "n%07d", u / k);
      words[u] = dart__locality_host_hash(host);
    } else {
      words[u] = words[u - 1];
    }
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bool disagree = dart__locality_hosts_disagree(words, p, (p + k - 1) / k);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  free(words);
  __atomic_store_n(&heap_armed, 0, __ATOMIC_RELAXED);
  r->bytes = heap_in_use() - before;
  r->peak = heap_peak;
  r->input = (long long)p * (long long)sizeof *words;
  r->seconds =
      (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (t1.tv_nsec - t0.tv_nsec);
  free(record);
  free(loc);
  if (disagree)
    fprintf(stderr, "bench_scale: distinct hosts read as disagreeing at P=%d\n",
            p);
  return disagree ? -1 : 0;
}

/* Least-squares slope of log(y) over log(x). */
static double fit(const double *x, const double *y, int n)
{
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (int i = 0; i < n; i++) {
    double lx = log(x[i]), ly = log(y[i] > 0 ? y[i] : 1e-9);
    sx += lx;
    sy += ly;
    sxx += lx * lx;
    sxy += lx * ly;
  }
  double den = n * sxx - sx * sx;
  return n >= 2 && den != 0 ? (n * sxy - sx * sy) / den : NAN;
}

int main(int argc, char **argv)
{
  long max_p = 1000000;
  double budget = 60;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--quick") == 0)
      max_p = 10000;
    else if (strncmp(argv[i], "--max-p=", 8) == 0)
      max_p = strtol(argv[i] + 8, NULL, 10);
    else if (strncmp(argv[i], "--budget=", 9) == 0)
      budget = strtod(argv[i] + 9, NULL);
    else {
      fprintf(stderr, "usage: %s [--quick] [--max-p=N] [--budget=S]\n",
              argv[0]);
      return 2;
    }
  }
  static const int per_host[] = {1, 24, 64};
  int status = 0;
  for (int h = 0; h < 3; h++) {
    int k = per_host[h], n = 0;
    double xs[8], ts[8], bs[8], predicted = 0;
    for (long p = 1000; p <= max_p && p <= 100000000; p *= 10) {
      if (predicted > budget) {
        printf(
            "SCALE locality P=%ld per_host=%d skipped predicted_seconds=%.0f\n",
            p, k, predicted);
        continue;
      }
      result_t r;
      if (measure((int)p, k, &r) != 0) {
        status = 1;
        break;
      }
      printf("SCALE locality P=%ld per_host=%d seconds=%.4f bytes=%lld "
             "peak=%lld input=%lld\n",
             p, k, r.seconds, r.bytes, r.peak, r.input);
      fflush(stdout);
      xs[n] = (double)p;
      ts[n] = r.seconds;
      bs[n++] = (double)r.bytes;
      /* next P is 10x: predict with the growth seen so far (at least 2) */
      double e = n >= 2 ? fit(xs, ts, n) : 2;
      predicted = r.seconds * pow(10, e > 1 ? e : 1);
    }
    printf("SCALE_FIT locality per_host=%d time_exponent=%.2f "
           "bytes_exponent=%.2f\n",
           k, fit(xs, ts, n), fit(xs, bs, n));
  }
  for (int h = 0; h < 3 && status == 0; h++) {
    int k = per_host[h], n = 0;
    double xs[8], ts[8], ps[8];
    for (long p = 1000; p <= max_p && p <= 100000000; p *= 10) {
      result_t r;
      if (measure_init((int)p, k, &r) != 0) {
        status = 1;
        break;
      }
      printf("SCALE locality_init P=%ld per_host=%d seconds=%.4f bytes=%lld "
             "peak=%lld input=%lld\n",
             p, k, r.seconds, r.bytes, r.peak, r.input);
      fflush(stdout);
      xs[n] = (double)p;
      ts[n] = r.seconds;
      ps[n++] = (double)r.peak;
    }
    printf("SCALE_FIT locality_init per_host=%d time_exponent=%.2f "
           "peak_exponent=%.2f\n",
           k, fit(xs, ts, n), fit(xs, ps, n));
  }
  return status;
}
