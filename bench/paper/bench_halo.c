/*
 * bench_halo.c — nearest-neighbour halo exchange after Thakur, Gropp and
 * Toonen (002, Fig. 1, Tables 1-2): the units form a periodic 2-D grid
 * (MPI_Dims_create) and every step each unit sends n bytes to each of its
 * four neighbours. Versions:
 *   p2p    MPI_Irecv x4, MPI_Isend x4, MPI_Waitall
 *   fence  MPI_Win_fence(NOPRECEDE), MPI_Put x4,
 *          MPI_Win_fence(NOSTORE|NOPUT|NOSUCCEED) (the paper's Fig. 1)
 *   pscw   MPI_Win_post/start on the neighbour group, MPI_Put x4,
 *          MPI_Win_complete/wait
 *   lock   per neighbour MPI_Win_lock(shared), MPI_Put, MPI_Win_unlock;
 *          then MPI_Barrier so that targets know their halo arrived
 *   dart   dart_put x4, dart_flush_all, then a notification flag per
 *          neighbour (the step number, put by DART and flushed); each unit
 *          waits until its four flags show the step. DART's data slots
 *          are double-buffered by step parity, so a unit cannot overwrite
 *          a halo its neighbour has not finished waiting for.
 * MPI windows come from MPI_Win_allocate (one per version). After the
 * trials every received slot is checked byte by byte.
 *
 * CSV: units,size,variant,iters,median_us,min_us,mad_us,check
 */
#include "bench_common.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

enum { V_P2P, V_FENCE, V_PSCW, V_LOCK, V_DART, V_COUNT };
static const char *vname[V_COUNT] = {"p2p", "fence", "pscw", "lock", "dart"};

#define NDIR 4
#define MAX_SIZE ((size_t)256 << 10)
#define FLAGS_BYTES 64 /* DART segment: 4 int64 flags, then the data */

typedef struct {
  size_t n;            /* bytes per neighbour this round       */
  int nbr[NDIR];       /* left, right, down, up (periodic)     */
  char *sbuf;          /* NDIR slots of MAX_SIZE               */
  char *rbuf;          /* p2p receive slots                    */
  char *wbuf[V_COUNT]; /* window memory of fence/pscw/lock     */
  MPI_Win win[V_COUNT];
  MPI_Group nbr_group;
  dart_gptr_t dseg; /* flags + 2 parities x NDIR slots      */
  char *dbase;      /* this unit's part of dseg             */
  int64_t step;     /* DART steps done (never reset)        */
} halo_ctx_t;

static int opp(int d)
{
  return d ^ 1;
}

static double run_p2p(void *p, long iters)
{
  halo_ctx_t *c = p;
  MPI_Request req[2 * NDIR];
  MPI_Status st[2 * NDIR]; /* not MPI_STATUSES_IGNORE: gcc 12 misreads it */
  int rc = MPI_SUCCESS, n = (int)c->n;
  double t0 = bench_now();
  for (long it = 0; it < iters; it++) {
    for (int s = 0; s < NDIR; s++)
      rc |= MPI_Irecv(c->rbuf + s * MAX_SIZE, n, MPI_BYTE, c->nbr[s], s,
                      MPI_COMM_WORLD, &req[s]);
    for (int d = 0; d < NDIR; d++)
      rc |= MPI_Isend(c->sbuf + d * MAX_SIZE, n, MPI_BYTE, c->nbr[d], opp(d),
                      MPI_COMM_WORLD, &req[NDIR + d]);
    rc |= MPI_Waitall(2 * NDIR, req, st);
  }
  double t1 = bench_now();
  return rc == MPI_SUCCESS ? t1 - t0 : -1.0;
}

/* The four puts of one step into window w. */
static int put4(const halo_ctx_t *c, MPI_Win w)
{
  int rc = MPI_SUCCESS, n = (int)c->n;
  for (int d = 0; d < NDIR; d++)
    rc |= MPI_Put(c->sbuf + d * MAX_SIZE, n, MPI_BYTE, c->nbr[d],
                  (MPI_Aint)opp(d) * (MPI_Aint)MAX_SIZE, n, MPI_BYTE, w);
  return rc;
}

static double run_fence(void *p, long iters)
{
  halo_ctx_t *c = p;
  MPI_Win w = c->win[V_FENCE];
  int rc = MPI_SUCCESS;
  double t0 = bench_now();
  for (long it = 0; it < iters; it++) {
    rc |= MPI_Win_fence(MPI_MODE_NOPRECEDE, w);
    rc |= put4(c, w);
    rc |= MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED,
                        w);
  }
  double t1 = bench_now();
  return rc == MPI_SUCCESS ? t1 - t0 : -1.0;
}

