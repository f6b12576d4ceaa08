/*
 * Team collectives: broadcast, collect, fcollect, alltoall, alltoalls (typed
 * and mem forms) on SHMEM_TEAM_WORLD, on a team numbered backwards (stride
 * -1) and on the even PEs; barrier_all completes puts, team_sync and
 * sync_all synchronize; bad input returns nonzero.
 */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "dart_test.h"

#define N 8

static int me, npes;
static long *src, *dst; /* symmetric, N * npes each */

/* Value of element k of team PE p's contribution. */
static long val(int p, int k)
{
  return 1000L * p + k + 1;
}

static void check_bcast(shmem_team_t t, int root)
{
  int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
  for (int k = 0; k < N; k++) src[k] = val(tme, k), dst[k] = -1;
  shmem_team_sync(t);
  TEST_OK(shmem_long_broadcast(t, dst, src, N, root));
  for (int k = 0; k < N; k++)
    TEST_CHECK_MSG(dst[k] == val(root, k), "bcast root %d of %d: dst[%d] %ld",
                   root, tn, k, dst[k]);
  /* mem form, in place at the root */
  if (tme == root) memcpy(dst, src, N * sizeof(long));
  shmem_team_sync(t);
  TEST_OK(shmem_broadcastmem(t, dst, dst, 3 * sizeof(long), root));
  for (int k = 0; k < 3; k++) TEST_CHECK(dst[k] == val(root, k));
}

static void check_collect(shmem_team_t t)
{
  int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
  for (int k = 0; k < N; k++) src[k] = val(tme, k);
  for (int k = 0; k < N * npes; k++) dst[k] = -1;
  shmem_team_sync(t);
  TEST_OK(shmem_long_fcollect(t, dst, src, N));
  for (int p = 0; p < tn; p++)
    for (int k = 0; k < N; k++) TEST_CHECK(dst[p * N + k] == val(p, k));
  /* collect: team PE p gives p % 3 elements */
  shmem_team_sync(t);
  TEST_OK(shmem_long_collect(t, dst, src, (size_t)(tme % 3)));
  int off = 0;
  for (int p = 0; p < tn; p++)
    for (int k = 0; k < p % 3; k++, off++)
      TEST_CHECK_MSG(dst[off] == val(p, k), "collect: dst[%d] %ld want %ld",
                     off, dst[off], val(p, k));
  shmem_team_sync(t);
  TEST_OK(shmem_collectmem(t, dst, src, sizeof(long)));
  for (int p = 0; p < tn; p++) TEST_CHECK(dst[p] == val(p, 0));
}

static void check_alltoall(shmem_team_t t)
{
  int tme = shmem_team_my_pe(t), tn = shmem_team_n_pes(t);
  const int b = 2;
  /* block for team PE j: value encodes (sender, receiver, k) */
  for (int j = 0; j < tn; j++)
    for (int k = 0; k < b; k++) src[j * b + k] = val(tme, 10 * j + k);
  shmem_team_sync(t);
  TEST_OK(shmem_long_alltoall(t, dst, src, b));
  for (int i = 0; i < tn; i++)
    for (int k = 0; k < b; k++)
      TEST_CHECK_MSG(dst[i * b + k] == val(i, 10 * tme + k),
                     "alltoall: dst[%d] %ld", i * b + k, dst[i * b + k]);
  /* alltoalls: 2 elements, source stride 3, dest stride 2 */
  for (int k = 0; k < N * npes; k++) src[k] = -2, dst[k] = -1;
  for (int j = 0; j < tn; j++)
    for (int k = 0; k < 2; k++) src[(j * 2 + k) * 3] = val(tme, 10 * j + k);
  shmem_team_sync(t);
  TEST_OK(shmem_long_alltoalls(t, dst, src, 2, 3, 2));
  for (int i = 0; i < tn; i++)
    for (int k = 0; k < 2; k++) {
      TEST_CHECK(dst[(i * 2 + k) * 2] == val(i, 10 * tme + k));
      TEST_CHECK(dst[(i * 2 + k) * 2 + 1] == -1); /* gaps untouched */
    }
  shmem_team_sync(t);
  TEST_OK(shmem_alltoallmem(t, dst, src, 0)); /* nothing to move */
}

static void check_team(shmem_team_t t)
{
  if (t == SHMEM_TEAM_INVALID) return;
  for (int r = 0; r < shmem_team_n_pes(t); r++) check_bcast(t, r);
  check_collect(t);
  check_alltoall(t);
  TEST_OK(shmem_team_sync(t));
}

static void check_barrier(void)
{
  /* barrier_all completes every PE's puts: each PE puts its id into the
   * right neighbour's dst[0]. */
  dst[0] = -1;
  shmem_barrier_all();
  shmem_long_p(&dst[0], me, (me + 1) % npes);
  shmem_barrier_all();
  TEST_CHECK(dst[0] == (me + npes - 1) % npes);
  for (int i = 0; i < 20; i++) {
    shmem_sync_all();
    TEST_OK(shmem_team_sync(SHMEM_TEAM_WORLD));
    TEST_OK(shmem_team_sync(SHMEM_TEAM_SHARED));
  }
}

static void check_bad_input(void)
{
  TEST_CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, dst, src, 1, npes) != 0);
  TEST_CHECK(shmem_long_broadcast(SHMEM_TEAM_INVALID, dst, src, 1, 0) != 0);
  TEST_CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, NULL, src, 1) != 0);
  TEST_CHECK(shmem_long_alltoalls(SHMEM_TEAM_WORLD, dst, src, 0, 1, 1) != 0);
  TEST_CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0);
}

int main(void)
{
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  src = shmem_malloc(N * (size_t)npes * 3 * sizeof(long));
  dst = shmem_malloc(N * (size_t)npes * 3 * sizeof(long));
  check_barrier();
  check_team(SHMEM_TEAM_WORLD);
  shmem_team_t back, even;
  TEST_OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL,
                                   0, &back));
  TEST_OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL,
                                   0, &even));
  check_team(back);
  check_team(even);
  shmem_team_destroy(back);
  shmem_team_destroy(even);
  check_bad_input();
  shmem_free(src);
  shmem_free(dst);
  if (me == 0) printf("test_shmem_coll: ok at %d PEs\n", npes);
  shmem_finalize();
  return 0;
}
