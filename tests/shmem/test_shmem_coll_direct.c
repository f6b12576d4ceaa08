/*
 * The world collectives above DART's slot size (more than 4 KiB per PE),
 * which on one node move the data by load/store on the peers' symmetric
 * memory (shmem/src/coll_direct.c) and elsewhere (DART_SIM_NODE_SIZE=1)
 * take DART's collectives: active-set broadcast64 (every root; the root's
 * dest untouched), fcollect64, collect64 (uneven sizes, one PE adding
 * nothing), the *_to_all reductions (in place too, sources in data+BSS and
 * on the heap), and the team forms on SHMEM_TEAM_WORLD (broadcastmem with
 * the root's dest written, fcollectmem, int64_collect, reductions in and
 * out of place).
 * Sizes just at and just above the limit; a PE whose source is private
 * memory (not symmetric) must not split the PEs between two paths.
 * Every result is checked element by element, and the bytes around the
 * destination are checked untouched.
 */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_test.h"

#define NMAX 3000 /* int64 elements per PE: 24000 bytes */
#define GUARD 8   /* elements after every destination, must stay -7 */

static int me, npes;
static int64_t *src, *dst; /* symmetric: NMAX, NMAX * npes + GUARD */
static long psync[SHMEM_COLLECT_SYNC_SIZE > SHMEM_REDUCE_SYNC_SIZE
                      ? SHMEM_COLLECT_SYNC_SIZE
                      : SHMEM_REDUCE_SYNC_SIZE];
static int64_t pwrk[NMAX];
static int64_t dsrc[NMAX];                      /* symmetric, in data+BSS */
static const size_t sizes[] = {512, 513, NMAX}; /* 4096, 4104, 24000 bytes */

static int64_t val(int p, size_t k)
{
  return 100000 * (int64_t)p + (int64_t)k + 1;
}

static void reset(size_t n_dst)
{
  for (size_t k = 0; k < n_dst + GUARD; k++) dst[k] = -7;
}

static void check_guard(size_t n_dst, const char *what)
{
  for (size_t k = n_dst; k < n_dst + GUARD; k++)
    TEST_CHECK_MSG(dst[k] == -7, "%s: dst[%zu] written (%lld)", what, k,
                   (long long)dst[k]);
}

static void active_bcast(size_t n)
{
  for (int root = 0; root < npes; root++) {
    for (size_t k = 0; k < n; k++) src[k] = val(me, k);
    reset(n);
    shmem_barrier_all();
    shmem_broadcast64(dst, src, n, root, 0, 0, npes, psync);
    for (size_t k = 0; k < n; k++)
      TEST_CHECK_MSG(dst[k] == (me == root ? -7 : val(root, k)),
                     "broadcast64 n %zu root %d: dst[%zu] %lld", n, root, k,
                     (long long)dst[k]);
    check_guard(n, "broadcast64");
  }
}

static void active_fcollect(size_t n, int private_src)
{
  int64_t *s = src;
  if (private_src && me == 0 && (s = malloc(n * sizeof *s)) == NULL) abort();
  for (size_t k = 0; k < n; k++) s[k] = val(me, k);
  reset(n * npes);
  shmem_barrier_all();
  shmem_fcollect64(dst, s, n, 0, 0, npes, psync);
  for (int p = 0; p < npes; p++)
    for (size_t k = 0; k < n; k++)
      TEST_CHECK_MSG(dst[p * n + k] == val(p, k),
                     "fcollect64 n %zu%s: dst[%d * n + %zu] %lld", n,
                     private_src ? " (private source on PE 0)" : "", p, k,
                     (long long)dst[p * n + k]);
  check_guard(n * npes, "fcollect64");
  if (s != src) free(s);
}

/* PE p adds (p * 7 + 3) % (n + 1) elements; the last PE adds none. */
static size_t share(int p, size_t n)
{
  return p == npes - 1 && npes > 1 ? 0 : ((size_t)p * 7 + 3) * 997 % (n + 1);
}

static void active_collect(size_t n)
{
  for (size_t k = 0; k < n; k++) src[k] = val(me, k);
  size_t total = 0;
  for (int p = 0; p < npes; p++) total += share(p, n);
  reset(total);
  shmem_barrier_all();
  shmem_collect64(dst, src, share(me, n), 0, 0, npes, psync);
  size_t off = 0;
  for (int p = 0; p < npes; p++)
    for (size_t k = 0; k < share(p, n); k++, off++)
      TEST_CHECK_MSG(dst[off] == val(p, k), "collect64 n %zu: dst[%zu] %lld", n,
                     off, (long long)dst[off]);
  check_guard(total, "collect64");
}

