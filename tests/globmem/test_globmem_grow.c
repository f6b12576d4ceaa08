/*
 * dart_memalloc and memory the system cannot provide (issue 24, item 2):
 *  - 1 TiB, and more than RAM + swap, return DART_ERR_NOMEM and
 *    DART_GPTR_NULL (unless the kernel overcommits without limit,
 *    vm.overcommit_memory = 1, where nothing is refused), also while
 *    growth blocks are live; allocations keep working afterwards;
 *  - the growth segment reaches only what its owner has committed: a
 *    put, get or atomic past it, on the caller's own unit or a peer's,
 *    returns DART_ERR_INVAL and changes no data.
 */
#include <stdint.h>
#include <stdlib.h>

#include "dart_env.h"
#include "globmem/buddy.h"
#include "globmem/segment.h"
#include "gm_access.h"

#define TIB ((size_t)1 << 40)
#define GIB ((size_t)1 << 30)

static int overcommit_mode(void)
{
  int mode = -1;
  FILE *f = fopen("/proc/sys/vm/overcommit_memory", "r");
  if (f != NULL) {
    if (fscanf(f, "%d", &mode) != 1) mode = -1;
    fclose(f);
  }
  return mode;
}

/* MemTotal + SwapTotal in bytes, 0 if unknown. */
static size_t ram_and_swap(void)
{
  FILE *f = fopen("/proc/meminfo", "r");
  if (f == NULL) return 0;
  char line[256];
  size_t total = 0, kb;
  while (fgets(line, sizeof line, f) != NULL)
    if (sscanf(line, "MemTotal: %zu kB", &kb) == 1 ||
        sscanf(line, "SwapTotal: %zu kB", &kb) == 1)
      total += kb * 1024;
  fclose(f);
  return total;
}

/* dart_memalloc of bytes must be refused with DART_ERR_NOMEM. */
static void expect_nomem(size_t bytes)
{
  dart_gptr_t g;
  dart_ret_t ret = dart_memalloc(bytes, DART_TYPE_BYTE, &g);
  if (overcommit_mode() == 1) { /* the kernel refuses nothing here */
    if (ret == DART_OK) TEST_OK(dart_memfree(g));
    return;
  }
  TEST_CHECK_MSG(ret == DART_ERR_NOMEM, "dart_memalloc(%zu): %d", bytes,
                 (int)ret);
  TEST_CHECK(DART_GPTR_ISNULL(g));
}

static void test_impossible(void)
{
  expect_nomem(TIB);
  size_t big = ram_and_swap();
  TEST_CHECK(big > 0);
  expect_nomem(big + ((size_t)1 << 20));
}

/* Every access of 4 words at g must fail and move no data. */
static void expect_unreachable(dart_gptr_t g)
{
  int64_t junk[4] = {-7, -7, -7, -7}, buf[4] = {5, 5, 5, 5}, one = 1, old = 9;
  TEST_EQ_RET(
      dart_put_blocking(g, junk, 4, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG),
      DART_ERR_INVAL);
  TEST_EQ_RET(dart_put(g, junk, 4, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG),
              DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_get_blocking(buf, g, 4, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG),
      DART_ERR_INVAL);
  g.addr_or_offs.offset += 3 * 8; /* the last word, wholly outside */
  TEST_EQ_RET(dart_fetch_and_op(g, &one, &old, DART_TYPE_LONGLONG, DART_OP_SUM),
              DART_ERR_INVAL);
  TEST_CHECK(buf[0] == 5 && buf[3] == 5 && old == 9);
}

/* Word i of unit u's growth block. */
static int64_t pat(int u, size_t i)
{
  return (int64_t)u * 1000000007 + (int64_t)i;
}

static void test_bounds(void)
{
  size_t pool = dart__buddy_round_pow2(dart__env.local_pool_size);
  dart_gptr_t whole, more, all[64];
  TEST_OK(dart_memalloc(pool, DART_TYPE_BYTE, &whole));
  TEST_OK(dart_memalloc(2 * pool, DART_TYPE_BYTE, &more));
  TEST_CHECK(more.segid == DART__SEG_POOL_GROWTH);
  expect_nomem(TIB); /* with growth blocks live */
  int64_t *m;
  size_t nm = 2 * pool / 8;
  TEST_OK(dart_gptr_getaddr(more, (void **)&m));
  for (size_t i = 0; i < nm; i++) m[i] = pat(me, i);
  dart__segment_t *gs = dart__segment_get(DART_TEAM_ALL, DART__SEG_POOL_GROWTH);
  TEST_CHECK(gs != NULL);
  unsigned long long mine = dart__segment_reach(gs, me), committed[64];
  TEST_CHECK(mine >= more.addr_or_offs.offset + 2 * pool && mine < GIB);
  TEST_CHECK(MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, committed, 1,
                           MPI_UNSIGNED_LONG_LONG,
                           MPI_COMM_WORLD) == MPI_SUCCESS);
  gm_allgather_gptr(more, all);
  for (int k = 0; k < 2; k++) {
    int u = (me + k) % nunits;
    dart_gptr_t far = all[u], edge = all[u];
    far.addr_or_offs.offset += GIB;
    expect_unreachable(far);
    edge.addr_or_offs.offset = committed[u] - 8; /* straddles the end */
    expect_unreachable(edge);
    /* The block itself stays reachable: its last word. */
    int64_t v = -1;
    dart_gptr_t last = all[u];
    last.addr_or_offs.offset += (nm - 1) * 8;
    TEST_OK(
        dart_get_blocking(&v, last, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
    TEST_CHECK_MSG(v == pat(u, nm - 1), "unit %d's last word: %lld", u,
                   (long long)v);
  }
  gm_barrier();
  for (size_t i = 0; i < nm; i++)
    TEST_CHECK_MSG(m[i] == pat(me, i), "word %zu: %lld", i, (long long)m[i]);
  gm_barrier();
  TEST_OK(dart_memfree(more));
  TEST_OK(dart_memfree(whole));
}

/* Allocations after the refusals: pool and growth blocks, read by a peer. */
static void test_after(void)
{
  size_t pool = dart__buddy_round_pow2(dart__env.local_pool_size);
  dart_gptr_t g[3], all[64];
  size_t sz[3] = {64, pool, 4 * pool};
  for (int i = 0; i < 3; i++)
    TEST_OK(dart_memalloc(sz[i], DART_TYPE_BYTE, &g[i]));
  int64_t *p;
  TEST_OK(dart_gptr_getaddr(g[2], (void **)&p));
  p[4 * pool / 8 - 1] = pat(me, 7);
  gm_barrier();
  gm_allgather_gptr(g[2], all);
  int peer = (me + 1) % nunits;
  dart_gptr_t last = all[peer];
  last.addr_or_offs.offset += 4 * pool - 8;
  int64_t v = -1;
  TEST_OK(
      dart_get_blocking(&v, last, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  TEST_CHECK_MSG(v == pat(peer, 7), "got %lld", (long long)v);
  gm_barrier();
  for (int i = 0; i < 3; i++) TEST_OK(dart_memfree(g[i]));
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  test_impossible();
  test_bounds();
  test_after();
  TEST_OK(dart_exit());
  if (me == 0) printf("test_globmem_grow: OK (%d units)\n", nunits);
  return 0;
}
