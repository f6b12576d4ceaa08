/*
 * Atomics: every standard AMO type with fetch_add/add/inc/fetch_inc,
 * compare_swap, swap/set/fetch (extended types too: float, double), the
 * bitwise AMOs, blocking and nbi, default and created contexts, the
 * deprecated names; and mixed operations on one location from every PE
 * (add, fetch_add, inc, compare_swap loops) with an exact final count.
 */
#include <shmem.h>
#include <stdint.h>

#include "dart_test.h"

#define ITER 50

#define STD(T, TN)                                                             \
  static void std_##TN(int me, int n, shmem_ctx_t ctx)                         \
  {                                                                            \
    static T v, w;                                                             \
    v = 0;                                                                     \
    w = 0;                                                                     \
    shmem_barrier_all();                                                       \
    for (int pe = 0; pe < n; pe++) {                                           \
      shmem_ctx_##TN##_atomic_add(ctx, &v, (T)1, pe);                          \
      shmem_##TN##_atomic_inc(&v, pe);                                         \
      T o = shmem_ctx_##TN##_atomic_fetch_add(ctx, &v, (T)2, pe);              \
      TEST_CHECK(o >= (T)2 && o <= (T)(5 * n));                                \
      o = shmem_##TN##_atomic_fetch_inc(&v, pe);                               \
      shmem_ctx_##TN##_atomic_fetch_inc_nbi(ctx, &o, &w, pe);                  \
      shmem_ctx_##TN##_atomic_fetch_add_nbi(ctx, &o, &w, (T)2, pe);            \
    }                                                                          \
    shmem_ctx_quiet(ctx);                                                      \
    shmem_barrier_all();                                                       \
    TEST_CHECK(v == (T)(5 * n));                                               \
    TEST_CHECK(w == (T)(3 * n));                                               \
    TEST_CHECK(shmem_##TN##_atomic_fetch(&v, (me + 1) % n) == (T)(5 * n));     \
    shmem_barrier_all();                                                       \
    /* compare_swap: exactly one PE wins each round */                         \
    int wins = 0;                                                              \
    for (int r = 0; r < 3; r++) {                                              \
      T old = shmem_ctx_##TN##_atomic_compare_swap(ctx, &w, (T)(3 * n + r),    \
                                                   (T)(3 * n + r + 1), 0);     \
      wins += old == (T)(3 * n + r);                                           \
      shmem_barrier_all();                                                     \
    }                                                                          \
    static int wsum;                                                           \
    wsum = 0;                                                                  \
    shmem_barrier_all();                                                       \
    shmem_int_atomic_add(&wsum, wins, 0);                                      \
    shmem_barrier_all();                                                       \
    if (me == 0) TEST_CHECK(wsum == 3);                                        \
    /* swap / set / fetch */                                                   \
    shmem_barrier_all();                                                       \
    if (me == 0) shmem_##TN##_atomic_set(&v, (T)9, n - 1);                     \
    shmem_barrier_all();                                                       \
    T s = shmem_##TN##_atomic_swap(&v, (T)me, n - 1);                          \
    (void)s;                                                                   \
    shmem_barrier_all();                                                       \
    T f = shmem_ctx_##TN##_atomic_fetch(ctx, &v, n - 1);                       \
    TEST_CHECK(f == (T)0 || (f > (T)0 && f < (T)n));                           \
    shmem_barrier_all();                                                       \
  }

STD(int, int)
STD(long, long)
STD(long long, longlong)
STD(unsigned int, uint)
STD(unsigned long, ulong)
STD(unsigned long long, ulonglong)
STD(int32_t, int32)
STD(int64_t, int64)
STD(uint32_t, uint32)
STD(uint64_t, uint64)
STD(size_t, size)
STD(ptrdiff_t, ptrdiff)

