/*
 * Gets and puts on the pool growth of every peer while it keeps growing
 * (issue 36, item 5): with a 1 MiB pool, each unit allocates blocks of
 * increasing size with dart_memalloc (so the growth attaches a new piece
 * to the dynamic window again and again), publishes each block, and after
 * every allocation reads the first and last bytes of every block of every
 * unit allocated so far and writes one byte into the newest block of the
 * next unit. Open MPI 4.1.4's osc/ucx crashed (SIGSEGV in
 * uct_posix_rkey_unpack) on the first get after memory was attached above
 * every attached region (globmem/pool.c: the sentinel page).
 */
#include <dash/dart/if/dart.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dart_test.h"

enum { NBLOCKS = 9, EDGE = 64 };

static int me, n;
static dart_gptr_t blocks[NBLOCKS][64]; /* [k][unit] */
static size_t sizes[NBLOCKS];

static unsigned char pattern(int unit, int k)
{
  return (unsigned char)(1 + unit * 16 + k);
}

/* Reads both edges of block k of unit u and checks them. */
static void check_block(int k, int u)
{
  unsigned char v[EDGE];
  dart_gptr_t g = blocks[k][u];
  memset(v, 0, sizeof v);
  TEST_OK(dart_get_blocking(v, g, EDGE, DART_TYPE_BYTE, DART_TYPE_BYTE));
  TEST_CHECK_MSG(v[0] == pattern(u, k) && v[EDGE - 1] == pattern(u, k),
                 "block %d of unit %d: head %d", k, u, v[0]);
  TEST_OK(dart_gptr_incaddr(&g, (int64_t)(sizes[k] - EDGE)));
  memset(v, 0, sizeof v);
  TEST_OK(dart_get_blocking(v, g, EDGE, DART_TYPE_BYTE, DART_TYPE_BYTE));
  TEST_CHECK_MSG(v[0] == pattern(u, k) && v[EDGE - 1] == pattern(u, k),
                 "block %d of unit %d: tail %d", k, u, v[0]);
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t id;
  size_t nu;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&nu));
  me = id.id;
  n = (int)nu;
  TEST_CHECK(n <= 64);
  for (int k = 0; k < NBLOCKS; k++) {
    sizes[k] = ((size_t)64 << 10) << (k / 2); /* 64 KiB .. 1 MiB, twice */
    dart_gptr_t g;
    TEST_OK(dart_memalloc(sizes[k], DART_TYPE_BYTE, &g));
    unsigned char *p;
    TEST_OK(dart_gptr_getaddr(g, (void **)&p));
    memset(p, pattern(me, k), sizes[k]);
    TEST_OK(
        dart_allgather(&g, blocks[k], sizeof g, DART_TYPE_BYTE, DART_TEAM_ALL));
    TEST_OK(dart_barrier(DART_TEAM_ALL));
    for (int j = 0; j <= k; j++)
      for (int u = 0; u < n; u++) check_block(j, u);
    /* a put into the next unit's newest block, seen by its owner */
    int next = (me + 1) % n;
    unsigned char mark = (unsigned char)(200 + me);
    dart_gptr_t t = blocks[k][next];
    TEST_OK(dart_gptr_incaddr(&t, EDGE));
    TEST_OK(dart_put_blocking(t, &mark, 1, DART_TYPE_BYTE, DART_TYPE_BYTE));
    TEST_OK(dart_barrier(DART_TEAM_ALL));
    int prev = (me + n - 1) % n;
    TEST_CHECK_MSG(p[EDGE] == (unsigned char)(200 + prev),
                   "block %d: mark %d from unit %d", k, p[EDGE], prev);
    p[EDGE] = pattern(me, k);
    TEST_OK(dart_barrier(DART_TEAM_ALL));
  }
  for (int k = 0; k < NBLOCKS; k++) TEST_OK(dart_memfree(blocks[k][me]));
  TEST_OK(dart_exit());
  return 0;
}