static void active_reduce(size_t n, int64_t *s, int inplace)
{
  int64_t *d = inplace ? s : dst;
  for (size_t k = 0; k < n; k++) s[k] = val(me, k);
  if (!inplace) reset(n);
  shmem_barrier_all();
  shmem_longlong_sum_to_all((long long *)d, (long long *)s, (int)n, 0, 0, npes,
                            (long long *)pwrk, psync);
  int64_t base = 100000 * (int64_t)npes * (npes - 1) / 2;
  for (size_t k = 0; k < n; k++)
    TEST_CHECK_MSG(d[k] == base + npes * ((int64_t)k + 1),
                   "longlong_sum_to_all n %zu%s: [%zu] %lld", n,
                   inplace ? " in place" : "", k, (long long)d[k]);
  if (!inplace) check_guard(n, "longlong_sum_to_all");
  shmem_barrier_all();
  shmem_longlong_max_to_all((long long *)d, (long long *)s, (int)n, 0, 0, npes,
                            (long long *)pwrk, psync);
  /* in place the sources now hold the sums, equal on every PE */
  for (size_t k = 0; k < n; k++) {
    int64_t want = inplace ? base + npes * ((int64_t)k + 1) : val(npes - 1, k);
    TEST_CHECK_MSG(d[k] == want, "longlong_max_to_all n %zu%s: [%zu] %lld", n,
                   inplace ? " in place" : "", k, (long long)d[k]);
  }
}

static void team_forms(size_t n)
{
  shmem_team_t w = SHMEM_TEAM_WORLD;
  for (int root = 0; root < npes; root++) {
    for (size_t k = 0; k < n; k++) src[k] = val(me, k);
    reset(n);
    shmem_team_sync(w);
    TEST_OK(shmem_broadcastmem(w, dst, src, n * sizeof *dst, root));
    for (size_t k = 0; k < n; k++) /* the root's dest written too (1.5) */
      TEST_CHECK_MSG(dst[k] == val(root, k), "broadcastmem root %d: [%zu] %lld",
                     root, k, (long long)dst[k]);
    check_guard(n, "broadcastmem");
  }
  reset(n * npes);
  shmem_team_sync(w);
  TEST_OK(shmem_fcollectmem(w, dst, src, n * sizeof *dst));
  for (int p = 0; p < npes; p++)
    for (size_t k = 0; k < n; k++) TEST_CHECK(dst[p * n + k] == val(p, k));
  check_guard(n * npes, "fcollectmem");
  size_t total = 0;
  for (int p = 0; p < npes; p++) total += share(p, n);
  reset(total);
  shmem_team_sync(w);
  TEST_OK(shmem_int64_collect(w, dst, src, share(me, n)));
  size_t off = 0;
  for (int p = 0; p < npes; p++)
    for (size_t k = 0; k < share(p, n); k++, off++)
      TEST_CHECK_MSG(dst[off] == val(p, k), "int64_collect n %zu: [%zu] %lld",
                     n, off, (long long)dst[off]);
  check_guard(total, "int64_collect");
  /* reductions: out of place, then in place; doubles of integers add up
   * exactly, so every PE must see the same bits */
  double *ds = (double *)(void *)src, *dd = (double *)(void *)dst;
  for (size_t k = 0; k < n; k++) ds[k] = (double)val(me, k);
  reset(n);
  shmem_team_sync(w);
  TEST_OK(shmem_double_sum_reduce(w, dd, ds, n));
  double want = 100000.0 * npes * (npes - 1) / 2;
  for (size_t k = 0; k < n; k++)
    TEST_CHECK_MSG(dd[k] == want + npes * ((double)k + 1),
                   "double_sum_reduce: [%zu] %g", k, dd[k]);
  check_guard(n, "double_sum_reduce");
  shmem_team_sync(w);
  TEST_OK(shmem_double_max_reduce(w, ds, ds, n));
  for (size_t k = 0; k < n; k++)
    TEST_CHECK_MSG(ds[k] == (double)val(npes - 1, k),
                   "double_max_reduce in place: [%zu] %g", k, ds[k]);
}

int main(void)
{
  shmem_init();
  me = shmem_my_pe();
  npes = shmem_n_pes();
  for (size_t i = 0; i < sizeof psync / sizeof *psync; i++)
    psync[i] = SHMEM_SYNC_VALUE;
  src = shmem_malloc(NMAX * sizeof *src);
  dst = shmem_malloc((NMAX * (size_t)npes + GUARD) * sizeof *dst);
  TEST_CHECK(src != NULL && dst != NULL);
  shmem_barrier_all();
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    size_t n = sizes[i];
    active_bcast(n);
    active_fcollect(n, 0);
    active_fcollect(n, 1);
    active_collect(n);
    active_reduce(n, src, 0);
    active_reduce(n, src, 1);
    active_reduce(n, dsrc, 0);
    team_forms(n);
  }
  shmem_barrier_all();
  if (me == 0)
    printf("test_shmem_coll_direct: ok at %d PEs (%s)\n", npes,
           getenv("DART_SIM_NODE_SIZE") ? "simulated nodes" : "one node");
  shmem_free(dst);
  shmem_free(src);
  shmem_finalize();
  return 0;
}
