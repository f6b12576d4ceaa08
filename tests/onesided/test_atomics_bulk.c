/*
 * Bulk accumulates next to single-element atomics on the same elements
 * (issue 22 item 1; docs/design.md 5.3, src/transport/cpu_gate.c).
 *
 *  - Semantics: an accumulate of more than T elements (on mapped memory
 *    the plain loops under the gate) gives, byte for byte, what
 *    dart__atomic_combine gives element by element, for every basic type
 *    and op valid for it: across chunks, from an unaligned origin buffer,
 *    long double padding kept (REPLACE copies the origin's bytes).
 *  - Concurrency: every unit (with "threads": two threads per unit, each
 *    an origin of its own) runs bulk accumulates and single ops
 *    (fetch_and_op, compare_and_swap loops, accumulates of at most T
 *    elements) on the same elements at once, R rounds: bulk into its own
 *    portion with singles into the right neighbour's, bulk into the right
 *    neighbour's with singles into its own, and everything into unit 0.
 *    int, long, float, double: SUM (exact totals), MIN, MAX; int, long:
 *    BOR, BAND, BXOR with disjoint bits per origin; then REPLACE, where
 *    every value fetched or left is one that some origin wrote whole.
 *    Chunks of 64 bytes (many hand-overs of the gate) and the default
 *    chunk (a bulk larger than it); with the node's fence and again with
 *    the symmetric one. With DART_SIM_NODE_SIZE=1 the same runs on MPI
 *    atomics.
 *
 * usage: test_atomics_bulk [threads]
 */
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "globmem/dart_segment.h"
#include "os_common.h"
#include "transport/cpu_atomic.h"
#include "transport/cpu_gate.h"

enum {
  NBIG = 20000, /* elements of the default-chunk SUM phase         */
  MAXO = 8,     /* origins at most: 4 units x 2 threads            */
  SMALL_CHUNK = 64,
  ESZ_MAX = 16
};

/* Rounds and elements of the concurrent phases (chunks of 64 bytes). On
 * MPI atomics (no gate, and emulated per element where the MPI is not
 * trusted) fewer, and no phase larger than the default chunk. */
static int R = 16;
static size_t N = 600;
static bool on_mpi;

static int threads = 1; /* origins per unit */
static int norig;       /* all origins       */
static dart_gptr_t seg; /* NBIG * 16 bytes per unit */
static size_t tmax;     /* T of this unit (the gate's single_max) */

static size_t esz_of(dart_datatype_t t)
{
  return os_type_size(t);
}

static bool is_int(dart_datatype_t t)
{
  return t <= DART_TYPE_ULONGLONG;
}

/* Writes the number v into an element of type t (padding: pad). */
static void put_num(char *p, dart_datatype_t t, long double v,
                    unsigned char pad)
{
  memset(p, pad, esz_of(t));
  switch (t) {
  case DART_TYPE_BYTE: *(char *)p = (char)(long long)v; break;
  case DART_TYPE_SHORT: *(short *)(void *)p = (short)(long long)v; break;
  case DART_TYPE_INT: *(int *)(void *)p = (int)(long long)v; break;
  case DART_TYPE_UINT: *(unsigned *)(void *)p = (unsigned)(long long)v; break;
  case DART_TYPE_LONG: *(long *)(void *)p = (long)v; break;
  case DART_TYPE_ULONG:
    *(unsigned long *)(void *)p = (unsigned long)(long long)v;
    break;
  case DART_TYPE_LONGLONG: *(long long *)(void *)p = (long long)v; break;
  case DART_TYPE_ULONGLONG:
    *(unsigned long long *)(void *)p = (unsigned long long)(long long)v;
    break;
  case DART_TYPE_FLOAT: *(float *)(void *)p = (float)v; break;
  case DART_TYPE_DOUBLE: *(double *)(void *)p = (double)v; break;
  default: {
    long double x = v;
    memcpy(p, &x, DART__LD_VALUE_BYTES);
  }
  }
}

