/*
 * bench_rma.c — low-level one-sided benchmarks between units 0 and 1.
 *
 * DART-MPI paper (000) §V: completion time of blocking put/get, initiation
 * time of non-blocking put/get and bandwidth, DART vs the same raw MPI
 * operation; MPI-3 shared-memory paper (001) Fig. 2: blocking put/get
 * latency, DART vs MPI RMA vs OpenSHMEM; plus the 8-byte fetch-and-add and
 * the memcpy / CPU-atomic floors of the one-sided targets; `flush_idle`
 * times the completion call alone (nothing outstanding). The "call"
 * variant does the floor's copy, fence or atomic inside an exported
 * function of a separate shared library (bench_floor.c): the cost of any
 * library call, against which DART's own per-call work shows.
 *
 *   --path=shm  DART's on-node path; raw MPI on an MPI_Win_allocate_shared
 *               window ("mpi") and on an MPI_Win_create window ("mpi_rma",
 *               the paper's native MPI RMA); memcpy/atomics through a
 *               shared window of their own as the floor.
 *   --path=rma  DART_SIM_NODE_SIZE=1 (every unit its own node, all traffic
 *               through MPI RMA); raw MPI on an MPI_Win_create window.
 *   --path=net  as rma, but units 0 and 1 are on different hosts as MPI
 *               sees them (scripts/multihost/dmh) and DART detects the
 *               nodes itself: the traffic crosses a real network (TCP).
 *
 * CSV: path,op,size,variant,iters,median_us,min_us,mad_us (time per
 * operation: median, minimum and median absolute deviation over trials).
 */
#include "bench_common.h"
#include "bench_floor.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
  OP_PUT_BLOCK,
  OP_GET_BLOCK,
  OP_PUT_NB,
  OP_GET_NB,
  OP_PUT_BW,
  OP_GET_BW,
  OP_FOP,
  OP_FLUSH,
  OP_COUNT
};
static const char *op_name[OP_COUNT] = {
    "put_blocking", "get_blocking", "put_nb_init", "get_nb_init",
    "put_bw",       "get_bw",       "fetch_add8",  "flush_idle"};

enum { V_DART, V_MPI, V_MPI_RMA, V_MEMCPY, V_CALL, V_SHMEM, V_COUNT };

#define MAX_SIZE ((size_t)2 << 20)
#define BYTE DART_TYPE_BYTE

typedef struct {
  int op;
  size_t size;
  char *src, *dst; /* origin buffers (MAX_SIZE each)            */
  dart_gptr_t gp;  /* unit 1's part of the DART segment          */
  dart_gptr_t seg; /* the segment as allocated (for freeing)     */
  MPI_Win win;     /* raw MPI window of the path, target rank 1  */
  MPI_Win wrma;    /* MPI_Win_create window (== win on rma path) */
  MPI_Win wfloor;  /* shared window of the memcpy floor (shm)    */
  char *winbuf;    /* memory behind the MPI_Win_create window    */
  char *peer;      /* unit 1's part of wfloor (shm path) or NULL */
  char *sym;       /* OpenSHMEM symmetric buffer                 */
} rma_ctx_t;

static int path_rma;
static const char *path_name = "shm";

static int parse_path(const char *arg)
{
  if (strcmp(arg, "--path=shm") == 0) {
    path_rma = 0;
  } else if (strcmp(arg, "--path=rma") == 0) {
    path_rma = 1;
    path_name = "rma";
    /* Read by dart_init, which runs after option parsing. */
    setenv("DART_SIM_NODE_SIZE", "1", 1);
  } else if (strcmp(arg, "--path=net") == 0) {
    path_rma = 1;
    path_name = "net";
  } else {
    return 0;
  }
  return 1;
}

