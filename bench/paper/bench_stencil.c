/*
 * bench_stencil.c — five-point 2-D stencil, as in Fig. 6 of the MPI-3
 * shared-memory paper (001): DART vs MPI two-sided vs OpenSHMEM.
 *
 * Jacobi iteration for the Laplace equation on an N x N interior grid
 * (doubles; Dirichlet boundary 1 on the top edge, 0 elsewhere), rows
 * distributed in contiguous blocks. After every sweep each unit writes its
 * first/last interior row into the halo rows of its upper/lower neighbour:
 *   DART:   dart_put_blocking + dart_barrier;
 *   MPI:    MPI_Sendrecv up and down (two-sided, no barrier);
 *   SHMEM:  shmem_putmem + shmem_barrier_all.
 * Every CHECK sweeps the residual ||4u - sum of neighbours||_2 is computed
 * (each version gathers the units' partial sums with its own collective
 * and adds them in unit order, so all versions see the same bits); the run
 * stops when it reaches the tolerance or after the iteration limit. The
 * iteration count, final residual and sum of u must be identical across
 * versions (same arithmetic on the same data).
 *
 *   --n=N --tol=T --maxit=K   one grid instead of the default set
 *
 * CSV: units,n,tol,maxit,variant,iters,median_s,min_s,residual,checksum,
 *      match
 */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { V_DART, V_MPI, V_SHMEM, V_COUNT };

#define CHECK 20 /* sweeps between two residual checks */

typedef struct {
  int n;                 /* interior size                           */
  double tol;            /* residual to reach (0: run maxit sweeps) */
  int rows, maxrows;     /* my interior rows, maximum over units    */
  int up, down;          /* neighbour ranks, MPI_PROC_NULL at edges */
  int up_rows;           /* interior rows of the upper neighbour    */
  size_t w;              /* row length n + 2                        */
  size_t buf;            /* elements per buffer (maxrows + 2) * w   */
  double *grid[V_COUNT]; /* two buffers per version                 */
  dart_gptr_t dseg;
  double *parts;             /* one partial sum per unit                */
  double *sparts;            /* the same, symmetric (OpenSHMEM)         */
  long iters[V_COUNT];       /* sweeps done in the last run             */
  double result[V_COUNT][2]; /* residual, checksum                  */
} st_ctx_t;

/* Version-specific halo exchange (into buffer b) and sum over units. */
typedef struct {
  int (*exchange)(st_ctx_t *c, const double *dst, int b);
  int (*allsum)(st_ctx_t *c, double part, double *sum);
  int (*barrier)(void);
} st_ops_t;

static int opt_n, opt_maxit;
static double opt_tol = -1.0;

static int parse_opt(const char *arg)
{
  if (strncmp(arg, "--n=", 4) == 0)
    opt_n = atoi(arg + 4);
  else if (strncmp(arg, "--maxit=", 8) == 0)
    opt_maxit = atoi(arg + 8);
  else if (strncmp(arg, "--tol=", 6) == 0)
    opt_tol = atof(arg + 6);
  else
    return 0;
  return 1;
}

static int rows_of(int n, int r)
{
  return n / bench.size + (r < n % bench.size);
}

/* Both buffers: zero, with the fixed top boundary on unit 0. */
static void init_grid(const st_ctx_t *c, double *g)
{
  memset(g, 0, 2 * c->buf * sizeof *g);
  if (bench.rank == 0)
    for (size_t j = 0; j < c->w; j++) g[j] = g[c->buf + j] = 1.0;
}

static void sweep(const st_ctx_t *c, const double *src, double *dst)
{
  size_t w = c->w;
  for (int i = 1; i <= c->rows; i++) {
    const double *a = src + (size_t)i * w;
    double *b = dst + (size_t)i * w;
    for (int j = 1; j <= c->n; j++)
      b[j] = 0.25 * (a[j - w] + a[j + w] + a[j - 1] + a[j + 1]);
  }
}

/* This unit's squared residual (out[0]) and sum of u (out[1]) of buffer
 * g; the halos must be current. */
static void local_sums(const st_ctx_t *c, const double *g, double out[2])
{
  size_t w = c->w;
  out[0] = out[1] = 0.0;
  for (int i = 1; i <= c->rows; i++) {
    const double *a = g + (size_t)i * w;
    for (int j = 1; j <= c->n; j++) {
      double r = 4.0 * a[j] - a[j - w] - a[j + w] - a[j - 1] - a[j + 1];
      out[0] += r * r;
      out[1] += a[j];
    }
  }
}

static double sum_in_order(const double *v, int stride)
{
  double s = 0.0;
  for (int r = 0; r < bench.size; r++) s += v[r * stride];
  return s;
}

/* Final residual and checksum (untimed, same code for every version). */
static void evaluate(st_ctx_t *c, const double *g, double out[2])
{
  double loc[2], *all = malloc(2 * (size_t)bench.size * sizeof *all);
  if (all == NULL) bench_die("out of memory");
  local_sums(c, g, loc);
  MPI_Allgather(loc, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, MPI_COMM_WORLD);
  out[0] = sqrt(sum_in_order(all, 2));
  out[1] = sum_in_order(all + 1, 2);
  free(all);
}