static long double get_num(const char *p, dart_datatype_t t)
{
  switch (t) {
  case DART_TYPE_INT: return *(const int *)(const void *)p;
  case DART_TYPE_LONG: return *(const long *)(const void *)p;
  case DART_TYPE_FLOAT: return *(const float *)(const void *)p;
  default: return *(const double *)(const void *)p;
  }
}

/* ---- semantics ---------------------------------------------------------- */

static const dart_operation_t all_ops[] = {
    DART_OP_MIN,  DART_OP_MAX,  DART_OP_SUM,     DART_OP_PROD,
    DART_OP_BAND, DART_OP_LAND, DART_OP_BOR,     DART_OP_LOR,
    DART_OP_BXOR, DART_OP_LXOR, DART_OP_REPLACE, DART_OP_NO_OP};

static bool op_valid(dart_operation_t op, dart_datatype_t t)
{
  switch (op) {
  case DART_OP_BAND:
  case DART_OP_LAND:
  case DART_OP_BOR:
  case DART_OP_LOR:
  case DART_OP_BXOR:
  case DART_OP_LXOR: return is_int(t);
  default: return true;
  }
}

/* One bulk accumulate of n elements at byte off of unit target's portion
 * (written by the caller only), checked byte for byte. */
static void semantics_one(int target, size_t off, dart_datatype_t t,
                          dart_operation_t op, size_t n, bool unaligned)
{
  size_t esz = esz_of(t), bytes = n * esz;
  char *init = malloc(bytes), *vals = malloc(bytes + 1), *got = malloc(bytes),
       *want = malloc(bytes);
  char *v = vals + (unaligned ? 1 : 0);
  TEST_CHECK(init && vals && got && want);
  /* MPICH 4.0.2 takes MIN/MAX of MPI_UNSIGNED* as signed, Open MPI 4.1.4
   * that of MPI_UNSIGNED_LONG (raw-MPI check): wrapped values only where
   * DART computes. */
  bool unsig =
      t == DART_TYPE_UINT || t == DART_TYPE_ULONG || t == DART_TYPE_ULONGLONG;
  long shift = on_mpi && unsig ? 0 : 1;
  for (size_t i = 0; i < n; i++) {
    long double a = (long double)((long)(i % 7) - 3 * shift),
                b = (long double)((long)(i % 5) - 2 * shift);
    if (!is_int(t)) {
      a *= 0.75L;
      b *= 1.25L;
    }
    put_num(init + i * esz, t, a, 0xA5);
    char tmp[ESZ_MAX];
    put_num(tmp, t, b, 0x5A);
    memcpy(v + i * esz, tmp, esz);
    TEST_CHECK(
        dart__atomic_combine(want + i * esz, init + i * esz, tmp, t, op) == 0);
  }
  dart_gptr_t g = os_at(seg, target, off);
  TEST_OK(dart_put_blocking(g, init, bytes, DART_TYPE_BYTE, DART_TYPE_BYTE));
  TEST_OK(dart_accumulate(g, v, n, t, op));
  TEST_OK(dart_flush(g));
  TEST_OK(dart_get_blocking(got, g, bytes, DART_TYPE_BYTE, DART_TYPE_BYTE));
  for (size_t i = 0; i < n; i++)
    TEST_CHECK_MSG(memcmp(got + i * esz, want + i * esz, esz) == 0,
                   "type %d op %d n %zu%s: element %zu differs", (int)t,
                   (int)op, n, unaligned ? " unaligned" : "", i);
  free(init);
  free(vals);
  free(got);
  free(want);
}

static void test_semantics(void)
{
  size_t keep = dart__gate.chunk;
  dart__gate.chunk = SMALL_CHUNK;
  for (int k = 0; k < 2; k++) {
    int target = k == 0 ? (me + 1) % nunits : me;
    size_t off = k == 0 ? 0 : (size_t)NBIG * 8;
    for (size_t ti = 0; ti < OS_NTYPES; ti++) {
      dart_datatype_t t = os_basic_types[ti];
      size_t chunk_elems = SMALL_CHUNK / esz_of(t);
      size_t sizes[] = {tmax + 1, 3 * chunk_elems + 5};
      for (size_t oi = 0; oi < sizeof all_ops / sizeof all_ops[0]; oi++) {
        if (!op_valid(all_ops[oi], t)) continue;
        for (int s = 0; s < 2; s++)
          semantics_one(target, off, t, all_ops[oi], sizes[s], s == 1);
      }
    }
  }
  dart__gate.chunk = keep;
  os_barrier();
}