/* DART: every operation on unit 1's part of a team-allocated segment. */
static double run_dart(void *p, long n)
{
  rma_ctx_t *c = p;
  dart_gptr_t g = c->gp;
  size_t m = c->size;
  long long one = 1, res = 0;
  int rc = DART_OK;
  if (bench.rank != 0) return 0.0;
  double t0 = bench_now();
  switch (c->op) {
  case OP_PUT_BLOCK:
    for (long i = 0; i < n; i++)
      rc |= dart_put_blocking(g, c->src, m, BYTE, BYTE);
    break;
  case OP_GET_BLOCK:
    for (long i = 0; i < n; i++)
      rc |= dart_get_blocking(c->dst, g, m, BYTE, BYTE);
    break;
  case OP_PUT_NB:
  case OP_PUT_BW:
    for (long i = 0; i < n; i++) rc |= dart_put(g, c->src, m, BYTE, BYTE);
    break;
  case OP_GET_NB:
  case OP_GET_BW:
    for (long i = 0; i < n; i++) rc |= dart_get(c->dst, g, m, BYTE, BYTE);
    break;
  case OP_FOP:
    for (long i = 0; i < n; i++) {
      rc |= dart_fetch_and_op(g, &one, &res, DART_TYPE_LONGLONG, DART_OP_SUM);
      rc |= dart_flush(g);
    }
    break;
  case OP_FLUSH:
    for (long i = 0; i < n; i++) rc |= dart_flush(g);
    break;
  }
  if (c->op == OP_PUT_BW || c->op == OP_GET_BW) rc |= dart_flush(g);
  double t1 = bench_now();
  if (c->op == OP_PUT_NB || c->op == OP_GET_NB) rc |= dart_flush(g);
  return rc == DART_OK ? t1 - t0 : -1.0;
}

/* Raw MPI: the same operations on rank 1 of window w (lock_all). */
static double mpi_ops(const rma_ctx_t *c, MPI_Win w, long n)
{
  int m = (int)c->size;
  long long one = 1, res = 0;
  int rc = MPI_SUCCESS;
  if (bench.rank != 0) return 0.0;
  double t0 = bench_now();
  switch (c->op) {
  case OP_PUT_BLOCK:
    for (long i = 0; i < n; i++) {
      rc |= MPI_Put(c->src, m, MPI_BYTE, 1, 0, m, MPI_BYTE, w);
      rc |= MPI_Win_flush(1, w);
    }
    break;
  case OP_GET_BLOCK:
    for (long i = 0; i < n; i++) {
      rc |= MPI_Get(c->dst, m, MPI_BYTE, 1, 0, m, MPI_BYTE, w);
      rc |= MPI_Win_flush(1, w);
    }
    break;
  case OP_PUT_NB:
  case OP_PUT_BW:
    for (long i = 0; i < n; i++)
      rc |= MPI_Put(c->src, m, MPI_BYTE, 1, 0, m, MPI_BYTE, w);
    break;
  case OP_GET_NB:
  case OP_GET_BW:
    for (long i = 0; i < n; i++)
      rc |= MPI_Get(c->dst, m, MPI_BYTE, 1, 0, m, MPI_BYTE, w);
    break;
  case OP_FOP:
    for (long i = 0; i < n; i++) {
      rc |= MPI_Fetch_and_op(&one, &res, MPI_LONG_LONG, 1, 0, MPI_SUM, w);
      rc |= MPI_Win_flush(1, w);
    }
    break;
  case OP_FLUSH:
    for (long i = 0; i < n; i++) rc |= MPI_Win_flush(1, w);
    break;
  }
  if (c->op == OP_PUT_BW || c->op == OP_GET_BW) rc |= MPI_Win_flush(1, w);
  double t1 = bench_now();
  if (c->op == OP_PUT_NB || c->op == OP_GET_NB) rc |= MPI_Win_flush(1, w);
  return rc == MPI_SUCCESS ? t1 - t0 : -1.0;
}

/* MPI on the window of the path (shared window on the shm path). */
static double run_mpi(void *p, long n)
{
  const rma_ctx_t *c = p;
  return mpi_ops(c, c->win, n);
}

/* MPI RMA on an MPI_Win_create window (the paper's "native MPI"). */
static double run_mpi_rma(void *p, long n)
{
  const rma_ctx_t *c = p;
  return mpi_ops(c, c->wrma, n);
}

/* Direction of the floor variants' copies (to, from), and whether each
 * copy is completed on its own (blocking ops). */
static int copy_plan(const rma_ctx_t *c, char **to, const char **from)
{
  int put = c->op == OP_PUT_BLOCK || c->op == OP_PUT_NB || c->op == OP_PUT_BW;
  *to = put ? c->peer : c->dst;
  *from = put ? c->src : c->peer;
  return c->op == OP_PUT_BLOCK || c->op == OP_GET_BLOCK;
}

/* The floor: load/store through a shared window, as a PGAS runtime on
 * shared memory can at best do. The signal fence only stops the compiler
 * from merging the repeated copies; the full fence (the cheapest one,
 * FLOOR_FENCE) is the completion. */