/* The timed solver loop shared by all versions: up to n sweeps, halo
 * exchange after each, residual check every CHECK sweeps. */
static double solve(st_ctx_t *c, long n, int v, const st_ops_t *ops)
{
  double *g = c->grid[v], sums[2];
  int rc = 0, b = 0;
  long it = 0;
  init_grid(c, g);
  rc |= ops->barrier();
  double t0 = bench_now();
  while (it < n) {
    double *dst = g + (size_t)(b ^ 1) * c->buf;
    sweep(c, g + (size_t)b * c->buf, dst);
    rc |= ops->exchange(c, dst, b ^ 1);
    b ^= 1;
    if (++it % CHECK != 0 && it != n) continue;
    double r2 = 0.0;
    local_sums(c, g + (size_t)b * c->buf, sums);
    rc |= ops->allsum(c, sums[0], &r2);
    if (sqrt(r2) <= c->tol) break;
  }
  double t1 = bench_now();
  c->iters[v] = it;
  evaluate(c, g + (size_t)b * c->buf, c->result[v]);
  return rc == 0 ? t1 - t0 : -1.0;
}

/* DART halo rows of buffer b on unit u, row `row`. */
static dart_gptr_t halo_gptr(const st_ctx_t *c, int u, int b, int row)
{
  dart_gptr_t g = c->dseg;
  g.unitid = u;
  g.addr_or_offs.offset =
      ((size_t)b * c->buf + (size_t)row * c->w) * sizeof(double);
  return g;
}

static int exchange_dart(st_ctx_t *c, const double *dst, int b)
{
  int rc = DART_OK;
  if (c->up != MPI_PROC_NULL)
    rc |= dart_put_blocking(halo_gptr(c, c->up, b, c->up_rows + 1), dst + c->w,
                            c->w, DART_TYPE_DOUBLE, DART_TYPE_DOUBLE);
  if (c->down != MPI_PROC_NULL)
    rc |= dart_put_blocking(halo_gptr(c, c->down, b, 0),
                            dst + (size_t)c->rows * c->w, c->w,
                            DART_TYPE_DOUBLE, DART_TYPE_DOUBLE);
  return rc | dart_barrier(DART_TEAM_ALL);
}

static int allsum_dart(st_ctx_t *c, double part, double *sum)
{
  int rc = dart_allgather(&part, c->parts, 1, DART_TYPE_DOUBLE, DART_TEAM_ALL);
  *sum = sum_in_order(c->parts, 1);
  return rc;
}

static int sync_dart(void)
{
  return dart_barrier(DART_TEAM_ALL);
}

static double run_dart(void *p, long n)
{
  static const st_ops_t ops = {exchange_dart, allsum_dart, sync_dart};
  return solve(p, n, V_DART, &ops);
}

