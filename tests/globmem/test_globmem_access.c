/*
 * Remote read/write of memory from every kind of allocation by every unit:
 * dart_memalloc, team allocations with uneven and zero sizes (page-aligned
 * portions), registrations (incl. size 0 with NULL) and allocator blocks.
 */
#include <stdint.h>
#include <stdlib.h>

#include "gm_access.h"

/* Every unit checks the owner's initial pattern in every portion of the
 * segment, then writes its own slot of every portion; owners verify. */
static void exercise_collective(dart_gptr_t g, const size_t *sizes)
{
  enum { SLOT_MAX = 64 };
  for (int v = 0; v < nunits; v++) {
    dart_gptr_t gv = g;
    gv.unitid = v;
    size_t n = sizes[v];
    unsigned char *buf = malloc(n + 1);
    gm_get(buf, gv, n);
    for (size_t i = 0; i < n; i++)
      TEST_CHECK_MSG(buf[i] == gm_pat(v, i, 0), "unit %d byte %zu", v, i);
    free(buf);
  }
  gm_barrier();
  for (int v = 0; v < nunits; v++) {
    size_t slot = sizes[v] / (size_t)nunits;
    if (slot > SLOT_MAX) slot = SLOT_MAX;
    unsigned char src[SLOT_MAX];
    for (size_t i = 0; i < slot; i++) src[i] = gm_pat(me, i, 1);
    dart_gptr_t gv = g;
    gv.unitid = v;
    gv.addr_or_offs.offset = (uint64_t)me * slot;
    if (slot > 0) gm_put(gv, src, slot);
  }
  gm_barrier();
  dart_gptr_t mine = g;
  mine.unitid = me;
  mine.addr_or_offs.offset = 0;
  unsigned char *p;
  TEST_OK(dart_gptr_getaddr(mine, (void **)&p));
  size_t slot = sizes[me] / (size_t)nunits;
  if (slot > SLOT_MAX) slot = SLOT_MAX;
  for (int w = 0; w < nunits; w++)
    for (size_t i = 0; i < slot; i++)
      TEST_CHECK(p[(size_t)w * slot + i] == gm_pat(w, i, 1));
  gm_barrier();
}

/* Common checks of a collective gptr: exact value, same on all units,
 * local address only for the own unit. Fills the owner pattern. */
static unsigned char *check_collective_gptr(dart_gptr_t g, size_t mysize)
{
  TEST_CHECK(g.unitid == 0 && g.flags == 0 && g.teamid == DART_TEAM_ALL);
  TEST_CHECK(g.addr_or_offs.offset == 0);
  dart_gptr_t all[64];
  gm_allgather_gptr(g, all);
  for (int u = 0; u < nunits; u++) TEST_CHECK(DART_GPTR_EQUAL(all[u], g));
  unsigned char *p = NULL;
  dart_gptr_t mine = g;
  mine.unitid = me;
  TEST_OK(dart_gptr_getaddr(mine, (void **)&p));
  TEST_CHECK(mysize == 0 || p != NULL);
  TEST_CHECK(((uintptr_t)p & 15) == 0);
  for (int u = 0; u < nunits; u++) {
    if (u == me) continue;
    void *q = (void *)1;
    dart_gptr_t o = g;
    o.unitid = u;
    TEST_OK(dart_gptr_getaddr(o, &q));
    TEST_CHECK(q == NULL);
  }
  for (size_t i = 0; i < mysize; i++) p[i] = gm_pat(me, i, 0);
  return p;
}

static size_t uneven_size(int u)
{
  return (u % 3 == 1) ? 0 : 300 + 40 * (size_t)u;
}

/* Allocated portions start on a page boundary, in every mapping of them
 * (uneven sizes give every unit a different offset in MPICH's window). */