/* ---- concurrency -------------------------------------------------------- */

typedef enum { OWN, RIGHT, ALL_TO_ONE } pattern_t;
static const char *pattern_name[] = {"own", "right", "all-to-one"};

static int bulk_target(pattern_t p, int u)
{
  return p == OWN ? u : p == RIGHT ? (u + 1) % nunits : 0;
}

static int single_target(pattern_t p, int u)
{
  return p == OWN ? (u + 1) % nunits : p == RIGHT ? u : 0;
}

typedef struct {
  pattern_t pat;
  dart_datatype_t t;
  dart_operation_t op;
  size_t n;
} phase_t;

/* The value origin o applies to element i in round r (bulk or single). */
static long double value(const phase_t *ph, int o, int r, size_t i, bool bulk)
{
  switch (ph->op) {
  case DART_OP_SUM: return bulk ? 1 + (long double)((o + (int)i) % 3) : 1;
  case DART_OP_MIN:
    return bulk
               ? 5000 + (long double)((i * 7 + (size_t)o * 13 + (size_t)r * 5) %
                                      1001)
               : 4000 +
                     (long double)((i * 3 + (size_t)o * 11 + (size_t)r) % 997);
  case DART_OP_MAX:
    return bulk
               ? 1000 +
                     (long double)((i * 5 + (size_t)o * 7 + (size_t)r) % 1009)
               : 2000 + (long double)((i + (size_t)o * 3 + (size_t)r * 7) % 89);
  case DART_OP_BOR:
  case DART_OP_BXOR: return (long double)(1LL << (2 * o + (bulk ? 0 : 1)));
  default: /* BAND */ return (long double)(~(1LL << (2 * o + (bulk ? 0 : 1))));
  }
}

static long double initial(const phase_t *ph)
{
  switch (ph->op) {
  case DART_OP_MIN: return 1000000;
  case DART_OP_MAX: return -1000000;
  case DART_OP_BAND: return -1;
  default: return 0;
  }
}

/* Elements the singles hit: both ends, chunk boundaries, a stride. */
static size_t hot_set(size_t n, size_t esz, size_t *s)
{
  size_t k = 0, ce = SMALL_CHUNK / esz;
  s[k++] = 0;
  s[k++] = 1;
  for (size_t c = 1; c <= 3 && c * ce < n; c++) {
    s[k++] = c * ce - 1;
    s[k++] = c * ce;
  }
  for (size_t i = 37; i < n - 1; i += n / 12 + 1) s[k++] = i;
  s[k++] = n - 1;
  return k;
}

/*
 * Runs (sim == NULL) or simulates into sim (the expected contents of
 * target sim_target) origin o's part of a phase: R rounds of a bulk
 * accumulate into bulk_target and single ops into single_target on the
 * hot set, in turn fetch_and_op, an accumulate of at most T elements and
 * (integers) a compare-and-swap loop.
 */