#define EXT(T, TN)                                                             \
  static void ext_##TN(int me, int n)                                          \
  {                                                                            \
    static T x;                                                                \
    x = (T)0.5;                                                                \
    shmem_barrier_all();                                                       \
    int r = (me + 1) % n;                                                      \
    TEST_CHECK(shmem_##TN##_atomic_fetch(&x, r) == (T)0.5);                    \
    shmem_barrier_all();                                                       \
    shmem_##TN##_atomic_set(&x, (T)me + (T)0.25, r);                           \
    shmem_barrier_all();                                                       \
    T old = shmem_##TN##_atomic_swap(&x, (T)-1, me);                           \
    TEST_CHECK(old == (T)((me + n - 1) % n) + (T)0.25);                        \
    T fo;                                                                      \
    shmem_##TN##_atomic_swap_nbi(&fo, &x, (T)-2, me);                          \
    shmem_quiet();                                                             \
    TEST_CHECK(fo == (T)-1 && x == (T)-2);                                     \
    shmem_barrier_all();                                                       \
  }
EXT(float, float)
EXT(double, double)

#define BIT(T, TN)                                                             \
  static void bit_##TN(int me, int n)                                          \
  {                                                                            \
    static T m;                                                                \
    m = (T)0;                                                                  \
    shmem_barrier_all();                                                       \
    shmem_##TN##_atomic_or(&m, (T)1 << me, 0);                                 \
    shmem_barrier_all();                                                       \
    T all = (T)((1u << n) - 1);                                                \
    TEST_CHECK(shmem_##TN##_atomic_fetch(&m, 0) == all);                       \
    shmem_barrier_all();                                                       \
    T o = shmem_##TN##_atomic_fetch_and(&m, ~((T)1 << me), 0);                 \
    TEST_CHECK((o & ((T)1 << me)) != 0);                                       \
    shmem_barrier_all();                                                       \
    TEST_CHECK(shmem_##TN##_atomic_fetch(&m, 0) == 0);                         \
    shmem_barrier_all();                                                       \
    shmem_##TN##_atomic_xor(&m, (T)3, 0);                                      \
    shmem_##TN##_atomic_fetch_xor_nbi(&o, &m, (T)0, 0);                        \
    shmem_##TN##_atomic_fetch_or_nbi(&o, &m, (T)0, 0);                         \
    shmem_quiet();                                                             \
    shmem_barrier_all();                                                       \
    TEST_CHECK(shmem_##TN##_atomic_fetch(&m, 0) == (n % 2 ? (T)3 : (T)0));     \
    shmem_barrier_all();                                                       \
  }
BIT(unsigned int, uint)
BIT(unsigned long, ulong)
BIT(unsigned long long, ulonglong)
BIT(int32_t, int32)
BIT(int64_t, int64)
BIT(uint32_t, uint32)
BIT(uint64_t, uint64)

/* Mixed operations on one location: add, fetch_add, inc, cswap loops. */
static void mixed(int me, int n)
{
  long *c = shmem_calloc(1, sizeof(long));
  for (int i = 0; i < ITER; i++) {
    int tgt = i % n;
    switch ((me + i) % 4) {
    case 0: shmem_long_atomic_add(c, 1, tgt); break;
    case 1: (void)shmem_long_atomic_fetch_add(c, 1, tgt); break;
    case 2: shmem_long_atomic_inc(c, tgt); break;
    default: {
      long old = shmem_long_atomic_fetch(c, tgt), seen;
      while ((seen = shmem_long_atomic_compare_swap(c, old, old + 1, tgt)) !=
             old)
        old = seen;
    }
    }
  }
  shmem_barrier_all();
  long total = 0;
  for (int pe = 0; pe < n; pe++) total += shmem_long_atomic_fetch(c, pe);
  TEST_CHECK(total == (long)ITER * n);
  shmem_barrier_all();
  shmem_free(c);
}

static void deprecated(int me, int n)
{
  static int di;
  static long dl;
  di = 0;
  dl = 0;
  shmem_barrier_all();
  shmem_int_add(&di, 2, 0);
  shmem_int_inc(&di, 0);
  (void)shmem_int_fadd(&di, 1, 0);
  (void)shmem_long_finc(&dl, 0);
  shmem_barrier_all();
  if (me == 0) TEST_CHECK(di == 4 * n && dl == n);
  shmem_barrier_all();
  TEST_CHECK(shmem_int_fetch(&di, 0) == 4 * n);
  if (me == 0) (void)shmem_long_swap(&dl, 42, 0);
  shmem_barrier_all();
  TEST_CHECK(shmem_long_cswap(&dl, 42, 42, 0) == 42);
  shmem_barrier_all();
}

static void generic(int me, int n)
{
  static long g;
  static unsigned int u;
  g = 0;
  u = 0;
  shmem_barrier_all();
  shmem_atomic_add(&g, 2L, 0);
  shmem_atomic_inc(SHMEM_CTX_DEFAULT, &g, 0);
  shmem_atomic_or(&u, 1u << me, 0);
  shmem_barrier_all();
  TEST_CHECK(shmem_atomic_fetch(&g, 0) == 3L * n);
  TEST_CHECK(shmem_atomic_fetch(&u, 0) == (1u << n) - 1);
  long old = shmem_atomic_fetch_add(&g, 0L, 0);
  TEST_CHECK(old == 3L * n);
  shmem_barrier_all();
}

int main(void)
{
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  shmem_ctx_t ctx;
  TEST_CHECK(shmem_ctx_create(0, &ctx) == 0);
  for (int k = 0; k < 2; k++) {
    shmem_ctx_t c = k ? ctx : SHMEM_CTX_DEFAULT;
    std_int(me, n, c);
    std_long(me, n, c);
    std_longlong(me, n, c);
    std_uint(me, n, c);
    std_ulong(me, n, c);
    std_ulonglong(me, n, c);
    std_int32(me, n, c);
    std_int64(me, n, c);
    std_uint32(me, n, c);
    std_uint64(me, n, c);
    std_size(me, n, c);
    std_ptrdiff(me, n, c);
  }
  shmem_ctx_destroy(ctx);
  ext_float(me, n);
  ext_double(me, n);
  bit_uint(me, n);
  bit_ulong(me, n);
  bit_ulonglong(me, n);
  bit_int32(me, n);
  bit_int64(me, n);
  bit_uint32(me, n);
  bit_uint64(me, n);
  mixed(me, n);
  deprecated(me, n);
  generic(me, n);
  shmem_finalize();
  return 0;
}