static int exchange_mpi(st_ctx_t *c, const double *dst, int b)
{
  int w = (int)c->w;
  double *d = (double *)dst; /* the buffer being exchanged is writable */
  (void)b;
  int rc = MPI_Sendrecv(d + w, w, MPI_DOUBLE, c->up, 0,
                        d + (size_t)(c->rows + 1) * c->w, w, MPI_DOUBLE,
                        c->down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return rc | MPI_Sendrecv(d + (size_t)c->rows * c->w, w, MPI_DOUBLE, c->down,
                           1, d, w, MPI_DOUBLE, c->up, 1, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE);
}

static int allsum_mpi(st_ctx_t *c, double part, double *sum)
{
  int rc = MPI_Allgather(&part, 1, MPI_DOUBLE, c->parts, 1, MPI_DOUBLE,
                         MPI_COMM_WORLD);
  *sum = sum_in_order(c->parts, 1);
  return rc;
}

static int sync_mpi(void)
{
  return MPI_Barrier(MPI_COMM_WORLD);
}

static double run_mpi(void *p, long n)
{
  static const st_ops_t ops = {exchange_mpi, allsum_mpi, sync_mpi};
  return solve(p, n, V_MPI, &ops);
}

#ifdef BENCH_HAVE_SHMEM
static int exchange_shmem(st_ctx_t *c, const double *dst, int b)
{
  size_t bytes = c->w * sizeof(double);
  double *d = (double *)dst; /* symmetric: same offsets on every PE */
  (void)b;
  if (c->up != MPI_PROC_NULL)
    shmem_putmem(d + (size_t)(c->up_rows + 1) * c->w, d + c->w, bytes, c->up);
  if (c->down != MPI_PROC_NULL)
    shmem_putmem(d, d + (size_t)c->rows * c->w, bytes, c->down);
  shmem_barrier_all();
  return 0;
}

static int allsum_shmem(st_ctx_t *c, double part, double *sum)
{
  for (int pe = 0; pe < bench.size; pe++)
    shmem_double_p(&c->sparts[bench.rank], part, pe);
  shmem_barrier_all();
  *sum = sum_in_order(c->sparts, 1);
  return 0;
}

static int sync_shmem(void)
{
  shmem_barrier_all();
  return 0;
}

static double run_shmem(void *p, long n)
{
  static const st_ops_t ops = {exchange_shmem, allsum_shmem, sync_shmem};
  return solve(p, n, V_SHMEM, &ops);
}
#endif

static int alloc_dart(st_ctx_t *c)
{
  if (!bench.have_dart) return 0;
  int ok = dart_team_memalloc_aligned(DART_TEAM_ALL, 2 * c->buf,
                                      DART_TYPE_DOUBLE, &c->dseg) == DART_OK;
  if (ok) {
    dart_gptr_t me = c->dseg;
    me.unitid = bench.rank;
    ok = dart_gptr_getaddr(me, (void **)&c->grid[V_DART]) == DART_OK &&
         c->grid[V_DART] != NULL;
  }
  return bench_all_ok(ok);
}

static void setup(st_ctx_t *c, bench_variant_t *v, int n, double tol)
{
  memset(c, 0, sizeof *c);
  c->n = n;
  c->tol = tol;
  c->rows = rows_of(n, bench.rank);
  c->maxrows = rows_of(n, 0);
  if (rows_of(n, bench.size - 1) < 1)
    bench_die("grid %d too small for %d units", n, bench.size);
  c->up = bench.rank > 0 ? bench.rank - 1 : MPI_PROC_NULL;
  c->down = bench.rank + 1 < bench.size ? bench.rank + 1 : MPI_PROC_NULL;
  c->up_rows = bench.rank > 0 ? rows_of(n, bench.rank - 1) : 0;
  c->w = (size_t)n + 2;
  c->buf = (size_t)(c->maxrows + 2) * c->w;
  c->grid[V_MPI] = malloc(2 * c->buf * sizeof(double));
  c->parts = malloc((size_t)bench.size * sizeof(double));
  if (c->grid[V_MPI] == NULL || c->parts == NULL) bench_die("out of memory");
  v[V_DART] = (bench_variant_t){"dart", run_dart, c, alloc_dart(c)};
  v[V_MPI] = (bench_variant_t){"mpi_p2p", run_mpi, c, 1};
  v[V_SHMEM] = (bench_variant_t){"shmem", NULL, c, 0};
#ifdef BENCH_HAVE_SHMEM
  c->grid[V_SHMEM] = shmem_malloc(2 * c->buf * sizeof(double));
  c->sparts = shmem_malloc((size_t)bench.size * sizeof(double));
  v[V_SHMEM].fn = run_shmem;
  v[V_SHMEM].enabled = c->grid[V_SHMEM] != NULL && c->sparts != NULL;
#endif
}

static void teardown(st_ctx_t *c, bench_variant_t *v)
{
  if (v[V_DART].enabled) dart_team_memfree(c->dseg);
#ifdef BENCH_HAVE_SHMEM
  shmem_free(c->grid[V_SHMEM]);
  shmem_free(c->sparts);
#endif
  free(c->grid[V_MPI]);
  free(c->parts);
}

/* Runs one grid; iterations and results must equal the MPI version's. */
static void run_grid(int n, double tol, int maxit)
{
  st_ctx_t c;
  bench_variant_t v[V_COUNT];
  bench_result_t res[V_COUNT];
  setup(&c, v, n, tol);
  bench_interleave(v, V_COUNT, maxit, 0.0, res);
  for (int j = 0; j < V_COUNT; j++) {
    if (!v[j].enabled) continue;
    if (!res[j].ok) {
      bench_csv_row("#status_%s_%d=FAILED", v[j].name, n);
      continue;
    }
    int match = c.iters[j] == c.iters[V_MPI] &&
                memcmp(c.result[j], c.result[V_MPI], sizeof c.result[j]) == 0;
    bench_csv_row("%d,%d,%g,%d,%s,%ld,%.6f,%.6f,%.17g,%.17g,%s", bench.size, n,
                  tol, maxit, v[j].name, c.iters[j], res[j].median * maxit,
                  res[j].min * maxit, c.result[j][0], c.result[j][1],
                  match ? "yes" : "NO");
  }
  teardown(&c, v);
}

int main(int argc, char **argv)
{
  bench_init(&argc, &argv, parse_opt, BENCH_APP_TRIALS);
  bench_csv_header("units,n,tol,maxit,variant,iters,median_s,min_s,residual,"
                   "checksum,match");
  if (opt_n > 0) {
    run_grid(opt_n, opt_tol >= 0 ? opt_tol : 0.0,
             opt_maxit > 0 ? opt_maxit : 100);
  } else {
    /* 64x64 runs to convergence; 1024x1024 would need millions of Jacobi
     * sweeps to converge, so it runs a fixed count with the same checks. */
    run_grid(64, bench.quick ? 1e-2 : 1e-4, 100000);
    run_grid(1024, 0.0, bench.quick ? 60 : 600);
  }
  bench_finalize();
  return 0;
}