static void origin_run(const phase_t *ph, int o, char *sim, int sim_target)
{
  int u = o / threads;
  size_t esz = esz_of(ph->t), n = ph->n;
  int tb = bulk_target(ph->pat, u), ts = single_target(ph->pat, u);
  char *vals = malloc(n * esz);
  TEST_CHECK(vals != NULL);
  size_t hot[64];
  size_t nhot = hot_set(n, esz, hot);
  for (int r = 0; r < R; r++) {
    for (size_t i = 0; i < n; i++)
      put_num(vals + i * esz, ph->t, value(ph, o, r, i, true), 0);
    if (sim == NULL) {
      TEST_OK(dart_accumulate(os_at(seg, tb, 0), vals, n, ph->t, ph->op));
    } else if (tb == sim_target) {
      for (size_t i = 0; i < n; i++)
        dart__atomic_combine(sim + i * esz, sim + i * esz, vals + i * esz,
                             ph->t, ph->op);
    }
    for (size_t k = 0; k < nhot; k++) {
      size_t i = hot[k];
      int kind = (int)((k + (size_t)r + (size_t)o) % (is_int(ph->t) ? 3 : 2));
      size_t m = kind == 1 ? (tmax < n - i ? tmax : n - i) : 1;
      char sv[ESZ_MAX * 64];
      for (size_t j = 0; j < m; j++)
        put_num(sv + j * esz, ph->t, value(ph, o, r, i + j, false), 0);
      if (sim != NULL) {
        if (ts == sim_target)
          for (size_t j = 0; j < m; j++)
            dart__atomic_combine(sim + (i + j) * esz, sim + (i + j) * esz,
                                 sv + j * esz, ph->t, ph->op);
        continue;
      }
      dart_gptr_t g = os_at(seg, ts, i * esz);
      char old[ESZ_MAX], prev[ESZ_MAX], next[ESZ_MAX];
      if (kind == 0) {
        TEST_OK(dart_fetch_and_op(g, sv, old, ph->t, ph->op));
      } else if (kind == 1) {
        TEST_OK(dart_accumulate(g, sv, m, ph->t, ph->op));
      } else {
        TEST_OK(dart_fetch_and_op(g, NULL, old, ph->t, DART_OP_NO_OP));
        TEST_OK(dart_flush(g));
        for (;;) {
          dart__atomic_combine(next, old, sv, ph->t, ph->op);
          TEST_OK(dart_compare_and_swap(g, next, old, prev, ph->t));
          TEST_OK(dart_flush(g));
          if (memcmp(prev, old, esz) == 0) break;
          memcpy(old, prev, esz);
        }
      }
    }
    if (sim == NULL) TEST_OK(dart_flush_all(seg));
  }
  free(vals);
}

typedef struct {
  const phase_t *ph;
  int o;
  void (*fn)(const phase_t *, int);
} job_t;

static void *job_main(void *arg)
{
  job_t *j = arg;
  j->fn(j->ph, j->o);
  return NULL;
}

/* Runs fn for every origin of this unit (threads, or the caller). */
static void run_origins(const phase_t *ph, void (*fn)(const phase_t *, int))
{
  job_t jobs[2];
  pthread_t th[2];
  for (int k = 0; k < threads; k++) {
    jobs[k] = (job_t){ph, me * threads + k, fn};
    if (threads > 1)
      TEST_CHECK(pthread_create(&th[k], NULL, job_main, &jobs[k]) == 0);
    else
      job_main(&jobs[k]);
  }
  for (int k = 0; threads > 1 && k < threads; k++) pthread_join(th[k], NULL);
}

static void origin_real(const phase_t *ph, int o)
{
  origin_run(ph, o, NULL, -1);
}

static void phase_run(const phase_t *ph, const char *mode)
{
  size_t esz = esz_of(ph->t), bytes = ph->n * esz;
  char *mine = os_local(seg);
  for (size_t i = 0; i < ph->n; i++)
    put_num(mine + i * esz, ph->t, initial(ph), 0);
  os_barrier();
  run_origins(ph, origin_real);
  os_barrier();
  char *want = malloc(bytes);
  TEST_CHECK(want != NULL);
  for (size_t i = 0; i < ph->n; i++)
    put_num(want + i * esz, ph->t, initial(ph), 0);
  for (int o = 0; o < norig; o++) origin_run(ph, o, want, me);
  for (size_t i = 0; i < ph->n; i++)
    TEST_CHECK_MSG(memcmp(mine + i * esz, want + i * esz, esz) == 0,
                   "%s, %s, type %d op %d n %zu: element %zu is %Lg, want %Lg",
                   mode, pattern_name[ph->pat], (int)ph->t, (int)ph->op, ph->n,
                   i, get_num(mine + i * esz, ph->t),
                   get_num(want + i * esz, ph->t));
  free(want);
  os_barrier();
}

