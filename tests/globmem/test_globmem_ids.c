/*
 * Segment ids and bad input of the global-memory API: id sequences and
 * reuse, flags, setaddr, and every documented error path (including a bad
 * argument on only one unit of a collective call, which must not hang).
 */
#include <stdint.h>
#include <stdlib.h>

#include "gm_access.h"

static void test_ids(void)
{
  dart_gptr_t a, b, c, r1, r2, r3;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &a));
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &b));
  TEST_CHECK(a.segid > 0 && b.segid == a.segid + 1);
  TEST_OK(dart_team_memfree(b));
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &c));
  /* A freed id is reused by the next allocation (DASH's
   * DARTMemAllocTest.SegmentReuseTest): the free is deferred until every
   * unit has freed it (docs/design.md 3.1), and the creation that
   * collects it takes its id. */
  TEST_CHECK_MSG(c.segid == b.segid, "freed id %d, next allocation %d", b.segid,
                 c.segid);
  TEST_OK(dart_team_memfree(a));
  TEST_OK(dart_team_memfree(c));
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &a));
  TEST_CHECK(a.segid == c.segid - 1); /* lowest freed id first */
  int x[4];
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 4, DART_TYPE_INT, x, &r1));
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 4, DART_TYPE_INT, x, &r2));
  TEST_CHECK(r1.segid < 0 && r2.segid == r1.segid - 1);
  /* Deregistration is local; with peers, the id comes back once every
   * unit has deregistered it: the next registration collects it and takes
   * it (a one-unit team has no window and frees at once). */
  TEST_OK(dart_team_memderegister(r1));
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 0, DART_TYPE_INT, NULL, &r3));
  TEST_CHECK(!DART_GPTR_ISNULL(r3));
  dart_gptr_t r4;
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 1, DART_TYPE_INT, x, &r4));
  TEST_CHECK_MSG(r3.segid == r1.segid && r4.segid == r2.segid - 1,
                 "deregistered %d (then %d): next registrations %d, %d",
                 r1.segid, r2.segid, r3.segid, r4.segid);
  TEST_OK(dart_team_memderegister(r2));
  TEST_OK(dart_team_memderegister(r3));
  TEST_OK(dart_team_memderegister(r4));

  /* flags live in the segment, low 8 bits are copied into the gptr */
  uint16_t f = 7;
  TEST_OK(dart_gptr_getflags(a, &f));
  TEST_CHECK(f == 0);
  dart_gptr_t a2 = a;
  TEST_OK(dart_gptr_setflags(&a2, 0x1234));
  TEST_CHECK(a2.flags == 0x34);
  TEST_OK(dart_gptr_getflags(a, &f));
  TEST_CHECK(f == 0x1234);
  TEST_CHECK(DART_GPTR_EQUAL(a, a2)); /* flags are ignored */

  /* setaddr is the inverse of getaddr */
  dart_gptr_t m = a;
  m.unitid = me;
  char *p;
  TEST_OK(dart_gptr_getaddr(m, (void **)&p));
  TEST_OK(dart_gptr_setaddr(&m, p + 5));
  TEST_CHECK(m.addr_or_offs.offset == 5);
  TEST_EQ_RET(dart_gptr_setaddr(&m, p + 9), DART_ERR_INVAL);
  TEST_EQ_RET(dart_gptr_setaddr(&m, p - 1), DART_ERR_INVAL);
  TEST_OK(dart_team_memfree(a));
}

