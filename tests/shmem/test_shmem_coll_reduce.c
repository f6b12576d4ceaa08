/*
 * Team reductions: every operation on every type of the OpenSHMEM 1.5
 * tables (this test's own list of them, written from the specification, so
 * it also checks the generated names), on SHMEM_TEAM_WORLD and on a team of
 * the odd PEs, in place and out of place, with results checked element by
 * element.
 */
#include <complex.h>
#include <shmem.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dart_test.h"

#define NR 5

static int me, npes;
static void *sbuf, *dbuf; /* symmetric, NR * 16 bytes each */

/* Expected results over team PEs 0..n-1 contributing v(p, k). */
#define VAL(p, k) ((p) + (k) + 1)

// clang-format off
#define BITWISE_TYPES(X)                                                       \
  X(uchar, unsigned char)                                                      \
  X(ushort, unsigned short)                                                    \
  X(uint, unsigned int)                                                        \
  X(ulong, unsigned long)                                                      \
  X(ulonglong, unsigned long long)                                             \
  X(int8, int8_t)                                                              \
  X(int16, int16_t)                                                            \
  X(int32, int32_t)                                                            \
  X(int64, int64_t)                                                            \
  X(uint8, uint8_t)                                                            \
  X(uint16, uint16_t)                                                          \
  X(uint32, uint32_t)                                                          \
  X(uint64, uint64_t)                                                          \
  X(size, size_t)

#define INT_TYPES(X)                                                           \
  X(char, char)                                                                \
  X(schar, signed char)                                                        \
  X(short, short)                                                              \
  X(int, int)                                                                  \
  X(long, long)                                                                \
  X(longlong, long long)                                                       \
  X(ptrdiff, ptrdiff_t)                                                        \
  BITWISE_TYPES(X)
// clang-format on

#define FLOAT_TYPES(X)                                                         \
  X(float, float) X(double, double) X(longdouble, long double)

#define COMPLEX_TYPES(X)                                                       \
  X(complexf, float _Complex) X(complexd, double _Complex)