/* REPLACE: a value that origin o (or 0x0F.. initially) writes whole; its
 * pieces of 16 bits are all equal, so a torn value is none of them. */
static void pattern_bytes(char *p, size_t esz, int o, bool bulk)
{
  unsigned piece = o < 0 ? 0x0F0Fu : (unsigned)(o + 1 + (bulk ? 0 : 16));
  for (size_t b = 0; b < esz; b += 2) memcpy(p + b, &piece, 2);
}

/* Is the element one that some origin writing to target t wrote whole? */
static bool replace_valid(const char *p, size_t esz, pattern_t pat, int t)
{
  char w[ESZ_MAX];
  pattern_bytes(w, esz, -1, true);
  if (memcmp(p, w, esz) == 0) return true;
  for (int o = 0; o < norig; o++) {
    int u = o / threads;
    for (int bulk = 0; bulk < 2; bulk++) {
      int tt = bulk ? bulk_target(pat, u) : single_target(pat, u);
      pattern_bytes(w, esz, o, bulk);
      if (tt == t && memcmp(p, w, esz) == 0) return true;
    }
  }
  return false;
}

static void origin_replace(const phase_t *ph, int o)
{
  int u = o / threads;
  size_t esz = esz_of(ph->t), n = ph->n;
  int tb = bulk_target(ph->pat, u), ts = single_target(ph->pat, u);
  char *vals = malloc(n * esz);
  TEST_CHECK(vals != NULL);
  for (size_t i = 0; i < n; i++) pattern_bytes(vals + i * esz, esz, o, true);
  char sv[ESZ_MAX], old[ESZ_MAX], prev[ESZ_MAX];
  pattern_bytes(sv, esz, o, false);
  size_t hot[64];
  size_t nhot = hot_set(n, esz, hot);
  for (int r = 0; r < R; r++) {
    TEST_OK(dart_accumulate(os_at(seg, tb, 0), vals, n, ph->t, ph->op));
    for (size_t k = 0; k < nhot; k++) {
      dart_gptr_t g = os_at(seg, ts, hot[k] * esz);
      int kind = (int)((k + (size_t)r) % 3);
      if (kind == 0) {
        TEST_OK(dart_fetch_and_op(g, sv, old, ph->t, DART_OP_REPLACE));
      } else {
        TEST_OK(dart_fetch_and_op(g, NULL, old, ph->t, DART_OP_NO_OP));
      }
      TEST_OK(dart_flush(g));
      TEST_CHECK_MSG(replace_valid(old, esz, ph->pat, ts),
                     "REPLACE, %s, type %d: element %zu torn",
                     pattern_name[ph->pat], (int)ph->t, hot[k]);
      if (kind == 2 && is_int(ph->t)) {
        TEST_OK(dart_compare_and_swap(g, sv, old, prev, ph->t));
        TEST_OK(dart_flush(g));
        TEST_CHECK(replace_valid(prev, esz, ph->pat, ts));
      }
    }
    TEST_OK(dart_flush_all(seg));
  }
  free(vals);
}

static void phase_replace(const phase_t *ph)
{
  size_t esz = esz_of(ph->t);
  char *mine = os_local(seg);
  for (size_t i = 0; i < ph->n; i++)
    pattern_bytes(mine + i * esz, esz, -1, true);
  os_barrier();
  run_origins(ph, origin_replace);
  os_barrier();
  bool bulk_here = false;
  for (int u = 0; u < nunits; u++)
    bulk_here = bulk_here || bulk_target(ph->pat, u) == me;
  for (size_t i = 0; i < ph->n; i++) {
    TEST_CHECK(replace_valid(mine + i * esz, esz, ph->pat, me));
    char init[ESZ_MAX];
    pattern_bytes(init, esz, -1, true);
    /* Every element was replaced by a bulk, if one targeted this unit. */
    TEST_CHECK(!bulk_here || memcmp(mine + i * esz, init, esz) != 0);
  }
  os_barrier();
}