static double run_pscw(void *p, long iters)
{
  halo_ctx_t *c = p;
  MPI_Win w = c->win[V_PSCW];
  int rc = MPI_SUCCESS;
  double t0 = bench_now();
  for (long it = 0; it < iters; it++) {
    rc |= MPI_Win_post(c->nbr_group, 0, w);
    rc |= MPI_Win_start(c->nbr_group, 0, w);
    rc |= put4(c, w);
    rc |= MPI_Win_complete(w);
    rc |= MPI_Win_wait(w);
  }
  double t1 = bench_now();
  return rc == MPI_SUCCESS ? t1 - t0 : -1.0;
}

static double run_lock(void *p, long iters)
{
  halo_ctx_t *c = p;
  MPI_Win w = c->win[V_LOCK];
  int rc = MPI_SUCCESS, n = (int)c->n;
  double t0 = bench_now();
  for (long it = 0; it < iters; it++) {
    for (int d = 0; d < NDIR; d++) {
      rc |= MPI_Win_lock(MPI_LOCK_SHARED, c->nbr[d], 0, w);
      rc |= MPI_Put(c->sbuf + d * MAX_SIZE, n, MPI_BYTE, c->nbr[d],
                    (MPI_Aint)opp(d) * (MPI_Aint)MAX_SIZE, n, MPI_BYTE, w);
      rc |= MPI_Win_unlock(c->nbr[d], w);
    }
    rc |= MPI_Barrier(MPI_COMM_WORLD);
  }
  double t1 = bench_now();
  return rc == MPI_SUCCESS ? t1 - t0 : -1.0;
}

/* DART segment layout: flags at 0, then parity x direction slots. */
static dart_gptr_t dart_at(const halo_ctx_t *c, int unit, size_t off)
{
  dart_gptr_t g = c->dseg;
  g.unitid = unit;
  g.addr_or_offs.offset = off;
  return g;
}

static size_t slot_off(int parity, int s)
{
  return FLAGS_BYTES + ((size_t)parity * NDIR + (size_t)s) * MAX_SIZE;
}

/* Waits (yielding) until all own flags show at least `step`; gives up
 * with an error after FLAG_TIMEOUT seconds so that a broken DART cannot
 * hang the suite. */
#define FLAG_TIMEOUT 10.0
static int wait_flags(const halo_ctx_t *c, int64_t step)
{
  const int64_t *flags = (const int64_t *)(const void *)c->dbase;
  double deadline = 0.0;
  for (int s = 0; s < NDIR; s++) {
    long spins = 0;
    while (__atomic_load_n(&flags[s], __ATOMIC_ACQUIRE) < step) {
      if (++spins < 64) continue;
      /* Then poll through DART, as DASH does: where units of other nodes
       * reach this memory by MPI RMA over a network without RDMA (UCX
       * over TCP), their puts complete only while this unit drives MPI,
       * and DART's owner-side access does (docs/design.md, docs/multihost.md).
       */
      int64_t seen;
      dart_get_blocking(&seen, dart_at(c, bench.rank, (size_t)s * sizeof seen),
                        1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG);
      sched_yield();
      if (deadline == 0.0) deadline = bench_now() + FLAG_TIMEOUT;
      if ((spins & 1023) == 0 && bench_now() > deadline) return DART_ERR_OTHER;
    }
  }
  return DART_OK;
}

static double run_dart(void *p, long iters)
{
  halo_ctx_t *c = p;
  int rc = DART_OK;
  double t0 = bench_now();
  for (long it = 0; it < iters; it++) {
    int64_t step = ++c->step;
    int par = (int)(step & 1);
    for (int d = 0; d < NDIR; d++)
      rc |= dart_put(dart_at(c, c->nbr[d], slot_off(par, opp(d))),
                     c->sbuf + d * MAX_SIZE, c->n, DART_TYPE_BYTE,
                     DART_TYPE_BYTE);
    rc |= dart_flush_all(c->dseg);
    for (int d = 0; d < NDIR; d++)
      rc |= dart_put(dart_at(c, c->nbr[d], (size_t)opp(d) * sizeof step), &step,
                     1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG);
    rc |= dart_flush_all(c->dseg);
    if (rc != DART_OK) break; /* the neighbours time out in wait_flags */
    rc |= wait_flags(c, step);
  }
  double t1 = bench_now();
  return rc == DART_OK ? t1 - t0 : -1.0;
}

/* Checks that slot s of `slots` holds what neighbour s sent. */
static int check_slots(const halo_ctx_t *c, const char *slots)
{
  for (int s = 0; s < NDIR; s++) {
    char want = (char)((c->nbr[s] + 1) * 16 + opp(s));
    for (size_t i = 0; i < c->n; i++)
      if (slots[s * MAX_SIZE + i] != want) return 0;
  }
  return 1;
}

static const char *received(halo_ctx_t *c, int v)
{
  switch (v) {
  case V_P2P: return c->rbuf;
  case V_DART: return c->dbase + slot_off((int)(c->step & 1), 0);
  case V_LOCK:
    /* Passive-target updates become visible to loads after a sync. */
    MPI_Win_lock(MPI_LOCK_SHARED, bench.rank, 0, c->win[V_LOCK]);
    MPI_Win_sync(c->win[V_LOCK]);
    MPI_Win_unlock(bench.rank, c->win[V_LOCK]);
    return c->wbuf[v];
  default: return c->wbuf[v];
  }
}