static void check_page_aligned(dart_gptr_t g, const size_t *sizes)
{
  for (int u = 0; u < nunits; u++) {
    dart__target_t t = {0};
    dart_gptr_t o = g;
    o.unitid = u;
    o.addr_or_offs.offset = 0;
    TEST_OK(dart__segment_resolve("test", o, 0, &t));
    if (t.local != NULL && sizes[u] > 0)
      TEST_CHECK_MSG(((uintptr_t)t.local & 4095) == 0, "unit %d at %p", u,
                     t.local);
  }
}

static void test_team_alloc(void)
{
  size_t sizes[64];
  for (int u = 0; u < nunits; u++) sizes[u] = uneven_size(u);
  dart_gptr_t g;
  TEST_OK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, sizes[me], DART_TYPE_BYTE, &g));
  TEST_CHECK(g.segid > 0);
  check_collective_gptr(g, sizes[me]);
  check_page_aligned(g, sizes);
  gm_barrier();
  exercise_collective(g, sizes);
  /* Same through a multi-byte type: nelem counts elements. */
  dart_gptr_t h;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 10, DART_TYPE_DOUBLE, &h));
  TEST_CHECK(h.segid > 0 && h.segid != g.segid);
  for (int u = 0; u < nunits; u++) sizes[u] = 10 * sizeof(double);
  check_collective_gptr(h, sizes[me]);
  gm_barrier();
  exercise_collective(h, sizes);
  g.unitid = me; /* DASH frees with its own unit id */
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_team_memfree(h));
}

static void test_register(void)
{
  size_t sizes[64];
  for (int u = 0; u < nunits; u++) sizes[u] = uneven_size(u);
  unsigned char *mem = sizes[me] ? malloc(sizes[me]) : NULL;
  dart_gptr_t g;
  TEST_OK(
      dart_team_memregister(DART_TEAM_ALL, sizes[me], DART_TYPE_BYTE, mem, &g));
  TEST_CHECK(g.segid < 0);
  unsigned char *p = check_collective_gptr(g, sizes[me]);
  TEST_CHECK(sizes[me] == 0 || p == mem);
  /* Registered memory is never load/store-mapped for other units; with
   * peers, the owner's own accesses take the path that drives MPI progress
   * (own_base), so nothing is mapped then. */
  for (int u = 0; u < nunits; u++) {
    dart__target_t t = {0};
    dart_gptr_t o = g;
    o.unitid = u;
    TEST_OK(dart__segment_resolve("test", o, 0, &t));
    TEST_CHECK((u == me && nunits == 1) == (t.local != NULL));
  }
  gm_barrier();
  exercise_collective(g, sizes);
  TEST_OK(dart_team_memderegister(g));
  free(mem);

  /* The aligned (symmetric) variant. */
  int arr[32];
  for (int i = 0; i < 32; i++) arr[i] = me * 1000 + i;
  TEST_OK(
      dart_team_memregister_aligned(DART_TEAM_ALL, 32, DART_TYPE_INT, arr, &g));
  TEST_CHECK(g.segid < 0 && g.unitid == 0 && g.addr_or_offs.offset == 0);
  gm_barrier();
  int peer = (me + 1) % nunits, got[32];
  dart_gptr_t gp = g;
  gp.unitid = peer;
  gm_get(got, gp, sizeof got);
  for (int i = 0; i < 32; i++) TEST_CHECK(got[i] == peer * 1000 + i);
  gm_barrier();
  TEST_OK(dart_team_memderegister(g));
}

