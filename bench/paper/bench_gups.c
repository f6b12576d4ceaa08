/*
 * bench_gups.c — RandomAccess (HPCC GUPS), as in Fig. 5 of the MPI-3
 * shared-memory paper (001): DART vs MPI RMA vs OpenSHMEM.
 *
 * HPCC rules: a distributed table of 2^n 64-bit words (2^logl per unit),
 * initialised to T[i] = i; 4 x table-size updates in total, each XORing the
 * next value of HPCC's random stream (x <- 2x ^ (x<0 ? 7 : 0)) into
 * T[value mod size]; unit r performs the stream positions
 * [r*U, (r+1)*U). Updates are remote atomics, at most 1024 in flight
 * (HPCC's look-ahead limit):
 *   DART:   dart_accumulate(DART_OP_BXOR, DART_TYPE_ULONGLONG) +
 *           dart_flush_all every 1024 updates;
 *   MPI:    MPI_Accumulate(MPI_BXOR) on an MPI_Win_allocate window +
 *           MPI_Win_flush_all every 1024 updates;
 *   SHMEM:  shmem_ulong_atomic_xor + shmem_quiet every 1024 updates.
 * Verification: unit 0 gathers the final table and replays every update
 * sequentially; HPCC accepts an error rate of at most 1%.
 *
 *   --log2-local=N   words per unit = 2^N (default 12 quick, 14 full)
 *
 * CSV: units,variant,table_words,updates,median_s,min_s,gups,errors
 */
#include "bench_common.h"

#include <stdlib.h>
#include <string.h>

#define POLY 7ULL
#define LOOKAHEAD 1024L

enum { V_DART, V_MPI, V_SHMEM, V_COUNT };

typedef struct {
  int logl;        /* log2 of words per unit                  */
  uint64_t nlocal; /* words per unit                          */
  uint64_t ntotal; /* words in the whole table                */
  long nupd;       /* updates per unit (4 x nlocal)           */
  uint64_t start;  /* stream value before the first update    */
  uint64_t *dtab;  /* DART: this unit's part of the table     */
  dart_gptr_t dseg;
  uint64_t *mtab; /* MPI: this unit's part of the table      */
  MPI_Win win;
  uint64_t *stab;           /* OpenSHMEM: symmetric table              */
  uint64_t vals[LOOKAHEAD]; /* origin buffers of in-flight updates   */
} gups_ctx_t;

static int opt_logl;

static int parse_logl(const char *arg)
{
  if (strncmp(arg, "--log2-local=", 13) != 0) return 0;
  opt_logl = atoi(arg + 13);
  return opt_logl >= 4 && opt_logl <= 26;
}

/* One step of HPCC's random stream. */
static inline uint64_t next_ran(uint64_t x)
{
  return (x << 1) ^ ((x >> 63) ? POLY : 0);
}

static void reset_table(const gups_ctx_t *c, uint64_t *tab)
{
  uint64_t base = (uint64_t)bench.rank * c->nlocal;
  for (uint64_t i = 0; i < c->nlocal; i++) tab[i] = base + i;
}

static double run_dart(void *p, long n)
{
  gups_ctx_t *c = p;
  int rc = DART_OK;
  uint64_t ran = c->start;
  reset_table(c, c->dtab);
  rc |= dart_barrier(DART_TEAM_ALL);
  double t0 = bench_now();
  for (long i = 0; i < n; i++) {
    ran = next_ran(ran);
    uint64_t idx = ran & (c->ntotal - 1);
    dart_gptr_t g = c->dseg;
    g.unitid = (dart_unit_t)(idx >> c->logl);
    g.addr_or_offs.offset = (idx & (c->nlocal - 1)) * sizeof(uint64_t);
    uint64_t *v = &c->vals[i & (LOOKAHEAD - 1)];
    *v = ran;
    rc |= dart_accumulate(g, v, 1, DART_TYPE_ULONGLONG, DART_OP_BXOR);
    if ((i & (LOOKAHEAD - 1)) == LOOKAHEAD - 1) rc |= dart_flush_all(c->dseg);
  }
  rc |= dart_flush_all(c->dseg);
  rc |= dart_barrier(DART_TEAM_ALL);
  double t1 = bench_now();
  return rc == DART_OK ? t1 - t0 : -1.0;
}

static double run_mpi(void *p, long n)
{
  gups_ctx_t *c = p;
  int rc = MPI_SUCCESS;
  uint64_t ran = c->start;
  reset_table(c, c->mtab);
  MPI_Win_sync(c->win);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = bench_now();
  for (long i = 0; i < n; i++) {
    ran = next_ran(ran);
    uint64_t idx = ran & (c->ntotal - 1);
    uint64_t *v = &c->vals[i & (LOOKAHEAD - 1)];
    *v = ran;
    rc |= MPI_Accumulate(v, 1, MPI_UINT64_T, (int)(idx >> c->logl),
                         (MPI_Aint)(idx & (c->nlocal - 1)), 1, MPI_UINT64_T,
                         MPI_BXOR, c->win);
    if ((i & (LOOKAHEAD - 1)) == LOOKAHEAD - 1) rc |= MPI_Win_flush_all(c->win);
  }
  rc |= MPI_Win_flush_all(c->win);
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = bench_now();
  MPI_Win_sync(c->win);
  return rc == MPI_SUCCESS ? t1 - t0 : -1.0;
}