static void test_bad_collective(void)
{
  dart_gptr_t g = DART_GPTR_NULL;
  /* An allocation collects the registrations deregistered before. */
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &g));
  TEST_OK(dart_team_memfree(g));
  g = DART_GPTR_NULL;
  int w0 = gm_windows();
  TEST_EQ_RET(dart_team_memalloc_aligned(DART_TEAM_NULL, 8, DART_TYPE_BYTE, &g),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_memalloc_aligned(1234, 8, DART_TYPE_BYTE, &g),
              DART_ERR_INVAL);
  TEST_CHECK(DART_GPTR_ISNULL(g));
  TEST_EQ_RET(
      dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, NULL),
      DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_UNDEFINED, &g),
      DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_team_memalloc_aligned(DART_TEAM_ALL, 8, (dart_datatype_t)4711, &g),
      DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_memalloc_aligned(DART_TEAM_ALL, SIZE_MAX / 2,
                                         DART_TYPE_LONG, &g),
              DART_ERR_INVAL);
  /* Only the last unit passes a bad type: everybody fails, nobody hangs. */
  dart_datatype_t t = (me == nunits - 1) ? DART_TYPE_LAST : DART_TYPE_INT;
  TEST_EQ_RET(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, t, &g),
              DART_ERR_INVAL);
  TEST_CHECK(DART_GPTR_ISNULL(g));
  /* Registration of NULL with a non-zero size on one unit. */
  int buf[2];
  TEST_EQ_RET(dart_team_memregister(DART_TEAM_ALL, 2, DART_TYPE_INT,
                                    me == 0 ? NULL : buf, &g),
              DART_ERR_INVAL);
  TEST_CHECK(gm_windows() == w0);
  /* After the failures the ids are still in step on all units. */
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &g));
  dart_gptr_t all[64];
  gm_allgather_gptr(g, all);
  for (int u = 0; u < nunits; u++) TEST_CHECK(all[u].segid == g.segid);

  /* Frees. */
  dart_gptr_t freed = g;
  TEST_OK(dart_team_memfree(g));
  TEST_EQ_RET(dart_team_memfree(freed), DART_ERR_INVAL); /* double free */
  TEST_OK(dart_team_memfree(DART_GPTR_NULL));
  TEST_OK(dart_team_memderegister(DART_GPTR_NULL));
  dart_gptr_t never = freed;
  never.segid = 3000;
  TEST_EQ_RET(dart_team_memfree(never), DART_ERR_INVAL);
  never.teamid = 77;
  TEST_EQ_RET(dart_team_memfree(never), DART_ERR_INVAL);
  /* Wrong release function for the kind. */
  dart_gptr_t r;
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 2, DART_TYPE_INT, buf, &r));
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &g));
  TEST_EQ_RET(dart_team_memfree(r), DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_memderegister(g), DART_ERR_INVAL);
  TEST_EQ_RET(dart_memfree(g), DART_ERR_INVAL);
  dart_gptr_t pool = g;
  pool.segid = 0;
  pool.unitid = me;
  TEST_EQ_RET(dart_team_memfree(pool), DART_ERR_INVAL);
  TEST_OK(dart_team_memderegister(r));
  TEST_OK(dart_team_memfree(g));
  /* r's window lives until the next creation collects it. */
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &g));
  TEST_OK(dart_team_memfree(g));
  TEST_CHECK(gm_windows() == w0);
}

