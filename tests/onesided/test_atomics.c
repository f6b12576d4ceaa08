/*
 * Atomics: semantics of every predefined op on every basic type (to self
 * and neighbour), and contention: all units add to one location (exact sum,
 * unique fetched values), compare-and-swap elects one winner per round,
 * MAX/long double/accumulate races; on team allocations, dart_memalloc
 * memory and registered memory.
 */
#include "os_common.h"

static const dart_operation_t ops[] = {
    DART_OP_MIN,  DART_OP_MAX,  DART_OP_SUM,     DART_OP_PROD,
    DART_OP_BAND, DART_OP_LAND, DART_OP_BOR,     DART_OP_LOR,
    DART_OP_BXOR, DART_OP_LXOR, DART_OP_REPLACE, DART_OP_NO_OP};
#define NOPS (sizeof ops / sizeof ops[0])

static int is_int(dart_datatype_t t)
{
  return t <= DART_TYPE_ULONGLONG;
}
static int op_valid(dart_operation_t op, dart_datatype_t t)
{
  switch (op) {
  case DART_OP_BAND:
  case DART_OP_LAND:
  case DART_OP_BOR:
  case DART_OP_LOR:
  case DART_OP_BXOR:
  case DART_OP_LXOR: return is_int(t);
  default: return 1;
  }
}

/* Expected a op b computed in long double / long long. */
#define EXPECT(T)                                                              \
  static T expect_##T(T a, T b, dart_operation_t op)                           \
  {                                                                            \
    switch (op) {                                                              \
    case DART_OP_MIN: return a < b ? a : b;                                    \
    case DART_OP_MAX: return a > b ? a : b;                                    \
    case DART_OP_SUM: return (T)(a + b);                                       \
    case DART_OP_PROD: return (T)(a * b);                                      \
    case DART_OP_LAND: return (T)(a && b);                                     \
    case DART_OP_LOR: return (T)(a || b);                                      \
    case DART_OP_LXOR: return (T)(!a != !b);                                   \
    case DART_OP_REPLACE: return b;                                            \
    default: return a;                                                         \
    }                                                                          \
  }
typedef long double ldouble;
EXPECT(ldouble)
static long long expect_int(long long a, long long b, dart_operation_t op)
{
  switch (op) {
  case DART_OP_BAND: return a & b;
  case DART_OP_BOR: return a | b;
  case DART_OP_BXOR: return a ^ b;
  default: return (long long)expect_ldouble(a, b, op);
  }
}

#define STORE(T, p, v) (*(T *)(p) = (T)(v))
#define LOAD(T, p) ((long double)*(const T *)(p))
static void store(void *p, dart_datatype_t t, long double v)
{
  switch (t) {
  case DART_TYPE_BYTE: STORE(char, p, v); break;
  case DART_TYPE_SHORT: STORE(short, p, v); break;
  case DART_TYPE_INT: STORE(int, p, v); break;
  case DART_TYPE_UINT: STORE(unsigned, p, v); break;
  case DART_TYPE_LONG: STORE(long, p, v); break;
  case DART_TYPE_ULONG: STORE(unsigned long, p, v); break;
  case DART_TYPE_LONGLONG: STORE(long long, p, v); break;
  case DART_TYPE_ULONGLONG: STORE(unsigned long long, p, v); break;
  case DART_TYPE_FLOAT: STORE(float, p, v); break;
  case DART_TYPE_DOUBLE: STORE(double, p, v); break;
  default: STORE(long double, p, v);
  }
}
static long double load(const void *p, dart_datatype_t t)
{
  switch (t) {
  case DART_TYPE_BYTE: return LOAD(char, p);
  case DART_TYPE_SHORT: return LOAD(short, p);
  case DART_TYPE_INT: return LOAD(int, p);
  case DART_TYPE_UINT: return LOAD(unsigned, p);
  case DART_TYPE_LONG: return LOAD(long, p);
  case DART_TYPE_ULONG: return LOAD(unsigned long, p);
  case DART_TYPE_LONGLONG: return LOAD(long long, p);
  case DART_TYPE_ULONGLONG: return LOAD(unsigned long long, p);
  case DART_TYPE_FLOAT: return LOAD(float, p);
  case DART_TYPE_DOUBLE: return LOAD(double, p);
  default: return LOAD(long double, p);
  }
}

/*
 * Semantics: unit me owns slot me of its neighbour's portion (16-byte
 * slots). For every type and op: the owner's neighbour-writer sets the
 * slot to a with a blocking put, applies op with b by fetch_and_op
 * (checks old == a) and by accumulate on a second element, then checks.
 */
