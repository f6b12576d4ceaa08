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
 * A fixed iteration count is run; afterwards the residual
 * ||4u - sum of neighbours||_2 and the sum of u are computed and must be
 * bit-identical across the versions (same arithmetic on the same data).
 *
 *   --n=N --iters=K   one grid instead of the default 64x64 and 1024x1024
 *
 * CSV: units,n,iters,variant,median_s,min_s,residual,checksum,match
 */
#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { V_DART, V_MPI, V_SHMEM, V_COUNT };

typedef struct {
  int n, iters;          /* interior size, iterations               */
  int rows, maxrows;     /* my interior rows, maximum over units    */
  int up, down;          /* neighbour ranks, MPI_PROC_NULL at edges */
  int up_rows;           /* interior rows of the upper neighbour    */
  size_t w;              /* row length n + 2                        */
  size_t buf;            /* elements per buffer (maxrows + 2) * w   */
  double *grid[V_COUNT]; /* two buffers per version                 */
  dart_gptr_t dseg;
  double result[V_COUNT][2]; /* residual, checksum                 */
} st_ctx_t;

static int opt_n, opt_iters;

static int parse_opt(const char *arg)
{
  if (strncmp(arg, "--n=", 4) == 0)
    opt_n = atoi(arg + 4);
  else if (strncmp(arg, "--iters=", 8) == 0)
    opt_iters = atoi(arg + 8);
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

/* Residual and checksum of buffer g (halos must be current). */
static void evaluate(const st_ctx_t *c, const double *g, double out[2])
{
  double loc[2] = {0.0, 0.0};
  size_t w = c->w;
  for (int i = 1; i <= c->rows; i++) {
    const double *a = g + (size_t)i * w;
    for (int j = 1; j <= c->n; j++) {
      double r = 4.0 * a[j] - a[j - w] - a[j + w] - a[j - 1] - a[j + 1];
      loc[0] += r * r;
      loc[1] += a[j];
    }
  }
  MPI_Allreduce(loc, out, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  out[0] = sqrt(out[0]);
}

/* DART halo rows of buffer b on unit u: top halo (row 0) / bottom halo. */
static dart_gptr_t halo_gptr(const st_ctx_t *c, int u, int b, int row)
{
  dart_gptr_t g = c->dseg;
  g.unitid = u;
  g.addr_or_offs.offset =
      ((size_t)b * c->buf + (size_t)row * c->w) * sizeof(double);
  return g;
}

static double run_dart(void *p, long n)
{
  st_ctx_t *c = p;
  double *g = c->grid[V_DART];
  int rc = DART_OK, b = 0;
  init_grid(c, g);
  rc |= dart_barrier(DART_TEAM_ALL);
  double t0 = bench_now();
  for (long it = 0; it < n; it++, b ^= 1) {
    double *dst = g + (size_t)(b ^ 1) * c->buf;
    sweep(c, g + (size_t)b * c->buf, dst);
    if (c->up != MPI_PROC_NULL)
      rc |= dart_put_blocking(halo_gptr(c, c->up, b ^ 1, c->up_rows + 1),
                              dst + c->w, c->w, DART_TYPE_DOUBLE,
                              DART_TYPE_DOUBLE);
    if (c->down != MPI_PROC_NULL)
      rc |= dart_put_blocking(halo_gptr(c, c->down, b ^ 1, 0),
                              dst + (size_t)c->rows * c->w, c->w,
                              DART_TYPE_DOUBLE, DART_TYPE_DOUBLE);
    rc |= dart_barrier(DART_TEAM_ALL);
  }
  double t1 = bench_now();
  evaluate(c, g + (size_t)b * c->buf, c->result[V_DART]);
  return rc == DART_OK ? t1 - t0 : -1.0;
}

static double run_mpi(void *p, long n)
{
  st_ctx_t *c = p;
  double *g = c->grid[V_MPI];
  int rc = MPI_SUCCESS, b = 0, w = (int)c->w;
  init_grid(c, g);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = bench_now();
  for (long it = 0; it < n; it++, b ^= 1) {
    double *dst = g + (size_t)(b ^ 1) * c->buf;
    sweep(c, g + (size_t)b * c->buf, dst);
    rc |= MPI_Sendrecv(dst + w, w, MPI_DOUBLE, c->up, 0,
                       dst + (size_t)(c->rows + 1) * c->w, w, MPI_DOUBLE,
                       c->down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    rc |= MPI_Sendrecv(dst + (size_t)c->rows * c->w, w, MPI_DOUBLE, c->down, 1,
                       dst, w, MPI_DOUBLE, c->up, 1, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
  }
  double t1 = bench_now();
  evaluate(c, g + (size_t)b * c->buf, c->result[V_MPI]);
  return rc == MPI_SUCCESS ? t1 - t0 : -1.0;
}

#ifdef BENCH_HAVE_SHMEM
static double run_shmem(void *p, long n)
{
  st_ctx_t *c = p;
  double *g = c->grid[V_SHMEM];
  int b = 0;
  size_t bytes = c->w * sizeof(double);
  init_grid(c, g);
  shmem_barrier_all();
  double t0 = bench_now();
  for (long it = 0; it < n; it++, b ^= 1) {
    double *dst = g + (size_t)(b ^ 1) * c->buf;
    sweep(c, g + (size_t)b * c->buf, dst);
    if (c->up != MPI_PROC_NULL)
      shmem_putmem(dst + (size_t)(c->up_rows + 1) * c->w, dst + c->w, bytes,
                   c->up);
    if (c->down != MPI_PROC_NULL)
      shmem_putmem(dst, dst + (size_t)c->rows * c->w, bytes, c->down);
    shmem_barrier_all();
  }
  double t1 = bench_now();
  evaluate(c, g + (size_t)b * c->buf, c->result[V_SHMEM]);
  return t1 - t0;
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

static void setup(st_ctx_t *c, bench_variant_t *v, int n, int iters)
{
  memset(c, 0, sizeof *c);
  c->n = n;
  c->iters = iters;
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
  if (c->grid[V_MPI] == NULL) bench_die("out of memory");
  v[V_DART] = (bench_variant_t){"dart", run_dart, c, alloc_dart(c)};
  v[V_MPI] = (bench_variant_t){"mpi_p2p", run_mpi, c, 1};
  v[V_SHMEM] = (bench_variant_t){"shmem", NULL, c, 0};
#ifdef BENCH_HAVE_SHMEM
  c->grid[V_SHMEM] = shmem_malloc(2 * c->buf * sizeof(double));
  v[V_SHMEM].fn = run_shmem;
  v[V_SHMEM].enabled = c->grid[V_SHMEM] != NULL;
#endif
}

static void teardown(st_ctx_t *c, bench_variant_t *v)
{
  if (v[V_DART].enabled) dart_team_memfree(c->dseg);
#ifdef BENCH_HAVE_SHMEM
  shmem_free(c->grid[V_SHMEM]);
#endif
  free(c->grid[V_MPI]);
}

/* Runs one grid size; every version's result must equal the MPI one. */
static void run_grid(int n, int iters)
{
  st_ctx_t c;
  bench_variant_t v[V_COUNT];
  bench_result_t res[V_COUNT];
  setup(&c, v, n, iters);
  bench_interleave(v, V_COUNT, iters, res);
  for (int j = 0; j < V_COUNT; j++) {
    if (!v[j].enabled) continue;
    if (!res[j].ok) {
      bench_csv_row("#status_%s_%d=FAILED", v[j].name, n);
      continue;
    }
    int match = memcmp(c.result[j], c.result[V_MPI], sizeof c.result[j]) == 0;
    bench_csv_row("%d,%d,%d,%s,%.6f,%.6f,%.17g,%.17g,%s", bench.size, n, iters,
                  v[j].name, res[j].median * iters, res[j].min * iters,
                  c.result[j][0], c.result[j][1], match ? "yes" : "NO");
  }
  teardown(&c, v);
}

int main(int argc, char **argv)
{
  bench_init(&argc, &argv, parse_opt);
  bench_csv_header("units,n,iters,variant,median_s,min_s,residual,checksum,"
                   "match");
  if (opt_n > 0) {
    run_grid(opt_n, opt_iters > 0 ? opt_iters : 100);
  } else {
    run_grid(64, bench.quick ? 500 : 5000);
    run_grid(1024, bench.quick ? 50 : 500);
  }
  bench_finalize();
  return 0;
}
