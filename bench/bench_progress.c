/*
 * Latency of one-sided operations on a unit that computes outside DART.
 *
 * Unit 0 runs a compute loop that never enters DART or MPI; every other
 * unit times single blocking operations on unit 0's memory meanwhile:
 * put, get, fetch-and-op and accumulate, each complete (flushed) at the
 * end of the timed interval. Each DART operation is paired with the same
 * operation in raw MPI (MPI_Put/Get/Fetch_and_op/Accumulate + MPI_Win_flush
 * on an MPI_Win_create window over private memory in a lock_all epoch),
 * alternating which goes first, so both see the same machine state. The
 * raw window gets the same help from DART's progress thread (it drives
 * the MPI progress engine of the whole process), so the ratio shows what
 * DART adds on top of the MPI.
 *
 * Memory: "allocated" (dart_team_memalloc_aligned) and "registered"
 * (dart_team_memregister of a malloc'ed buffer). Run with
 * DART_SIM_NODE_SIZE=1 for the paths between nodes.
 *
 * Output: median, 99th percentile and maximum per operation over the
 * samples of all origins; CSV with --out.
 *
 * --only=dart or --only=mpi times one side alone (no pairing; for
 * diagnosis: the other side's waits change when the progress thread runs).
 *
 * usage: bench_progress [--quick] [--out=FILE.csv] [--seconds=S]
 *                       [--only=dart|mpi]
 */
#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

enum { OP_PUT, OP_GET, OP_FOP, OP_ACC, NOPS };
enum { MAXS = 4096, SLOTS = 64 };
static const char *const op_name[NOPS] = {"put", "get", "fetch_and_op",
                                          "accumulate"};

static int me, nunits;
static MPI_Comm comm;
static int only; /* 0: both, 1: DART only, 2: raw MPI only (--only=) */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Samples of one (operation, implementation), in seconds. */
typedef struct {
  double v[MAXS];
  int n;
} samples_t;

static samples_t dart_s[NOPS], mpi_s[NOPS];

static void record(samples_t *s, double t)
{
  if (s->n < MAXS) s->v[s->n++] = t;
}

