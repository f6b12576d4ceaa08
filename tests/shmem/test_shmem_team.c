/*
 * Teams: SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED, split_strided (positive,
 * negative and unit strides, PEs left out), split_2d, translate_pe,
 * get_config, destroy, and the bad-input returns.
 */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "dart_test.h"

static int me, npes;
static int *src, *dst, *all, *probe; /* symmetric */

static void check_world_shared(void)
{
  TEST_CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me);
  TEST_CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes);
  int ns = shmem_team_n_pes(SHMEM_TEAM_SHARED);
  int ms = shmem_team_my_pe(SHMEM_TEAM_SHARED);
  TEST_CHECK(ns >= 1 && ns <= npes && ms >= 0 && ms < ns);
  /* DART_SIM_NODE_SIZE=k makes nodes of k consecutive PEs. */
  const char *sim = getenv("DART_SIM_NODE_SIZE");
  if (sim != NULL && atoi(sim) > 0) {
    int k = atoi(sim), first = me / k * k;
    int want = npes - first < k ? npes - first : k;
    TEST_CHECK_MSG(ns == want, "SHARED has %d PEs, want %d", ns, want);
    TEST_CHECK(ms == me - first);
  }
  /* SHARED is exactly what shmem_ptr reaches. */
  for (int p = 0; p < npes; p++) {
    int t = shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_SHARED);
    TEST_CHECK_MSG((t >= 0) == (shmem_ptr(probe, p) != NULL),
                   "PE %d: SHARED PE %d, shmem_ptr %p", p, t,
                   shmem_ptr(probe, p));
    if (t >= 0)
      TEST_CHECK(
          shmem_team_translate_pe(SHMEM_TEAM_SHARED, t, SHMEM_TEAM_WORLD) == p);
  }
  TEST_CHECK(
      shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_WORLD) == -1);
  TEST_CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, -1, SHMEM_TEAM_WORLD) ==
             -1);
  TEST_CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1);
  TEST_CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1);
}

/* A strided team: membership, numbering, translation both ways, a sum. */
static void check_strided(int start, int stride, int size)
{
  shmem_team_t t;
  shmem_team_config_t cfg = {.num_contexts = 2};
  TEST_OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, &cfg,
                                   SHMEM_TEAM_NUM_CONTEXTS, &t));
  int idx = -1;
  for (int i = 0; i < size; i++)
    if (start + i * stride == me) idx = i;
  TEST_CHECK_MSG((t != SHMEM_TEAM_INVALID) == (idx >= 0),
                 "start %d stride %d size %d: member %d", start, stride, size,
                 idx);
  TEST_CHECK(shmem_team_my_pe(t) == idx);
  if (t == SHMEM_TEAM_INVALID) return;
  TEST_CHECK(shmem_team_n_pes(t) == size);
  for (int i = 0; i < size; i++) {
    TEST_CHECK(shmem_team_translate_pe(t, i, SHMEM_TEAM_WORLD) ==
               start + i * stride);
    TEST_CHECK(
        shmem_team_translate_pe(SHMEM_TEAM_WORLD, start + i * stride, t) == i);
  }
  shmem_team_config_t got = {.num_contexts = -1};
  TEST_OK(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got));
  TEST_CHECK(got.num_contexts == 2);
  /* A collective on the team: sum of the world ids, and team order. */
  src[0] = me;
  src[1] = 1;
  TEST_OK(shmem_int_sum_reduce(t, dst, src, 2));
  int want = 0;
  for (int i = 0; i < size; i++) want += start + i * stride;
  TEST_CHECK_MSG(dst[0] == want && dst[1] == size, "sum %d/%d, want %d/%d",
                 dst[0], dst[1], want, size);
  TEST_OK(shmem_int_fcollect(t, all, src, 1));
  for (int i = 0; i < size; i++) TEST_CHECK(all[i] == start + i * stride);
  shmem_team_sync(t);
  shmem_team_destroy(t);
}

