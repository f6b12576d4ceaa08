/*
 * Active-set collectives (the deprecated pSync forms): barrier, sync,
 * broadcast32/64, collect32/64, fcollect32/64, alltoall32/64,
 * alltoalls32/64 and the *_to_all reductions, on the whole world, on sets
 * with stride 2 and on sets that leave PE 0 out; pSync arrays allocated and
 * static, reused back to back, and found at SHMEM_SYNC_VALUE afterwards.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dart_test.h"

#define N 6
#define PSYNC 64 /* longs: more than any SHMEM_*_SYNC_SIZE */

static int me, npes;
static int64_t *s64, *d64; /* symmetric, N * npes * 2 each */
static int32_t *s32, *d32;
static long *psync;        /* symmetric, allocated */
static long spsync[PSYNC]; /* symmetric, static */
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];
static double dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + N];

struct aset {
  int start, log, size;
};

static int member(struct aset a)
{
  int st = 1 << a.log;
  return me >= a.start && (me - a.start) % st == 0 &&
         (me - a.start) / st < a.size;
}
static int idx(struct aset a)
{
  return (me - a.start) >> a.log;
}

static void check_psync(long *ps)
{
  shmem_barrier_all();
  for (int i = 0; i < PSYNC; i++)
    TEST_CHECK_MSG(ps[i] == SHMEM_SYNC_VALUE, "pSync[%d] = %ld", i, ps[i]);
}

static void run_bcast(struct aset a, long *ps)
{
  for (int root = 0; root < a.size; root++) {
    for (int k = 0; k < N; k++)
      s64[k] = 100 * idx(a) + k, d64[k] = -1, s32[k] = 7 * idx(a) + k,
      d32[k] = -1;
    shmem_barrier(a.start, a.log, a.size, ps);
    shmem_broadcast64(d64, s64, N, root, a.start, a.log, a.size, ps);
    shmem_broadcast32(d32, s32, N, root, a.start, a.log, a.size, ps);
    for (int k = 0; k < N; k++) {
      /* the root's dest is not written (1.4 semantics) */
      TEST_CHECK(d64[k] == (idx(a) == root ? -1 : 100 * root + k));
      TEST_CHECK(d32[k] == (idx(a) == root ? -1 : 7 * root + k));
    }
  }
}

static void run_collect(struct aset a, long *ps)
{
  for (int k = 0; k < N; k++) s64[k] = 100 * idx(a) + k, s32[k] = -idx(a) - k;
  memset(d64, 0xff, N * sizeof(int64_t) * (size_t)npes);
  shmem_barrier(a.start, a.log, a.size, ps);
  shmem_fcollect64(d64, s64, N, a.start, a.log, a.size, ps);
  shmem_fcollect32(d32, s32, N, a.start, a.log, a.size, ps);
  for (int p = 0; p < a.size; p++)
    for (int k = 0; k < N; k++) {
      TEST_CHECK(d64[p * N + k] == 100 * p + k);
      TEST_CHECK(d32[p * N + k] == -p - k);
    }
  shmem_barrier(a.start, a.log, a.size, ps);
  /* member p gives p + 1 elements */
  shmem_collect64(d64, s64, (size_t)idx(a) + 1, a.start, a.log, a.size, ps);
  shmem_collect32(d32, s32, (size_t)idx(a) + 1, a.start, a.log, a.size, ps);
  for (int p = 0, off = 0; p < a.size; p++)
    for (int k = 0; k <= p; k++, off++) {
      TEST_CHECK_MSG(d64[off] == 100 * p + k, "collect64 [%d] %lld", off,
                     (long long)d64[off]);
      TEST_CHECK(d32[off] == -p - k);
    }
  shmem_barrier(a.start, a.log, a.size, ps);
  /* member p gives p elements: member 0 nothing */
  memset(d64, 0xff, N * sizeof(int64_t) * (size_t)npes);
  shmem_collect64(d64, s64, (size_t)idx(a), a.start, a.log, a.size, ps);
  for (int p = 1, off = 0; p < a.size; p++)
    for (int k = 0; k < p; k++, off++)
      TEST_CHECK_MSG(d64[off] == 100 * p + k,
                     "collect64 (0 from member 0) "
                     "[%d] %lld",
                     off, (long long)d64[off]);
  if (a.size == 1) TEST_CHECK(d64[0] == -1); /* nothing gathered */
}