static void test_concurrency(const char *mode)
{
  static const dart_datatype_t types[] = {DART_TYPE_INT, DART_TYPE_LONG,
                                          DART_TYPE_FLOAT, DART_TYPE_DOUBLE};
  static const dart_operation_t ops[] = {DART_OP_SUM,  DART_OP_MIN,
                                         DART_OP_MAX,  DART_OP_BOR,
                                         DART_OP_BAND, DART_OP_BXOR};
  size_t keep = dart__gate.chunk;
  for (int p = 0; p < 3; p++) {
    if (p > 0 && nunits == 1) break;
    for (size_t ti = 0; ti < 4; ti++) {
      dart_datatype_t t = types[ti];
      dart__gate.chunk = SMALL_CHUNK;
      for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++) {
        if (!op_valid(ops[oi], t)) continue;
        phase_t ph = {(pattern_t)p, t, ops[oi], N};
        phase_run(&ph, mode);
      }
      phase_t rep = {(pattern_t)p, t, DART_OP_REPLACE, N};
      phase_replace(&rep);
      /* a bulk larger than the default chunk */
      dart__gate.chunk = keep;
      phase_t big = {(pattern_t)p, t, DART_OP_SUM, NBIG};
      if (!on_mpi) phase_run(&big, mode);
    }
  }
  dart__gate.chunk = keep;
}

int main(int argc, char **argv)
{
  bool mt = argc > 1 && strcmp(argv[1], "threads") == 0;
  if (mt) {
    dart_thread_support_level_t level;
    TEST_OK(dart_init_thread(&argc, &argv, &level));
    os_ids();
    if (level != DART_THREAD_MULTIPLE) {
      if (me == 0)
        printf("test_atomics_bulk: skipped (no DART_THREAD_MULTIPLE)\n");
      TEST_OK(dart_exit());
      return 77; /* CTest SKIP_RETURN_CODE: skipped, not passed */
    }
    threads = 2;
  } else {
    os_init(&argc, &argv);
  }
  norig = nunits * threads;
  TEST_CHECK(norig <= MAXO);
  tmax = dart__gate.single_max;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, (size_t)NBIG * 16,
                                     DART_TYPE_BYTE, &seg));
  dart__segment_t *s;
  (void)dart__segment_fast(os_at(seg, me, 0), 1, &s);
  on_mpi = !s->cpu_atomics;
  if (on_mpi) {
    R = 2;
    N = 200;
  }
  if (!mt) test_semantics();
  bool gate = dart__gate.base != NULL;
  const char *fence = !gate             ? "no gate"
                      : dart__gate.asym ? "asymmetric fence"
                                        : "symmetric fence";
  test_concurrency(fence);
  bool both = gate && dart__gate.can_asym;
  if (both) {
    /* The registration for membarrier runs on a helper thread from the
     * start of dart_init and ends within an RCU grace period, unless the
     * kernel refuses it (then this unit's singles stay fenced: correct,
     * only slower). */
    for (int i = 0; i < 10000 &&
                    !__atomic_load_n(&dart__gate_registered, __ATOMIC_ACQUIRE);
         i++)
      usleep(1000);
    if (!dart__gate_registered)
      printf("test_atomics_bulk: unit %d not registered for membarrier "
             "after 10 s (its singles stay fenced)\n",
             me);
    /* Units not registered yet (odd ones) announce fenced next to the
     * plain announcements of the others and the bulks' membarrier. */
    bool registered = dart__gate_registered;
    os_barrier();
    if (me % 2 == 1) dart__gate_registered = false;
    os_barrier();
    test_concurrency("asymmetric fence, odd units unregistered");
    dart__gate_registered = registered;
    /* The other fence: switched on every unit between barriers. */
    dart__gate.asym = false;
    os_barrier();
    test_concurrency("symmetric fence");
    dart__gate.asym = true;
    os_barrier();
  }
  TEST_OK(dart_team_memfree(seg));
  TEST_OK(dart_exit());
  if (me == 0)
    printf("test_atomics_bulk: OK (%d units, %d thread(s) each, %s%s)\n",
           nunits, threads, fence, both ? " and symmetric fence" : "");
  return 0;
}
