/*
 * Point-to-point synchronization and signals: wait_until / test and the
 * _all, _any, _some and _vector forms (with status masks), the deprecated
 * wait, put_signal / put_signal_nbi with SET and ADD, signal_fetch and
 * signal_wait_until, fence ordering of a data put before a flag put,
 * fairness of test_any/wait_until_any (every satisfied entry is reported in
 * turn, as the OpenSHMEM 1.5 example of shmem_test_any requires).
 */
#include <shmem.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dart_test.h"

#define N 8
static long flags[N];
static int iflags[N];
static uint64_t sig;
static double data[64];

static void set_family(int me, int n)
{
  int r = (me + 1) % n;
  memset(flags, 0, sizeof flags);
  shmem_barrier_all();
  /* right neighbour's flags[i] = i + 1, for all i */
  for (int i = 0; i < N; i++) shmem_long_p(&flags[i], i + 1, r);
  shmem_quiet();
  shmem_long_wait_until_all(flags, N, NULL, SHMEM_CMP_GT, 0);
  for (int i = 0; i < N; i++) TEST_CHECK(flags[i] == i + 1);
  size_t idx = shmem_long_wait_until_any(flags, N, NULL, SHMEM_CMP_EQ, 3);
  TEST_CHECK(idx == 2);
  size_t ind[N];
  size_t cnt = shmem_long_wait_until_some(flags, N, ind, NULL, SHMEM_CMP_GE, 7);
  TEST_CHECK(cnt == 2 && ind[0] == 6 && ind[1] == 7);
  int status[N] = {0};
  status[6] = status[7] = 1; /* excluded */
  TEST_CHECK(shmem_long_test_any(flags, N, status, SHMEM_CMP_GE, 7) ==
             SIZE_MAX);
  TEST_CHECK(shmem_long_test_some(flags, N, ind, status, SHMEM_CMP_GE, 7) == 0);
  TEST_CHECK(shmem_long_test_all(flags, N, status, SHMEM_CMP_LE, 6) == 1);
  long vals[N];
  for (int i = 0; i < N; i++) vals[i] = i + 1;
  shmem_long_wait_until_all_vector(flags, N, NULL, SHMEM_CMP_EQ, vals);
  TEST_CHECK(shmem_long_test_all_vector(flags, N, NULL, SHMEM_CMP_EQ, vals));
  vals[4] = 0;
  TEST_CHECK(shmem_long_test_any_vector(flags, N, NULL, SHMEM_CMP_NE, vals) ==
             4);
  TEST_CHECK(shmem_long_wait_until_any_vector(flags, N, NULL, SHMEM_CMP_NE,
                                              vals) == 4);
  TEST_CHECK(shmem_long_wait_until_some_vector(flags, N, ind, NULL,
                                               SHMEM_CMP_NE, vals) == 1 &&
             ind[0] == 4);
  TEST_CHECK(shmem_long_test_some_vector(flags, N, ind, NULL, SHMEM_CMP_EQ,
                                         vals) == N - 1);
  TEST_CHECK(shmem_long_test(&flags[0], SHMEM_CMP_EQ, 1));
  TEST_CHECK(!shmem_long_test(&flags[0], SHMEM_CMP_LT, 1));
  /* all excluded: wait_until_any returns SIZE_MAX at once */
  int none[N];
  for (int i = 0; i < N; i++) none[i] = 1;
  TEST_CHECK(shmem_long_wait_until_any(flags, N, none, SHMEM_CMP_EQ, -5) ==
             SIZE_MAX);
  shmem_barrier_all();
}

static void ping(int me, int n)
{
  /* a token travels around the ring twice: wait_until + p, then the
   * deprecated shmem_int_wait and generic shmem_wait_until */
  memset(iflags, 0, sizeof iflags);
  shmem_barrier_all();
  int r = (me + 1) % n;
  for (int round = 1; round <= 2; round++) {
    if (me == 0) {
      shmem_int_p(&iflags[0], round, r);
      shmem_wait_until(&iflags[0], SHMEM_CMP_EQ, round);
    } else {
      shmem_int_wait_until(&iflags[0], SHMEM_CMP_EQ, round);
      shmem_int_p(&iflags[0], round, r);
    }
  }
  shmem_barrier_all();
  iflags[1] = 0;
  shmem_barrier_all();
  shmem_int_p(&iflags[1], 5, r);
  shmem_int_wait(&iflags[1], 0);
  TEST_CHECK(iflags[1] == 5);
  shmem_barrier_all();
}