static void check_2d(int xrange)
{
  shmem_team_t xt, yt;
  shmem_team_config_t xc = {.num_contexts = 1}, yc = {.num_contexts = 3};
  TEST_OK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, &xc,
                              SHMEM_TEAM_NUM_CONTEXTS, &xt, &yc, 0, &yt));
  int xr = xrange > npes ? npes : xrange;
  TEST_CHECK(xt != SHMEM_TEAM_INVALID && yt != SHMEM_TEAM_INVALID);
  int row = me / xr, col = me % xr;
  int xsize = npes - row * xr < xr ? npes - row * xr : xr;
  int ysize = (npes - col + xr - 1) / xr;
  TEST_CHECK(shmem_team_my_pe(xt) == col && shmem_team_n_pes(xt) == xsize);
  TEST_CHECK(shmem_team_my_pe(yt) == row && shmem_team_n_pes(yt) == ysize);
  for (int i = 0; i < ysize; i++)
    TEST_CHECK(shmem_team_translate_pe(yt, i, SHMEM_TEAM_WORLD) ==
               col + i * xr);
  TEST_CHECK(shmem_team_translate_pe(xt, 0, yt) == (col == 0 ? row : -1));
  shmem_team_config_t got = {.num_contexts = -1};
  TEST_OK(shmem_team_get_config(xt, SHMEM_TEAM_NUM_CONTEXTS, &got));
  TEST_CHECK(got.num_contexts == 1);
  TEST_OK(shmem_team_get_config(yt, SHMEM_TEAM_NUM_CONTEXTS, &got));
  TEST_CHECK(got.num_contexts == 0); /* mask 0: defaults */
  /* Nested: split the y team again by 2. */
  shmem_team_t yy;
  TEST_OK(shmem_team_split_strided(yt, 0, 2, (ysize + 1) / 2, NULL, 0, &yy));
  TEST_CHECK((yy != SHMEM_TEAM_INVALID) == (row % 2 == 0));
  if (yy != SHMEM_TEAM_INVALID)
    TEST_CHECK(shmem_team_translate_pe(yy, shmem_team_my_pe(yy),
                                       SHMEM_TEAM_WORLD) == me);
  shmem_team_destroy(yy);
  shmem_team_destroy(xt);
  shmem_team_destroy(yt);
}

static void check_bad_input(void)
{
  shmem_team_t t = (shmem_team_t)&t;
  shmem_team_config_t cfg;
  /* Out of range: nonzero everywhere, no team; one line each on stderr. */
  TEST_CHECK(
      shmem_team_split_strided(SHMEM_TEAM_WORLD, npes, 1, 1, NULL, 0, &t) != 0);
  TEST_CHECK(t == SHMEM_TEAM_INVALID);
  TEST_CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0,
                                      &t) != 0);
  TEST_CHECK(
      shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, -1, 2, NULL, 0, &t) != 0 ||
      npes < 2);
  TEST_CHECK(
      shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0);
  TEST_CHECK(t == SHMEM_TEAM_INVALID);
  TEST_CHECK(
      shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &t, NULL, 0, &t) != 0);
  TEST_CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, 0, &cfg) != 0);
  shmem_team_destroy(SHMEM_TEAM_INVALID); /* no-op */
  /* A destroyed team is recognized as such. */
  shmem_team_t d;
  TEST_OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &d));
  shmem_team_destroy(d);
  TEST_CHECK(shmem_team_my_pe(d) == -1);
  TEST_CHECK(shmem_team_sync(d) != 0);
}

int main(void)
{
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  src = shmem_malloc(2 * sizeof(int));
  dst = shmem_malloc(2 * sizeof(int));
  all = shmem_malloc((size_t)npes * sizeof(int));
  probe = shmem_malloc(sizeof(int));
  check_world_shared();
  check_strided(0, 1, npes);
  check_strided(0, 2, (npes + 1) / 2);
  check_strided(npes - 1, -1, npes);
  check_strided(npes - 1, -2, (npes + 1) / 2);
  check_strided(npes / 2, 1, npes - npes / 2);
  check_strided(npes - 1, 0, 1);
  for (int x = 1; x <= npes + 1; x++) check_2d(x);
  check_bad_input();
  /* Many teams in a row (created and destroyed). */
  for (int i = 0; i < 40; i++) {
    shmem_team_t t;
    TEST_OK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, 1 + i % npes, NULL,
                                     0, &t));
    shmem_team_destroy(t);
  }
  shmem_barrier_all();
  if (me == 0) printf("test_shmem_team: ok at %d PEs\n", npes);
  shmem_finalize();
  return 0;
}