/* One timed DART operation on unit 0's slot / counter of g. */
static double dart_op(dart_gptr_t g, int op, long v)
{
  long got = -1, one = 1, old = 0;
  dart_gptr_t slot = g, ctr = g;
  slot.unitid = ctr.unitid = 0;
  slot.addr_or_offs.offset += (uint64_t)me * sizeof(long);
  ctr.addr_or_offs.offset += SLOTS * sizeof(long);
  double t0 = now();
  switch (op) {
  case OP_PUT:
    BENCH_CHECK(dart_put_blocking(slot, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    break;
  case OP_GET:
    BENCH_CHECK(
        dart_get_blocking(&got, slot, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    break;
  case OP_FOP:
    BENCH_CHECK(
        dart_fetch_and_op(ctr, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
    break;
  default:
    BENCH_CHECK(dart_accumulate(ctr, &one, 1, DART_TYPE_LONG, DART_OP_SUM));
    BENCH_CHECK(dart_flush(ctr));
  }
  double t = now() - t0;
  if (op == OP_GET && got != v) { /* the value this round's put wrote */
    fprintf(stderr, "bench_progress: unit %d read %ld, expected %ld\n", me, got,
            v);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return t;
}

/* The same operation in raw MPI on win (unit 0's memory at displacement 0). */
static double mpi_op(MPI_Win win, int op, long v)
{
  long got = -1, one = 1, old = 0;
  MPI_Aint slot = (MPI_Aint)me * (MPI_Aint)sizeof(long);
  MPI_Aint ctr = SLOTS * (MPI_Aint)sizeof(long);
  double t0 = now();
  switch (op) {
  case OP_PUT:
    BENCH_CHECK(MPI_Put(&v, 1, MPI_LONG, 0, slot, 1, MPI_LONG, win));
    break;
  case OP_GET:
    BENCH_CHECK(MPI_Get(&got, 1, MPI_LONG, 0, slot, 1, MPI_LONG, win));
    break;
  case OP_FOP:
    BENCH_CHECK(MPI_Fetch_and_op(&one, &old, MPI_LONG, 0, ctr, MPI_SUM, win));
    break;
  default:
    BENCH_CHECK(
        MPI_Accumulate(&one, 1, MPI_LONG, 0, ctr, 1, MPI_LONG, MPI_SUM, win));
  }
  BENCH_CHECK(MPI_Win_flush(0, win));
  double t = now() - t0;
  if (op == OP_GET && got != v) {
    fprintf(stderr, "bench_progress: unit %d read %ld (MPI), expected %ld\n",
            me, got, v);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return t;
}

/* Unit 0: compute for `seconds` without entering DART or MPI. */
static void compute(double seconds)
{
  volatile double x = 1;
  double t0 = now();
  while (now() - t0 < seconds)
    for (int i = 0; i < 100000; i++) x = x * 1.0000001 + 1e-9;
}

/* Origins: pairs of timed operations until `budget` seconds have passed. */
static void origin_loop(dart_gptr_t g, MPI_Win win, double budget)
{
  double t0 = now();
  long v = me;
  for (int round = 0; now() - t0 < budget; round++) {
    v += 1000; /* put writes v, the get after it reads it back */
    for (int op = 0; op < NOPS; op++) {
      if (only == 1) {
        record(&dart_s[op], dart_op(g, op, v));
      } else if (only == 2) {
        record(&mpi_s[op], mpi_op(win, op, v));
      } else if (round & 1) {
        record(&dart_s[op], dart_op(g, op, v));
        record(&mpi_s[op], mpi_op(win, op, v));
      } else {
        record(&mpi_s[op], mpi_op(win, op, v));
        record(&dart_s[op], dart_op(g, op, v));
      }
    }
    if (dart_s[NOPS - 1].n == MAXS || mpi_s[NOPS - 1].n == MAXS) break;
  }
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* All origins' samples of s at unit 0 (sorted into all, count returned). */
static int gather(const samples_t *s, double *all)
{
  int n = (me == 0) ? 0 : s->n;
  int *counts = malloc(sizeof(int) * (size_t)nunits);
  int *displs = malloc(sizeof(int) * (size_t)nunits);
  BENCH_CHECK(counts == NULL || displs == NULL);
  BENCH_CHECK(MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, comm));
  int total = 0;
  if (me == 0)
    for (int u = 0; u < nunits; u++) {
      displs[u] = total;
      total += counts[u];
    }
  BENCH_CHECK(MPI_Gatherv(s->v, n, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE,
                          0, comm));
  free(counts);
  free(displs);
  if (me == 0) qsort(all, (size_t)total, sizeof(double), cmp_double);
  return total;
}

static double pct(const double *v, int n, double p)
{
  if (n == 0) return 0;
  int i = (int)(p * (double)(n - 1) + 0.5);
  return v[i];
}

/* Gathers, prints and writes one memory kind's results. */
static void report(const char *kind, FILE *out)
{
  double *a = malloc(sizeof(double) * (size_t)MAXS * (size_t)nunits);
  double *b = malloc(sizeof(double) * (size_t)MAXS * (size_t)nunits);
  BENCH_CHECK(a == NULL || b == NULL);
  for (int op = 0; op < NOPS; op++) {
    int na = gather(&dart_s[op], a), nb = gather(&mpi_s[op], b);
    if (me != 0) continue;
    if (na == 0) na = 1, a[0] = 0; /* a side not run (--only) */
    if (nb == 0) nb = 1, b[0] = 0;
    double d50 = pct(a, na, .5), d99 = pct(a, na, .99), dmx = pct(a, na, 1);
    double m50 = pct(b, nb, .5), m99 = pct(b, nb, .99), mmx = pct(b, nb, 1);
    printf("%-10s %-12s %5d   %8.1f %8.1f %8.1f   %8.1f %8.1f %8.1f   %5.2f "
           "%5.2f\n",
           kind, op_name[op], na, 1e6 * d50, 1e6 * d99, 1e6 * dmx, 1e6 * m50,
           1e6 * m99, 1e6 * mmx, d50 / m50, d99 / m99);
    if (out)
      fprintf(out, "%s,%s,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", kind,
              op_name[op], na, 1e6 * d50, 1e6 * d99, 1e6 * dmx, 1e6 * m50,
              1e6 * m99, 1e6 * mmx);
  }
  free(a);
  free(b);
}

/*
 * Data check after a measurement: unit 0's counters (DART's in g, raw
 * MPI's in raw[SLOTS], which accumulates over measurements) hold one per
 * fetch-and-op and accumulate of every origin.
 */
static void check_counters(dart_gptr_t g, const long *raw)
{
  static long raw_expected;
  long mine[2] = {dart_s[OP_FOP].n + dart_s[OP_ACC].n,
                  mpi_s[OP_FOP].n + mpi_s[OP_ACC].n};
  long all[2] = {0, 0}, ctr = -1;
  BENCH_CHECK(MPI_Reduce(mine, all, 2, MPI_LONG, MPI_SUM, 0, comm));
  raw_expected += all[1];
  if (me != 0) return;
  g.unitid = 0;
  g.addr_or_offs.offset += SLOTS * sizeof(long);
  BENCH_CHECK(dart_get_blocking(&ctr, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
  if (ctr != all[0] || raw[SLOTS] != raw_expected) {
    fprintf(stderr,
            "bench_progress: counters %ld (DART) and %ld (MPI), expected %ld "
            "and %ld\n",
            ctr, raw[SLOTS], all[0], raw_expected);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

/* One measurement on g: unit 0 computes, the others time operations. */
static void measure(const char *kind, dart_gptr_t g, MPI_Win win,
                    const long *raw, double seconds, FILE *out)
{
  memset(dart_s, 0, sizeof dart_s);
  memset(mpi_s, 0, sizeof mpi_s);
  BENCH_CHECK(dart_barrier(DART_TEAM_ALL));
  if (me == 0)
    compute(seconds);
  else
    origin_loop(g, win, 0.8 * seconds); /* done before unit 0 is back */
  BENCH_CHECK(dart_barrier(DART_TEAM_ALL));
  BENCH_CHECK(MPI_Win_sync(win)); /* unit 0 reads its raw window's memory */
  check_counters(g, raw);
  report(kind, out);
}

int main(int argc, char **argv)
{
  bench_setup(&argc, &argv, &comm, &me, &nunits);
  double seconds = 3;
  const char *outname = NULL;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--quick") == 0)
      seconds = 0.5;
    else if (strncmp(argv[a], "--out=", 6) == 0)
      outname = argv[a] + 6;
    else if (strcmp(argv[a], "--only=dart") == 0)
      only = 1;
    else if (strcmp(argv[a], "--only=mpi") == 0)
      only = 2;
    else if (strncmp(argv[a], "--seconds=", 10) == 0)
      seconds = atof(argv[a] + 10);
  }
  if (nunits < 2) {
    if (me == 0) printf("bench_progress: needs 2 or more units\n");
    dart_exit();
    return 0;
  }
  const size_t bytes = (SLOTS + 8) * sizeof(long);
  FILE *out = NULL;
  if (me == 0 && outname) {
    out = fopen(outname, "w");
    BENCH_CHECK(out == NULL);
    const char *sim = getenv("DART_SIM_NODE_SIZE");
    fprintf(out, "#units=%d\n#sim_node_size=%s\n#seconds=%.2f\n", nunits,
            sim ? sim : "0", seconds);
    fprintf(out, "memory,op,samples,dart_p50_us,dart_p99_us,dart_max_us,"
                 "mpi_p50_us,mpi_p99_us,mpi_max_us\n");
  }
  if (me == 0)
    printf("# bench_progress: %d units, unit 0 computes %.1f s per memory "
           "kind; times in us\n# memory   op           samples  DART p50 "
           "     p99      max    MPI p50      p99      max   p50x  p99x\n",
           nunits, seconds);
  /* The registration first: it starts DART's progress thread (auto), which
   * then serves the raw window as well. */
  long *buf = calloc(1, bytes), *rawbuf = calloc(1, bytes);
  BENCH_CHECK(buf == NULL || rawbuf == NULL);
  dart_gptr_t reg, alloc;
  BENCH_CHECK(
      dart_team_memregister(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, buf, &reg));
  BENCH_CHECK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &alloc));
  MPI_Win win;
  BENCH_CHECK(
      MPI_Win_create(rawbuf, (MPI_Aint)bytes, 1, MPI_INFO_NULL, comm, &win));
  BENCH_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  measure("allocated", alloc, win, rawbuf, seconds, out);
  measure("registered", reg, win, rawbuf, seconds, out);
  BENCH_CHECK(MPI_Win_unlock_all(win));
  BENCH_CHECK(MPI_Win_free(&win));
  BENCH_CHECK(dart_team_memfree(alloc));
  BENCH_CHECK(dart_team_memderegister(reg));
  free(buf);
  free(rawbuf);
  if (out) fclose(out);
  MPI_Comm_free(&comm);
  BENCH_CHECK(dart_exit());
  return 0;
}