static void test_semantics(dart_gptr_t g, int k)
{
  int target = (me + k) % nunits;
  static const long double as[] = {6, 0, 5}, bs[] = {3, 3, 0};
  for (size_t ti = 0; ti < OS_NTYPES; ti++) {
    dart_datatype_t t = os_basic_types[ti];
    for (size_t oi = 0; oi < NOPS; oi++) {
      if (!op_valid(ops[oi], t)) continue;
      for (int ai = 0; ai < 3; ai++) {
        _Alignas(16) char a[32], b[16], old[16], got[32];
        memset(a, 0, sizeof a);
        store(a, t, as[ai]);
        store(a + 16, t, as[ai]);
        store(b, t, bs[ai]);
        dart_gptr_t slot = os_at(g, target, (size_t)me * 32);
        TEST_OK(dart_put_blocking(slot, a, 32, DART_TYPE_BYTE, DART_TYPE_BYTE));
        TEST_OK(dart_fetch_and_op(slot, b, old, t, ops[oi]));
        TEST_OK(dart_flush(slot));
        dart_gptr_t slot2 = slot;
        slot2.addr_or_offs.offset += 16;
        TEST_OK(dart_accumulate(slot2, b, 1, t, ops[oi]));
        TEST_OK(dart_flush(slot2));
        TEST_CHECK_MSG(load(old, t) == as[ai],
                       "type %d op %d: old %Lg want %Lg", (int)t, (int)ops[oi],
                       load(old, t), as[ai]);
        TEST_OK(
            dart_get_blocking(got, slot, 32, DART_TYPE_BYTE, DART_TYPE_BYTE));
        long double want;
        if (is_int(t)) {
          char w[16];
          store(w, t,
                expect_int((long long)as[ai], (long long)bs[ai], ops[oi]));
          want = load(w, t);
        } else {
          char w[16];
          store(w, t, expect_ldouble(as[ai], bs[ai], ops[oi]));
          want = load(w, t);
        }
        TEST_CHECK_MSG(load(got, t) == want && load(got + 16, t) == want,
                       "type %d op %d a %Lg b %Lg: got %Lg / %Lg want %Lg",
                       (int)t, (int)ops[oi], as[ai], bs[ai], load(got, t),
                       load(got + 16, t), want);
      }
    }
  }
  /* NO_OP fetch without a value buffer is an atomic load. */
  long long v = 42, r = 0;
  dart_gptr_t slot = os_at(g, target, (size_t)me * 32);
  TEST_OK(
      dart_put_blocking(slot, &v, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  TEST_OK(dart_fetch_and_op(slot, NULL, &r, DART_TYPE_LONGLONG, DART_OP_NO_OP));
  TEST_OK(dart_flush(slot));
  TEST_CHECK(r == 42);
  /* CAS on every integer type */
  for (dart_datatype_t t = DART_TYPE_BYTE; t <= DART_TYPE_ULONGLONG; t++) {
    _Alignas(16) char init[16], val[16], cmp[16], res[16];
    memset(init, 0, 16);
    store(init, t, 7);
    store(val, t, 9);
    store(cmp, t, 8);
    TEST_OK(dart_put_blocking(slot, init, 16, DART_TYPE_BYTE, DART_TYPE_BYTE));
    TEST_OK(dart_compare_and_swap(slot, val, cmp, res, t)); /* mismatch */
    TEST_OK(dart_flush(slot));
    TEST_CHECK(load(res, t) == 7);
    store(cmp, t, 7);
    TEST_OK(dart_compare_and_swap(slot, val, cmp, res, t)); /* match */
    TEST_OK(dart_flush(slot));
    TEST_CHECK(load(res, t) == 7);
    TEST_OK(dart_get_blocking(res, slot, 1, t, t));
    TEST_CHECK(load(res, t) == 9);
  }
  os_barrier();
}

static int cmp_ll(const void *a, const void *b)
{
  long long x = *(const long long *)a, y = *(const long long *)b;
  return (x > y) - (x < y);
}

/* All units increment one counter on unit 0 (fetched values unique), add
 * to a double and a long double, take a MAX, and elect CAS winners. */
static void test_contention(dart_gptr_t g, const char *what)
{
  enum { ITER = 40, ROUNDS = 12 };
  long long *mine = os_local(g);
  if (me == 0) memset(mine, 0, 1024);
  if (me == 0)
    for (int r = 0; r < ROUNDS; r++) mine[64 + r] = -1;
  if (me == 0) *(long double *)(mine + 8) = 0; /* 16-aligned at 64 */
  os_barrier();
  dart_gptr_t ctr = os_at(g, 0, 0), dsum = os_at(g, 0, 16),
              mx = os_at(g, 0, 24), ldsum = os_at(g, 0, 64),
              acc = os_at(g, 0, 32);
  long long fetched[ITER], one = 1, id = me;
  double done = 1.0;
  long double ldone = 1.0L;
  for (int i = 0; i < ITER; i++) {
    TEST_OK(dart_fetch_and_op(ctr, &one, &fetched[i], DART_TYPE_LONGLONG,
                              DART_OP_SUM));
    TEST_OK(dart_flush(ctr));
    TEST_OK(dart_accumulate(dsum, &done, 1, DART_TYPE_DOUBLE, DART_OP_SUM));
    TEST_OK(dart_accumulate_blocking_local(acc, &one, 1, DART_TYPE_LONGLONG,
                                           DART_OP_SUM));
    TEST_OK(
        dart_accumulate(ldsum, &ldone, 1, DART_TYPE_LONG_DOUBLE, DART_OP_SUM));
    TEST_OK(dart_accumulate(mx, &id, 1, DART_TYPE_LONGLONG, DART_OP_MAX));
  }
  TEST_OK(dart_flush_all(ctr));
  long long *all = malloc(sizeof fetched * (size_t)nunits);
  TEST_CHECK(MPI_Allgather(fetched, ITER, MPI_LONG_LONG, all, ITER,
                           MPI_LONG_LONG, MPI_COMM_WORLD) == 0);
  qsort(all, (size_t)ITER * nunits, sizeof *all, cmp_ll);
  for (long long i = 0; i < (long long)ITER * nunits; i++)
    TEST_CHECK_MSG(all[i] == i, "%s: fetched values not unique at %lld", what,
                   i);
  free(all);
  /* CAS: exactly one winner per round */
  int wins[ROUNDS];
  for (int r = 0; r < ROUNDS; r++) {
    long long neg = -1, res = 0, val = me;
    TEST_OK(dart_compare_and_swap(os_at(g, 0, (size_t)(64 + r) * 8), &val, &neg,
                                  &res, DART_TYPE_LONGLONG));
    TEST_OK(dart_flush(ctr));
    wins[r] = (res == -1);
    TEST_CHECK(res == -1 || (res >= 0 && res < nunits));
  }
  int total[ROUNDS];
  TEST_CHECK(MPI_Allreduce(wins, total, ROUNDS, MPI_INT, MPI_SUM,
                           MPI_COMM_WORLD) == 0);
  for (int r = 0; r < ROUNDS; r++)
    TEST_CHECK_MSG(total[r] == 1, "%s: round %d has %d winners", what, r,
                   total[r]);
  os_barrier();
  if (me == 0) {
    long long n = (long long)ITER * nunits;
    TEST_CHECK(mine[0] == n);
    TEST_CHECK(*(double *)(mine + 2) == (double)n);
    TEST_CHECK(mine[4] == n);
    TEST_CHECK(*(long double *)(mine + 8) == (long double)n);
    TEST_CHECK(mine[3] == nunits - 1);
    for (int r = 0; r < ROUNDS; r++)
      TEST_CHECK(mine[64 + r] >= 0 && mine[64 + r] < nunits);
  }
  os_barrier();
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4096, DART_TYPE_BYTE, &g));
  test_semantics(g, 0);
  if (nunits > 1) test_semantics(g, 1);
  test_contention(g, "team allocation");
  /* registered memory: always MPI atomics */
  _Alignas(64) static long long reg[512];
  dart_gptr_t r;
  TEST_OK(
      dart_team_memregister(DART_TEAM_ALL, 512, DART_TYPE_LONGLONG, reg, &r));
  test_contention(r, "registration");
  TEST_OK(dart_team_memderegister(r));
  /* dart_memalloc pool: unit 0's block, broadcast */
  dart_gptr_t m;
  if (me == 0) TEST_OK(dart_memalloc(1024, DART_TYPE_BYTE, &m));
  TEST_CHECK(MPI_Bcast(&m, sizeof m, MPI_BYTE, 0, MPI_COMM_WORLD) == 0);
  if (me == 0) {
    long long *p;
    TEST_OK(dart_gptr_getaddr(m, (void **)&p));
    memset(p, 0, 1024);
  }
  os_barrier();
  long long one = 1, old;
  for (int i = 0; i < 20; i++) {
    TEST_OK(dart_fetch_and_op(m, &one, &old, DART_TYPE_LONGLONG, DART_OP_SUM));
    TEST_OK(dart_flush(m));
  }
  os_barrier();
  TEST_OK(dart_fetch_and_op(m, NULL, &old, DART_TYPE_LONGLONG, DART_OP_NO_OP));
  TEST_OK(dart_flush(m));
  TEST_CHECK(old == 20LL * nunits);
  os_barrier();
  if (me == 0) TEST_OK(dart_memfree(m));
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  if (me == 0) printf("test_atomics: OK (%d units)\n", nunits);
  return 0;
}