#ifdef BENCH_HAVE_SHMEM
static double run_shmem(void *p, long n)
{
  gups_ctx_t *c = p;
  uint64_t ran = c->start;
  reset_table(c, c->stab);
  shmem_barrier_all();
  double t0 = bench_now();
  for (long i = 0; i < n; i++) {
    ran = next_ran(ran);
    uint64_t idx = ran & (c->ntotal - 1);
    shmem_ulong_atomic_xor((unsigned long *)(c->stab + (idx & (c->nlocal - 1))),
                           (unsigned long)ran, (int)(idx >> c->logl));
    if ((i & (LOOKAHEAD - 1)) == LOOKAHEAD - 1) shmem_quiet();
  }
  shmem_quiet();
  shmem_barrier_all();
  return bench_now() - t0;
}
#endif

/* Expected final table on unit 0: the initial table with every unit's
 * updates replayed sequentially. */
static uint64_t *expected_table(const gups_ctx_t *c)
{
  uint64_t *e = malloc(c->ntotal * sizeof *e);
  if (e == NULL) bench_die("out of memory");
  for (uint64_t i = 0; i < c->ntotal; i++) e[i] = i;
  uint64_t ran = 1;
  for (long k = 0; k < (long)bench.size * c->nupd; k++) {
    ran = next_ran(ran);
    e[ran & (c->ntotal - 1)] ^= ran;
  }
  return e;
}

/* Gathers a variant's table on unit 0 and counts wrong words. */
static long count_errors(const gups_ctx_t *c, const uint64_t *tab,
                         const uint64_t *expect)
{
  uint64_t *all = NULL;
  long err = 0;
  if (bench.rank == 0 && (all = malloc(c->ntotal * sizeof *all)) == NULL)
    bench_die("out of memory");
  MPI_Gather(tab, (int)c->nlocal, MPI_UINT64_T, all, (int)c->nlocal,
             MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (bench.rank == 0) {
    for (uint64_t i = 0; i < c->ntotal; i++) err += all[i] != expect[i];
    free(all);
  }
  MPI_Bcast(&err, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  return err;
}

static int setup_dart(gups_ctx_t *c)
{
  if (!bench.have_dart) return 0;
  dart_gptr_t me;
  int ok = dart_team_memalloc_aligned(DART_TEAM_ALL, c->nlocal,
                                      DART_TYPE_ULONGLONG, &c->dseg) == DART_OK;
  if (ok) {
    me = c->dseg;
    me.unitid = bench.rank;
    ok = dart_gptr_getaddr(me, (void **)&c->dtab) == DART_OK && c->dtab;
  }
  return bench_all_ok(ok);
}

static void setup(gups_ctx_t *c, bench_variant_t *v)
{
  int logp = 0;
  while ((1 << logp) < bench.size) logp++;
  if ((1 << logp) != bench.size)
    bench_die("the unit count must be a power of two (HPCC)");
  c->logl = opt_logl > 0 ? opt_logl : (bench.quick ? 12 : 14);
  c->nlocal = (uint64_t)1 << c->logl;
  c->ntotal = c->nlocal << logp;
  c->nupd = (long)(4 * c->nlocal);
  c->start = 1;
  for (long k = 0; k < (long)bench.rank * c->nupd; k++)
    c->start = next_ran(c->start);
  if (MPI_Win_allocate((MPI_Aint)(c->nlocal * 8), 8, MPI_INFO_NULL,
                       MPI_COMM_WORLD, &c->mtab, &c->win) != MPI_SUCCESS)
    bench_die("MPI_Win_allocate failed");
  MPI_Win_set_errhandler(c->win, MPI_ERRORS_RETURN);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, c->win);
  v[V_DART] = (bench_variant_t){"dart", run_dart, c, setup_dart(c)};
  v[V_MPI] = (bench_variant_t){"mpi", run_mpi, c, 1};
  v[V_SHMEM] = (bench_variant_t){"shmem", NULL, c, 0};
#ifdef BENCH_HAVE_SHMEM
  c->stab = shmem_malloc(c->nlocal * sizeof(uint64_t));
  v[V_SHMEM].fn = run_shmem;
  v[V_SHMEM].enabled = c->stab != NULL;
#endif
}

static void report(gups_ctx_t *c, bench_variant_t *v, bench_result_t *res)
{
  uint64_t *expect = bench.rank == 0 ? expected_table(c) : NULL;
  uint64_t *tabs[V_COUNT] = {c->dtab, c->mtab, c->stab};
  for (int j = 0; j < V_COUNT; j++) {
    if (!v[j].enabled) continue;
    if (!res[j].ok) {
      bench_csv_row("#status_%s=FAILED", v[j].name);
      continue;
    }
    if (j == V_DART) dart_barrier(DART_TEAM_ALL);
    long err = count_errors(c, tabs[j], expect);
    double t = res[j].median * (double)c->nupd;
    double gups = (double)c->nupd * bench.size / t * 1e-9;
    bench_csv_row("%d,%s,%llu,%ld,%.6f,%.6f,%.6f,%ld", bench.size, v[j].name,
                  (unsigned long long)c->ntotal, c->nupd * bench.size, t,
                  res[j].min * (double)c->nupd, gups, err);
  }
  free(expect);
}

int main(int argc, char **argv)
{
  gups_ctx_t *c = calloc(1, sizeof *c);
  bench_variant_t v[V_COUNT];
  bench_result_t res[V_COUNT];
  if (c == NULL) return 1;
  bench_init(&argc, &argv, parse_logl, BENCH_APP_TRIALS);
  setup(c, v);
  bench_csv_header("units,variant,table_words,updates,median_s,min_s,gups,"
                   "errors");
  bench_interleave(v, V_COUNT, c->nupd, 0.0, res);
  report(c, v, res);
  MPI_Win_unlock_all(c->win);
  MPI_Win_free(&c->win);
  if (v[V_DART].enabled) dart_team_memfree(c->dseg);
#ifdef BENCH_HAVE_SHMEM
  shmem_free(c->stab);
#endif
  free(c);
  bench_finalize();
  return 0;
}