static double run_memcpy(void *p, long n)
{
  rma_ctx_t *c = p;
  size_t m = c->size;
  char *to;
  const char *from;
  int blocking = copy_plan(c, &to, &from);
  if (bench.rank != 0) return 0.0;
  double t0 = bench_now();
  if (c->op == OP_FOP) {
    for (long i = 0; i < n; i++)
      __atomic_fetch_add((long long *)(void *)c->peer, 1LL, __ATOMIC_SEQ_CST);
  } else if (c->op == OP_FLUSH) {
    for (long i = 0; i < n; i++) FLOOR_FENCE();
  } else {
    for (long i = 0; i < n; i++) {
      memcpy(to, from, m);
      if (blocking)
        FLOOR_FENCE();
      else
        atomic_signal_fence(memory_order_seq_cst);
    }
    if (c->op == OP_PUT_BW || c->op == OP_GET_BW) FLOOR_FENCE();
  }
  return bench_now() - t0;
}

/* The memcpy floor behind calls into a shared library (bench_floor.c);
 * same operations and completion as run_memcpy. */
static double run_call(void *p, long n)
{
  rma_ctx_t *c = p;
  size_t m = c->size;
  char *to;
  const char *from;
  int blocking = copy_plan(c, &to, &from);
  long long old = 0;
  int rc = 0;
  if (bench.rank != 0) return 0.0;
  double t0 = bench_now();
  if (c->op == OP_FOP) {
    for (long i = 0; i < n; i++)
      rc |= bench_floor_fetch_add((long long *)(void *)c->peer, 1LL, &old);
  } else if (c->op == OP_FLUSH) {
    for (long i = 0; i < n; i++) rc |= bench_floor_fence();
  } else {
    for (long i = 0; i < n; i++) rc |= bench_floor_copy(to, from, m, blocking);
    if (c->op == OP_PUT_BW || c->op == OP_GET_BW) rc |= bench_floor_fence();
  }
  double t = bench_now() - t0;
  return rc == 0 ? t : -1.0;
}

#ifdef BENCH_HAVE_SHMEM
/* OpenSHMEM: putmem/getmem (+_nbi) on PE 1, shmem_quiet as completion. */
static double run_shmem(void *p, long n)
{
  rma_ctx_t *c = p;
  size_t m = c->size;
  if (bench.rank != 0) return 0.0;
  double t0 = bench_now();
  switch (c->op) {
  case OP_PUT_BLOCK:
    for (long i = 0; i < n; i++) {
      shmem_putmem(c->sym, c->src, m, 1);
      shmem_quiet();
    }
    break;
  case OP_GET_BLOCK:
    for (long i = 0; i < n; i++) shmem_getmem(c->dst, c->sym, m, 1);
    break;
  case OP_PUT_NB:
  case OP_PUT_BW:
    for (long i = 0; i < n; i++) shmem_putmem_nbi(c->sym, c->src, m, 1);
    break;
  case OP_GET_NB:
  case OP_GET_BW:
    for (long i = 0; i < n; i++) shmem_getmem_nbi(c->dst, c->sym, m, 1);
    break;
  case OP_FOP:
    for (long i = 0; i < n; i++)
      (void)shmem_longlong_atomic_fetch_add((long long *)(void *)c->sym, 1, 1);
    break;
  case OP_FLUSH:
    for (long i = 0; i < n; i++) shmem_quiet();
    break;
  }
  if (c->op == OP_PUT_BW || c->op == OP_GET_BW) shmem_quiet();
  double t1 = bench_now();
  if (c->op == OP_PUT_NB || c->op == OP_GET_NB) shmem_quiet();
  return t1 - t0;
}
#endif

/* Window over malloc'd memory by MPI_Win_create, in a lock_all epoch. */
static MPI_Win create_window(rma_ctx_t *c)
{
  MPI_Win w;
  if (posix_memalign((void **)&c->winbuf, 64, MAX_SIZE) != 0)
    bench_die("out of memory");
  memset(c->winbuf, 0, MAX_SIZE);
  if (MPI_Win_create(c->winbuf, (MPI_Aint)MAX_SIZE, 1, MPI_INFO_NULL,
                     MPI_COMM_WORLD, &w) != MPI_SUCCESS)
    bench_die("MPI_Win_create failed");
  MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
  return w;
}

#define PAGE ((size_t)4096)

/* Offset of p within a 4 KiB page. */
static long page_offset(const void *p)
{
  return (long)((uintptr_t)p % PAGE);
}