static void signals(int me, int n)
{
  int r = (me + 1) % n, l = (me + n - 1) % n;
  sig = 0;
  memset(data, 0, sizeof data);
  shmem_barrier_all();
  double src[64];
  for (int round = 1; round <= 3; round++) {
    for (int i = 0; i < 64; i++) src[i] = me * 1000 + round * 100 + i;
    if (round == 2)
      shmem_double_put_signal_nbi(data, src, 64, &sig, round, SHMEM_SIGNAL_SET,
                                  r);
    else
      shmem_putmem_signal(data, src, sizeof src, &sig, round, SHMEM_SIGNAL_SET,
                          r);
    uint64_t v = shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, round);
    TEST_CHECK(v == (uint64_t)round);
    for (int i = 0; i < 64; i++)
      TEST_CHECK(data[i] == l * 1000 + round * 100 + i);
    shmem_quiet();
    shmem_barrier_all();
  }
  /* every PE adds 1 to PE 0's signal with an 8-byte payload */
  sig = 0;
  shmem_barrier_all();
  double one = me;
  shmem_ctx_putmem_signal(SHMEM_CTX_DEFAULT, &data[me], &one, sizeof one, &sig,
                          1, SHMEM_SIGNAL_ADD, 0);
  if (me == 0) {
    shmem_signal_wait_until(&sig, SHMEM_CMP_EQ, (uint64_t)n);
    TEST_CHECK(shmem_signal_fetch(&sig) == (uint64_t)n);
    for (int i = 0; i < n; i++) TEST_CHECK(data[i] == i);
  }
  shmem_barrier_all();
}

static void fence_order(int me, int n)
{
  /* put data, fence, put flag: the flag implies the data */
  int r = (me + 1) % n, l = (me + n - 1) % n;
  memset(flags, 0, sizeof flags);
  memset(data, 0, sizeof data);
  shmem_barrier_all();
  double v[64];
  for (int i = 0; i < 64; i++) v[i] = me + i;
  shmem_double_put(data, v, 64, r);
  shmem_fence();
  shmem_long_p(&flags[0], 1, r);
  shmem_long_wait_until(&flags[0], SHMEM_CMP_EQ, 1);
  for (int i = 0; i < 64; i++) TEST_CHECK(data[i] == l + i);
  shmem_barrier_all();
}

/* The specification's shmem_test_any example: every PE sets its entry of
 * a calloc'd flag array on every PE, collects them with test_any and a
 * status mask, then calls test_any without a mask until each index came
 * back once. Round robin reports all N within N calls; 4 N bounds it. */
static void any_fairness(int me, int n)
{
  int *fl = shmem_calloc((size_t)n, sizeof(int));
  TEST_CHECK(fl != NULL);
  int *status = calloc((size_t)n, sizeof(int));
  int *found = calloc((size_t)n, sizeof(int));
  TEST_CHECK(status != NULL && found != NULL);
  for (int i = 0; i < n; i++) shmem_int_atomic_set(&fl[me], 1, i);
  for (int got = 0; got < n;) {
    size_t idx = shmem_int_test_any(fl, (size_t)n, status, SHMEM_CMP_EQ, 1);
    if (idx == SIZE_MAX) continue;
    TEST_CHECK(idx < (size_t)n && status[idx] == 0);
    status[idx] = 1;
    got++;
  }
  int got = 0;
  for (int k = 0; k < 4 * n && got < n; k++) {
    size_t idx = shmem_int_test_any(fl, (size_t)n, NULL, SHMEM_CMP_EQ, 1);
    TEST_CHECK(idx < (size_t)n);
    if (!found[idx]) got++;
    found[idx] = 1;
  }
  TEST_CHECK(got == n);
  got = 0;
  memset(found, 0, (size_t)n * sizeof(int));
  for (int k = 0; k < 4 * n && got < n; k++) {
    size_t idx = shmem_int_wait_until_any(fl, (size_t)n, NULL, SHMEM_CMP_EQ, 1);
    TEST_CHECK(idx < (size_t)n);
    if (!found[idx]) got++;
    found[idx] = 1;
  }
  TEST_CHECK(got == n);
  free(status);
  free(found);
  shmem_free(fl);
}

int main(void)
{
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  set_family(me, n);
  ping(me, n);
  signals(me, n);
  fence_order(me, n);
  any_fairness(me, n);
  shmem_finalize();
  return 0;
}