static void run_alltoall(struct aset a, long *ps)
{
  int i = idx(a);
  for (int j = 0; j < a.size; j++)
    for (int k = 0; k < 2; k++)
      s64[j * 2 + k] = 1000 * i + 10 * j + k, s32[j * 2 + k] = -(10 * i + j);
  shmem_barrier(a.start, a.log, a.size, ps);
  shmem_alltoall64(d64, s64, 2, a.start, a.log, a.size, ps);
  shmem_alltoall32(d32, s32, 2, a.start, a.log, a.size, ps);
  for (int p = 0; p < a.size; p++)
    for (int k = 0; k < 2; k++) {
      TEST_CHECK(d64[p * 2 + k] == 1000 * p + 10 * i + k);
      TEST_CHECK(d32[p * 2 + k] == -(10 * p + i));
    }
  /* alltoalls: 1 element per PE, source stride 2, dest stride 3 */
  for (int j = 0; j < a.size; j++) s64[2 * j] = 1000 * i + j, s32[2 * j] = j;
  memset(d64, 0, 3 * sizeof(int64_t) * (size_t)a.size);
  shmem_barrier(a.start, a.log, a.size, ps);
  shmem_alltoalls64(d64, s64, 3, 2, 1, a.start, a.log, a.size, ps);
  shmem_alltoalls32(d32, s32, 3, 2, 1, a.start, a.log, a.size, ps);
  for (int p = 0; p < a.size; p++) {
    TEST_CHECK(d64[3 * p] == 1000 * p + i && d64[3 * p + 1] == 0);
    TEST_CHECK(d32[3 * p] == i);
  }
}

static void run_to_all(struct aset a, long *ps)
{
  long *ls = (long *)s64, *ld = (long *)d64;
  double *ds = (double *)s32, *dd = (double *)d32;
  int i = idx(a);
  for (int k = 0; k < N; k++) ls[k] = i + k, ds[k] = 0.5 * (i + k);
  shmem_barrier(a.start, a.log, a.size, ps);
  shmem_long_sum_to_all(ld, ls, N, a.start, a.log, a.size, pwrk, ps);
  shmem_double_max_to_all(dd, ds, N, a.start, a.log, a.size, dwrk, ps);
  for (int k = 0; k < N; k++) {
    TEST_CHECK(ld[k] == (long)a.size * (a.size - 1) / 2 + (long)a.size * k);
    TEST_CHECK(dd[k] == 0.5 * (a.size - 1 + k));
  }
  /* in place, same pSync right again */
  shmem_barrier(a.start, a.log, a.size, ps);
  shmem_long_or_to_all(ls, ls, N, a.start, a.log, a.size, pwrk, ps);
  shmem_long_min_to_all(ld, ls, N, a.start, a.log, a.size, pwrk, ps);
  long all = 0;
  for (int p = 0; p < a.size; p++)
    for (int k = 0; k < 1; k++) all |= p;
  TEST_CHECK(ld[0] == all && ls[0] == all);
}

static void run_set(struct aset a, long *ps)
{
  if (member(a)) {
    for (int r = 0; r < 10; r++) {
      shmem_barrier(a.start, a.log, a.size, ps);
      shmem_sync(a.start, a.log, a.size, ps);
    }
    run_bcast(a, ps);
    run_collect(a, ps);
    run_alltoall(a, ps);
    run_to_all(a, ps);
  }
  check_psync(ps);
}

int main(void)
{
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  size_t n = N * (size_t)npes * 3;
  s64 = shmem_malloc(n * sizeof(int64_t));
  d64 = shmem_malloc(n * sizeof(int64_t));
  s32 = shmem_malloc(n * sizeof(int64_t));
  d32 = shmem_malloc(n * sizeof(int64_t));
  psync = shmem_malloc(PSYNC * sizeof(long));
  for (int i = 0; i < PSYNC; i++) psync[i] = spsync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  struct aset sets[] = {
      {0, 0, npes},                                   /* everyone */
      {0, 1, (npes + 1) / 2},                         /* even PEs */
      {npes > 1 ? 1 : 0, 0, npes > 1 ? npes - 1 : 1}, /* all but PE 0 */
      {npes > 1 ? 1 : 0, 1, npes > 1 ? npes / 2 : 1}, /* odd PEs */
      {npes - 1, 0, 1},                               /* the last PE alone */
  };
  for (size_t s = 0; s < sizeof sets / sizeof sets[0]; s++) {
    run_set(sets[s], psync);
    run_set(sets[s], spsync);
  }
  shmem_free(psync);
  shmem_free(d32);
  shmem_free(s32);
  shmem_free(d64);
  shmem_free(s64);
  if (me == 0) printf("test_shmem_coll_active: ok at %d PEs\n", npes);
  shmem_finalize();
  return 0;
}