static void neighbours(halo_ctx_t *c)
{
  int dims[2] = {0, 0};
  MPI_Dims_create(bench.size, 2, dims);
  int x = bench.rank / dims[1], y = bench.rank % dims[1];
  c->nbr[0] = ((x + dims[0] - 1) % dims[0]) * dims[1] + y;
  c->nbr[1] = ((x + 1) % dims[0]) * dims[1] + y;
  c->nbr[2] = x * dims[1] + (y + dims[1] - 1) % dims[1];
  c->nbr[3] = x * dims[1] + (y + 1) % dims[1];
  int uniq[NDIR], nu = 0;
  for (int d = 0; d < NDIR; d++) {
    int seen = 0;
    for (int k = 0; k < nu; k++) seen |= uniq[k] == c->nbr[d];
    if (!seen) uniq[nu++] = c->nbr[d];
  }
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, nu, uniq, &c->nbr_group);
  MPI_Group_free(&world);
}

static int setup_dart(halo_ctx_t *c)
{
  if (!bench.have_dart) return 0;
  size_t bytes = slot_off(2, 0);
  int ok = dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE,
                                      &c->dseg) == DART_OK;
  if (ok) {
    ok = dart_gptr_getaddr(dart_at(c, bench.rank, 0), (void **)&c->dbase) ==
             DART_OK &&
         c->dbase != NULL;
    if (ok) memset(c->dbase, 0, bytes);
  }
  ok = bench_all_ok(ok);
  return ok && dart_barrier(DART_TEAM_ALL) == DART_OK;
}

static void setup(halo_ctx_t *c, bench_variant_t *v)
{
  neighbours(c);
  c->sbuf = malloc(NDIR * MAX_SIZE);
  c->rbuf = calloc(NDIR, MAX_SIZE);
  if (c->sbuf == NULL || c->rbuf == NULL) bench_die("out of memory");
  for (int d = 0; d < NDIR; d++)
    memset(c->sbuf + d * MAX_SIZE, (bench.rank + 1) * 16 + d, MAX_SIZE);
  for (int j = V_FENCE; j <= V_LOCK; j++) {
    if (MPI_Win_allocate((MPI_Aint)(NDIR * MAX_SIZE), 1, MPI_INFO_NULL,
                         MPI_COMM_WORLD, &c->wbuf[j],
                         &c->win[j]) != MPI_SUCCESS)
      bench_die("MPI_Win_allocate failed");
    MPI_Win_set_errhandler(c->win[j], MPI_ERRORS_RETURN);
    memset(c->wbuf[j], 0, NDIR * MAX_SIZE);
  }
  double (*fn[V_COUNT])(void *, long) = {run_p2p, run_fence, run_pscw, run_lock,
                                         run_dart};
  for (int j = 0; j < V_COUNT; j++)
    v[j] = (bench_variant_t){vname[j], fn[j], c, 1};
  v[V_DART].enabled = setup_dart(c);
}

static void run_size(halo_ctx_t *c, bench_variant_t *v, size_t n)
{
  bench_result_t res[V_COUNT];
  size_t budget = bench.quick ? ((size_t)8 << 20) : ((size_t)256 << 20);
  long iters = (long)(budget / (NDIR * n));
  long hi = bench.quick ? 50 : 100;
  iters = iters > hi ? hi : (iters < 4 ? 4 : iters);
  c->n = n;
  bench_interleave(v, V_COUNT, iters, BENCH_CALL_BUDGET, res);
  for (int j = 0; j < V_COUNT; j++) {
    if (!v[j].enabled || !res[j].ok) {
      if (v[j].enabled) bench_csv_row("#status_%s_%zu=FAILED", vname[j], n);
      continue;
    }
    int ok = bench_all_ok(check_slots(c, received(c, j)));
    bench_csv_row("%d,%zu,%s,%ld,%.6f,%.6f,%.6f,%s", bench.size, n, vname[j],
                  res[j].iters, res[j].median * 1e6, res[j].min * 1e6,
                  res[j].mad * 1e6, ok ? "ok" : "FAILED");
  }
}

int main(int argc, char **argv)
{
  static const size_t sizes[] = {16, 64, 256, 1024, 16384, 65536, 262144};
  halo_ctx_t c;
  bench_variant_t v[V_COUNT];
  memset(&c, 0, sizeof c);
  bench_init(&argc, &argv, NULL, BENCH_MICRO_TRIALS);
  setup(&c, v);
  bench_csv_header("units,size,variant,iters,median_us,min_us,mad_us,check");
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++)
    run_size(&c, v, sizes[k]);
  for (int j = V_FENCE; j <= V_LOCK; j++) MPI_Win_free(&c.win[j]);
  MPI_Group_free(&c.nbr_group);
  if (v[V_DART].enabled) dart_team_memfree(c.dseg);
  free(c.sbuf);
  free(c.rbuf);
  bench_finalize();
  return 0;
}