static void test_memalloc(void)
{
  enum { N = 1024 };
  dart_gptr_t g, g2;
  TEST_OK(dart_memalloc(N, DART_TYPE_BYTE, &g));
  TEST_CHECK(g.unitid == me && g.segid == 0 && g.teamid == DART_TEAM_ALL &&
             g.flags == 0);
  TEST_OK(dart_memalloc(N / 4, DART_TYPE_INT, &g2));
  TEST_CHECK(g2.addr_or_offs.offset >= g.addr_or_offs.offset + N ||
             g2.addr_or_offs.offset + N <= g.addr_or_offs.offset);
  unsigned char *p;
  TEST_OK(dart_gptr_getaddr(g, (void **)&p));
  TEST_CHECK(p != NULL && ((uintptr_t)p & 15) == 0);
  for (size_t i = 0; i < N; i++) p[i] = gm_pat(me, i, 0);
  dart_gptr_t all[64];
  gm_allgather_gptr(g, all);
  gm_barrier();
  for (int v = 0; v < nunits; v++) {
    unsigned char buf[N];
    void *addr = (void *)1;
    TEST_OK(dart_gptr_getaddr(all[v], &addr));
    TEST_CHECK((v == me) == (addr != NULL));
    gm_get(buf, all[v], N);
    for (size_t i = 0; i < N; i++) TEST_CHECK(buf[i] == gm_pat(v, i, 0));
  }
  gm_barrier();
  /* Every unit writes its slot of every other unit's block. */
  size_t slot = N / (size_t)nunits;
  for (int v = 0; v < nunits; v++) {
    unsigned char src[N];
    for (size_t i = 0; i < slot; i++) src[i] = gm_pat(me, i, 2);
    dart_gptr_t d = all[v];
    d.addr_or_offs.offset += (uint64_t)me * slot;
    gm_put(d, src, slot);
  }
  gm_barrier();
  for (int w = 0; w < nunits; w++)
    for (size_t i = 0; i < slot; i++)
      TEST_CHECK(p[(size_t)w * slot + i] == gm_pat(w, i, 2));
  gm_barrier();
  TEST_OK(dart_memfree(g));
  TEST_OK(dart_memfree(g2));
}

static void test_allocator(void)
{
  dart_allocator_t a;
  TEST_OK(dart_allocator_new(4096, DART_TEAM_ALL, &a));
  TEST_CHECK(a != NULL);
  dart_gptr_t b[128], x;
  for (int i = 0; i < 128; i++) {
    TEST_OK(dart_allocator_alloc(8, DART_TYPE_INT, &b[i], a)); /* 32 B */
    TEST_CHECK(b[i].unitid == me && b[i].teamid == DART_TEAM_ALL &&
               b[i].segid > 0);
    TEST_CHECK(i == 0 ||
               b[i].addr_or_offs.offset > b[i - 1].addr_or_offs.offset);
    int *p;
    TEST_OK(dart_gptr_getaddr(b[i], (void **)&p));
    for (int k = 0; k < 8; k++) p[k] = me * 100000 + i * 8 + k;
  }
  TEST_EQ_RET(dart_allocator_alloc(1, DART_TYPE_BYTE, &x, a), DART_ERR_NOMEM);
  TEST_CHECK(DART_GPTR_ISNULL(x));
  /* Blocks handed to another unit are readable there. */
  dart_gptr_t all[64];
  gm_allgather_gptr(b[77], all);
  gm_barrier();
  for (int v = 0; v < nunits; v++) {
    int got[8];
    gm_get(got, all[v], sizeof got);
    for (int k = 0; k < 8; k++) TEST_CHECK(got[k] == v * 100000 + 77 * 8 + k);
  }
  gm_barrier();
  for (int i = 0; i < 128; i++) {
    TEST_OK(dart_allocator_free(&b[i], a));
    TEST_CHECK(DART_GPTR_ISNULL(b[i]));
  }
  TEST_OK(dart_allocator_alloc(4096, DART_TYPE_BYTE, &x, a));
  TEST_CHECK(x.addr_or_offs.offset == 0);
  TEST_OK(dart_allocator_free(&x, a));
  TEST_OK(dart_allocator_destroy(&a));
  TEST_CHECK(a == NULL);
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  TEST_CHECK(nunits <= 64);
  int w0 = gm_windows();
  test_memalloc();
  test_team_alloc();
  test_register();
  test_allocator();
  TEST_CHECK(gm_windows() == w0);
  TEST_OK(dart_exit());
  if (me == 0) printf("test_globmem_access: OK (%d units)\n", nunits);
  return 0;
}
