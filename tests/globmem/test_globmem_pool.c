/*
 * The dart_memalloc pool (issue 15, items 1 and 2):
 *  - DART's own block (the lock word of emulated atomics) is out of reach
 *    of the public API: a zero global pointer, or {own unit, segment 0,
 *    offset 0}, is no live block before the user allocates one there, and
 *    user data written there does not disturb emulated 1-byte atomics;
 *  - a block as large as the whole pool fits, and past it the pool grows:
 *    more than the pool again, reached by peers (get, put, atomics).
 */
#include <stdint.h>
#include <stdlib.h>

#include "dart_env.h"
#include "globmem/buddy.h"
#include "gm_access.h"

static void test_reserved_unreachable(void)
{
  dart_gptr_t zero;
  memset(&zero, 0, sizeof zero);
  zero.unitid = me;
  /* Nothing allocated yet: offset 0 of segment 0 is no block. */
  TEST_EQ_RET(dart_memfree(zero), DART_ERR_INVAL);
  /* The first user block starts at offset 0; fill it with ones. */
  dart_gptr_t g;
  TEST_OK(dart_memalloc(64, DART_TYPE_BYTE, &g));
  TEST_CHECK(g.segid == 0 && g.addr_or_offs.offset == 0);
  unsigned char ones[64];
  memset(ones, 0xff, sizeof ones);
  TEST_OK(dart_put_blocking(g, ones, 64, DART_TYPE_BYTE, DART_TYPE_BYTE));
  gm_barrier();
  /* Emulated 2-byte atomics (Open MPI, RMA path) take the target's lock
   * word: they must not see the user's bytes. */
  dart_gptr_t a;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 4, DART_TYPE_SHORT, &a));
  short *mine;
  TEST_OK(dart_gptr_getaddr(os_at(a, me, 0), (void **)&mine));
  memset(mine, 0, 8);
  gm_barrier();
  short one = 1, old;
  for (int i = 0; i < 10; i++)
    TEST_OK(dart_fetch_and_op(os_at(a, (me + 1) % nunits, 0), &one, &old,
                              DART_TYPE_SHORT, DART_OP_SUM));
  gm_barrier();
  TEST_CHECK_MSG(mine[0] == 10, "got %d", mine[0]);
  TEST_OK(dart_team_memfree(a));
  TEST_OK(dart_memfree(g));
  TEST_EQ_RET(dart_memfree(zero), DART_ERR_INVAL);
}

/* A block of exactly the pool size, then 2x the pool size more. */
static void test_full_and_growth(void)
{
  size_t pool = dart__buddy_round_pow2(dart__env.local_pool_size);
  dart_gptr_t whole, more, all[64];
  TEST_OK(dart_memalloc(pool, DART_TYPE_BYTE, &whole));
  TEST_OK(dart_memalloc(2 * pool, DART_TYPE_BYTE, &more));
  TEST_CHECK(!DART_GPTR_ISNULL(more));
  int64_t *w, *m;
  TEST_OK(dart_gptr_getaddr(whole, (void **)&w));
  TEST_OK(dart_gptr_getaddr(more, (void **)&m));
  size_t nw = pool / 8, nm = 2 * pool / 8;
  w[0] = w[nw - 1] = me;
  m[0] = m[nm - 1] = 1000 + me;
  gm_barrier();
  gm_allgather_gptr(more, all);
  int peer = (me + 1) % nunits;
  int64_t v = -1, one = 1, old = -1;
  dart_gptr_t last = all[peer];
  last.addr_or_offs.offset = (nm - 1) * 8;
  TEST_OK(
      dart_get_blocking(&v, last, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  TEST_CHECK_MSG(v == 1000 + peer, "last word of unit %d's growth: %lld", peer,
                 (long long)v);
  TEST_OK(dart_fetch_and_op(all[peer], &one, &old, DART_TYPE_LONGLONG,
                            DART_OP_SUM));
  TEST_CHECK(old >= 1000 + peer);
  TEST_OK(dart_flush(all[peer]));
  gm_barrier();
  TEST_CHECK_MSG(m[0] == 1000 + me + 1, "first word: %lld", (long long)m[0]);
  TEST_CHECK(w[0] == me && w[nw - 1] == me);
  gm_barrier();
  TEST_OK(dart_memfree(more));
  TEST_OK(dart_memfree(whole));
  TEST_EQ_RET(dart_memfree(more), DART_ERR_INVAL);
  /* Again, after the frees. */
  TEST_OK(dart_memalloc(pool, DART_TYPE_BYTE, &whole));
  TEST_OK(dart_memalloc(pool + 1, DART_TYPE_BYTE, &more));
  TEST_OK(dart_memfree(more));
  TEST_OK(dart_memfree(whole));
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  test_reserved_unreachable();
  test_full_and_growth();
  TEST_OK(dart_exit());
  if (me == 0) printf("test_globmem_pool: OK (%d units)\n", nunits);
  return 0;
}