#define MINMAX_TEST(TN, CT)                                                    \
  static int minmax_##TN(shmem_team_t t, int inplace)                          \
  {                                                                            \
    int p = shmem_team_my_pe(t), n = shmem_team_n_pes(t);                      \
    CT *s = sbuf, *d = inplace ? sbuf : dbuf;                                  \
    for (int k = 0; k < NR; k++) s[k] = (CT)VAL(p, k);                         \
    shmem_team_sync(t);                                                        \
    TEST_OK(shmem_##TN##_max_reduce(t, d, s, NR));                             \
    for (int k = 0; k < NR; k++) TEST_CHECK(d[k] == (CT)VAL(n - 1, k));        \
    for (int k = 0; k < NR; k++) s[k] = (CT)VAL(p, k);                         \
    shmem_team_sync(t);                                                        \
    TEST_OK(shmem_##TN##_min_reduce(t, d, s, NR));                             \
    for (int k = 0; k < NR; k++) TEST_CHECK(d[k] == (CT)VAL(0, k));            \
    return 2;                                                                  \
  }

#define ARITH_TEST(TN, CT)                                                     \
  static int arith_##TN(shmem_team_t t, int inplace)                           \
  {                                                                            \
    int p = shmem_team_my_pe(t), n = shmem_team_n_pes(t);                      \
    CT *s = sbuf, *d = inplace ? sbuf : dbuf;                                  \
    for (int k = 0; k < NR; k++) s[k] = (CT)VAL(p, k);                         \
    shmem_team_sync(t);                                                        \
    TEST_OK(shmem_##TN##_sum_reduce(t, d, s, NR));                             \
    for (int k = 0; k < NR; k++)                                               \
      TEST_CHECK(d[k] == (CT)(n * (n + 1) / 2 + n * k));                       \
    for (int k = 0; k < NR; k++) s[k] = (CT)(1 + (p + k) % 2);                 \
    shmem_team_sync(t);                                                        \
    TEST_OK(shmem_##TN##_prod_reduce(t, d, s, NR));                            \
    for (int k = 0; k < NR; k++) {                                             \
      long w = 1;                                                              \
      for (int q = 0; q < n; q++) w *= 1 + (q + k) % 2;                        \
      TEST_CHECK(d[k] == (CT)w);                                               \
    }                                                                          \
    return 2;                                                                  \
  }

#define BITWISE_TEST(TN, CT)                                                   \
  static int bitwise_##TN(shmem_team_t t, int inplace)                         \
  {                                                                            \
    int p = shmem_team_my_pe(t), n = shmem_team_n_pes(t);                      \
    CT *s = sbuf, *d = inplace ? sbuf : dbuf;                                  \
    CT all = 0, xr = 0;                                                        \
    for (int q = 0; q < n; q++)                                                \
      all |= (CT)(1u << q), xr ^= (CT)(1u << q | 64);                          \
    for (int k = 0; k < NR; k++) s[k] = (CT)(1u << p | 64);                    \
    shmem_team_sync(t);                                                        \
    TEST_OK(shmem_##TN##_or_reduce(t, d, s, NR));                              \
    for (int k = 0; k < NR; k++) TEST_CHECK(d[k] == (CT)(all | 64));           \
    for (int k = 0; k < NR; k++) s[k] = (CT)(1u << p | 64);                    \
    shmem_team_sync(t);                                                        \
    TEST_OK(shmem_##TN##_and_reduce(t, d, s, NR));                             \
    for (int k = 0; k < NR; k++) TEST_CHECK(d[k] == (CT)(n == 1 ? 65 : 64));   \
    for (int k = 0; k < NR; k++) s[k] = (CT)(1u << p | 64);                    \
    shmem_team_sync(t);                                                        \
    TEST_OK(shmem_##TN##_xor_reduce(t, d, s, NR));                             \
    for (int k = 0; k < NR; k++) TEST_CHECK(d[k] == xr);                       \
    return 3;                                                                  \
  }

INT_TYPES(MINMAX_TEST)
FLOAT_TYPES(MINMAX_TEST)
INT_TYPES(ARITH_TEST)
FLOAT_TYPES(ARITH_TEST)
COMPLEX_TYPES(ARITH_TEST)
BITWISE_TYPES(BITWISE_TEST)

static int check_team(shmem_team_t t, int inplace)
{
  int count = 0;
  if (t == SHMEM_TEAM_INVALID) return 0;
#define RUN_MINMAX(TN, CT) count += minmax_##TN(t, inplace);
#define RUN_ARITH(TN, CT) count += arith_##TN(t, inplace);
#define RUN_BITWISE(TN, CT) count += bitwise_##TN(t, inplace);
  INT_TYPES(RUN_MINMAX)
  FLOAT_TYPES(RUN_MINMAX)
  INT_TYPES(RUN_ARITH)
  FLOAT_TYPES(RUN_ARITH)
  COMPLEX_TYPES(RUN_ARITH)
  BITWISE_TYPES(RUN_BITWISE)
  return count;
}

int main(void)
{
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  sbuf = shmem_malloc(NR * 16);
  dbuf = shmem_malloc(NR * 16);
  int count = check_team(SHMEM_TEAM_WORLD, 0);
  TEST_CHECK(count == 2 * (7 + 14 + 3) + 2 * (7 + 14 + 3 + 2) + 3 * 14);
  check_team(SHMEM_TEAM_WORLD, 1);
  shmem_team_t odd;
  TEST_OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes > 1 ? 1 : 0, 2,
                                   npes > 1 ? npes / 2 : 1, NULL, 0, &odd));
  check_team(odd, 0);
  shmem_team_destroy(odd);
  /* bad input: invalid team, NULL dest */
  TEST_CHECK(shmem_int_sum_reduce(SHMEM_TEAM_INVALID, dbuf, sbuf, 1) != 0);
  TEST_CHECK(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, NULL, sbuf, 1) != 0);
  shmem_barrier_all();
  if (me == 0)
    printf("test_shmem_coll_reduce: %d reductions ok at %d PEs\n", count, npes);
  shmem_free(sbuf);
  shmem_free(dbuf);
  shmem_finalize();
  return 0;
}