/* Shared window of size bytes per rank on comm, in a lock_all epoch. */
static MPI_Win shared_window(MPI_Comm comm, size_t size)
{
  MPI_Win w;
  char *base = NULL;
  if (MPI_Win_allocate_shared((MPI_Aint)size, 1, MPI_INFO_NULL, comm, &base,
                              &w) != MPI_SUCCESS)
    bench_die("MPI_Win_allocate_shared failed");
  MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
  MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
  return w;
}

/*
 * The raw MPI windows: MPI_Win_create always; on the shm path also an
 * MPI_Win_allocate_shared window for the "mpi" variant and a second one
 * whose unit-1 memory serves the memcpy floor. The floor must not share
 * memory with another variant: MPICH (ch4) carries out MPI_Put/MPI_Get on
 * a shared window in the target process, so the "mpi" trials would leave
 * the floor's memory in the other core's cache, which changed the floor's
 * time against DART's by -35% to +65% depending on size and trial order
 * (Open MPI copies in the origin, still warming the floor's memory). Like
 * DART's portions (page-aligned, a request that is not a whole number of
 * pages), the floor starts on a page boundary whatever offset the MPI
 * gives the window (Open MPI: 264 mod 4096), so that DART and the floor
 * copy from and to the same offsets within a page.
 */
static void setup_mpi(rma_ctx_t *c)
{
  c->wrma = c->win = create_window(c);
  c->wfloor = MPI_WIN_NULL;
  if (path_rma) return;
  MPI_Comm comm;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                      &comm);
  int nr = 0;
  MPI_Comm_size(comm, &nr);
  if (nr < 2) bench_die("units 0 and 1 are not on one node");
  c->win = shared_window(comm, MAX_SIZE);
  c->wfloor = shared_window(comm, MAX_SIZE + PAGE + 64);
  MPI_Aint sz;
  int du;
  char *p = NULL;
  MPI_Win_shared_query(c->wfloor, 1, &sz, &du, &p);
  c->peer = p + (PAGE - (size_t)page_offset(p)) % PAGE;
  MPI_Comm_free(&comm);
}

static void free_windows(rma_ctx_t *c)
{
  if (c->wfloor != MPI_WIN_NULL) {
    MPI_Win_unlock_all(c->wfloor);
    MPI_Win_free(&c->wfloor);
  }
  if (c->win != c->wrma) {
    MPI_Win_unlock_all(c->win);
    MPI_Win_free(&c->win);
  }
  MPI_Win_unlock_all(c->wrma);
  MPI_Win_free(&c->wrma);
  free(c->winbuf);
}

/* Allocates the DART segment; disables DART if that fails anywhere. */
static int setup_dart(rma_ctx_t *c)
{
  if (!bench.have_dart) return 0;
  int ok = dart_team_memalloc_aligned(DART_TEAM_ALL, MAX_SIZE, BYTE, &c->seg) ==
           DART_OK;
  if (!bench_all_ok(ok)) {
    if (bench.rank == 0)
      fprintf(stderr, "bench_rma: dart_team_memalloc_aligned failed\n");
    return 0;
  }
  c->gp = c->seg;
  c->gp.unitid = 1;
  return 1;
}

/* Offsets within a page of the buffers that the on-node copies use (the
 * relative placement of source and destination matters for large copies:
 * 4K aliasing). DART's is the offset of unit 1's portion, seen by unit 1
 * (mappings are page-aligned, so it is the same in every process). */
static void report_placement(rma_ctx_t *c, int dart_ok)
{
  long dart = -1;
  if (dart_ok && bench.rank == 1) {
    dart_gptr_t g = c->gp;
    void *a = NULL;
    if (dart_gptr_getaddr(g, &a) == DART_OK && a != NULL) dart = page_offset(a);
  }
  MPI_Bcast(&dart, 1, MPI_LONG, 1, MPI_COMM_WORLD);
  bench_csv_row("#page_offset=src %ld dst %ld dart %ld memcpy %ld",
                page_offset(c->src), page_offset(c->dst), dart,
                c->peer != NULL ? page_offset(c->peer) : -1L);
}

/* Round trip of a 4 KiB pattern through one variant (unit 0 only):
 * put, clear, get, compare. Returns 1 if the data came back intact. */