static void test_bad_local(void)
{
  void *addr = (void *)1;
  TEST_EQ_RET(dart_gptr_getaddr(DART_GPTR_NULL, &addr), DART_ERR_INVAL);
  TEST_CHECK(addr == NULL);
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 64, DART_TYPE_BYTE, &g));
  TEST_EQ_RET(dart_gptr_getaddr(g, NULL), DART_ERR_INVAL);
  dart_gptr_t bad = g;
  bad.segid = 999;
  TEST_EQ_RET(dart_gptr_getaddr(bad, &addr), DART_ERR_INVAL);
  uint16_t f = 1;
  TEST_EQ_RET(dart_gptr_getflags(bad, &f), DART_ERR_INVAL);
  TEST_CHECK(f == 0);
  TEST_EQ_RET(dart_gptr_setflags(&bad, 1), DART_ERR_INVAL);
  TEST_EQ_RET(dart_gptr_setaddr(&bad, addr), DART_ERR_INVAL);

  /* The resolver refuses every kind of bad target. */
  dart__target_t t = {0};
  dart_gptr_t x = g;
  x.unitid = nunits;
  TEST_EQ_RET(dart__segment_resolve("test", x, 1, &t), DART_ERR_INVAL);
  x.unitid = -1;
  TEST_EQ_RET(dart__segment_resolve("test", x, 1, &t), DART_ERR_INVAL);
  x = g;
  x.addr_or_offs.offset = 60;
  TEST_OK(dart__segment_resolve("test", x, 4, &t));
  TEST_EQ_RET(dart__segment_resolve("test", x, 5, &t), DART_ERR_INVAL);
  x.addr_or_offs.offset = UINT64_MAX;
  TEST_EQ_RET(dart__segment_resolve("test", x, 2, &t), DART_ERR_INVAL);
  x.addr_or_offs.offset = 64;
  TEST_OK(dart__segment_resolve("test", x, 0, &t));
  TEST_EQ_RET(dart__segment_resolve("test", DART_GPTR_NULL, 1, &t),
              DART_ERR_INVAL);
  dart_gptr_t freed = g;
  TEST_OK(dart_team_memfree(g));
  TEST_EQ_RET(dart__segment_resolve("test", freed, 1, &t), DART_ERR_INVAL);
  TEST_EQ_RET(dart_gptr_getaddr(freed, &addr), DART_ERR_INVAL);

  /* dart_memalloc / dart_memfree */
  TEST_EQ_RET(dart_memalloc(8, DART_TYPE_BYTE, NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_memalloc(8, DART_TYPE_UNDEFINED, &g), DART_ERR_INVAL);
  TEST_CHECK(DART_GPTR_ISNULL(g));
  /* Past the pool's growth area (an address-space reservation). */
  TEST_EQ_RET(dart_memalloc((size_t)1 << 52, DART_TYPE_BYTE, &g),
              DART_ERR_OTHER);
  TEST_CHECK(DART_GPTR_ISNULL(g));
  /* The whole pool is the user's; past it, the pool grows. */
  size_t half = dart__env.local_pool_size / 2;
  TEST_OK(dart_memalloc(2 * half, DART_TYPE_BYTE, &g));
  dart_gptr_t h;
  TEST_OK(dart_memalloc(half, DART_TYPE_BYTE, &h));
  TEST_CHECK(h.segid != g.segid);
  TEST_OK(dart_memfree(h));
  TEST_OK(dart_memfree(g));
  TEST_EQ_RET(dart_memfree(g), DART_ERR_INVAL); /* double free */
  TEST_OK(dart_memfree(DART_GPTR_NULL));
  TEST_OK(dart_memalloc(10, DART_TYPE_BYTE, &g));
  dart_gptr_t interior = g;
  interior.addr_or_offs.offset += 1;
  TEST_EQ_RET(dart_memfree(interior), DART_ERR_INVAL);
  dart_gptr_t other = g;
  other.unitid = (me + 1) % nunits;
  if (nunits > 1) TEST_EQ_RET(dart_memfree(other), DART_ERR_INVAL);
  TEST_OK(dart_memfree(g));

  /* allocator */
  dart_allocator_t a = NULL;
  TEST_EQ_RET(dart_allocator_new(1024, DART_TEAM_NULL, &a), DART_ERR_INVAL);
  TEST_EQ_RET(dart_allocator_alloc(1, DART_TYPE_BYTE, &g, NULL),
              DART_ERR_INVAL);
  TEST_OK(dart_allocator_new(1000, DART_TEAM_ALL, &a)); /* rounded to 1024 */
  TEST_OK(dart_allocator_alloc(1024, DART_TYPE_BYTE, &g, a));
  TEST_EQ_RET(dart_allocator_alloc(1, DART_TYPE_BYTE, &h, a), DART_ERR_NOMEM);
  TEST_CHECK(DART_GPTR_ISNULL(h));
  TEST_EQ_RET(dart_team_memfree(g), DART_ERR_INVAL); /* not a team allocation */
  dart_gptr_t foreign = g;
  foreign.segid = 0;
  TEST_EQ_RET(dart_allocator_free(&foreign, a), DART_ERR_INVAL);
  dart_gptr_t g2 = g;
  TEST_OK(dart_allocator_free(&g, a));
  TEST_EQ_RET(dart_allocator_free(&g2, a), DART_ERR_INVAL); /* double free */
  TEST_OK(dart_allocator_free(&g, a));                      /* NULL: no-op */
  TEST_OK(dart_allocator_destroy(&a));
  TEST_CHECK(a == NULL);
  TEST_EQ_RET(dart_allocator_destroy(&a), DART_ERR_INVAL);
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  test_ids();
  test_bad_collective();
  test_bad_local();
  TEST_OK(dart_exit());
  if (me == 0) printf("test_globmem_ids: OK (%d units)\n", nunits);
  return 0;
}