static int check_variant(rma_ctx_t *c, bench_variant_t *v)
{
  int ok = 1;
  if (bench.rank == 0) {
    for (size_t i = 0; i < 4096; i++) c->src[i] = (char)(i * 7 + 1);
    memset(c->dst, 0, 4096);
    c->size = 4096;
    c->op = OP_PUT_BLOCK;
    ok = v->fn(c, 1) >= 0;
    c->op = OP_GET_BLOCK;
    ok = ok && v->fn(c, 1) >= 0 && memcmp(c->src, c->dst, 4096) == 0;
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  bench_csv_row("#check_%s=%s", v->name, ok ? "ok" : "FAILED");
  return ok;
}

/* Iterations per timed call: many for small messages, a fixed byte
 * budget for large ones. */
static long iters_for(size_t m)
{
  long hi = bench.quick ? 100 : 200;
  size_t budget = bench.quick ? ((size_t)4 << 20) : ((size_t)64 << 20);
  long n = m > 0 ? (long)(budget / m) : hi;
  if (n > hi) n = hi;
  return n < 4 ? 4 : n;
}

static void run_size(rma_ctx_t *c, bench_variant_t *v, int op, size_t m)
{
  bench_result_t res[V_COUNT];
  long n = iters_for(m);
  c->op = op;
  c->size = m;
  bench_interleave(v, V_COUNT, n, BENCH_CALL_BUDGET, res);
  for (int j = 0; j < V_COUNT; j++) {
    if (!res[j].ok) continue;
    bench_csv_row("%s,%s,%zu,%s,%ld,%.6f,%.6f,%.6f", path_name, op_name[op], m,
                  v[j].name, res[j].iters, res[j].median * 1e6,
                  res[j].min * 1e6, res[j].mad * 1e6);
  }
}

static void run_all(rma_ctx_t *c, bench_variant_t *v)
{
  static const size_t quick_sizes[] = {1,     8,     64,     1024,
                                       16384, 65536, 262144, 2097152};
  for (int op = 0; op < OP_COUNT; op++) {
    if (op == OP_FOP || op == OP_FLUSH) {
      run_size(c, v, op, op == OP_FOP ? 8 : 0);
      continue;
    }
    if (bench.quick) {
      for (size_t k = 0; k < sizeof quick_sizes / sizeof *quick_sizes; k++)
        run_size(c, v, op, quick_sizes[k]);
    } else {
      for (size_t m = 1; m <= MAX_SIZE; m *= 2) run_size(c, v, op, m);
    }
  }
}

int main(int argc, char **argv)
{
  rma_ctx_t c;
  memset(&c, 0, sizeof c);
  bench_init(&argc, &argv, parse_path, BENCH_MICRO_TRIALS);
  if (bench.size < 2) bench_die("bench_rma needs at least 2 units");
  if (strcmp(path_name, "net") == 0) {
    MPI_Comm node;
    int peers = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &node);
    MPI_Comm_size(node, &peers);
    MPI_Comm_free(&node);
    if (!bench_all_ok(bench.rank > 1 || peers == 1))
      bench_die("--path=net needs units 0 and 1 alone on their hosts");
  }
  c.src = calloc(1, MAX_SIZE);
  c.dst = calloc(1, MAX_SIZE);
  if (c.src == NULL || c.dst == NULL) bench_die("out of memory");
  setup_mpi(&c);
  int dart_ok = setup_dart(&c);
  bench_variant_t v[V_COUNT] = {
      {"dart", run_dart, &c, dart_ok},
      {"mpi", run_mpi, &c, 1},
      {"mpi_rma", run_mpi_rma, &c, !path_rma},
      {"memcpy", run_memcpy, &c, !path_rma},
      {"call", run_call, &c, !path_rma},
      {"shmem", NULL, &c, 0},
  };
#ifdef BENCH_HAVE_SHMEM
  c.sym = shmem_malloc(MAX_SIZE);
  v[V_SHMEM].fn = run_shmem;
  v[V_SHMEM].enabled = !path_rma && c.sym != NULL;
#endif
  bench_csv_header("path,op,size,variant,iters,median_us,min_us,mad_us");
  bench_csv_row("#units=%d", bench.size);
  if (!path_rma) report_placement(&c, dart_ok);
  for (int j = 0; j < V_COUNT; j++)
    if (v[j].enabled) v[j].enabled = check_variant(&c, &v[j]);
  run_all(&c, v);
  free_windows(&c);
  if (dart_ok) dart_team_memfree(c.seg);
#ifdef BENCH_HAVE_SHMEM
  shmem_free(c.sym);
#endif
  free(c.src);
  free(c.dst);
  bench_finalize();
  return 0;
}
