/*
 * Registrations released in a different order on every unit (the pattern of
 * DASH's dynamic containers, which deregister their buckets sorted by local
 * address), while the other units still run RMA on segments that nobody has
 * released yet. Deregistration is local: nobody may wait for a peer. The
 * windows are collected later, once all units have released the same set,
 * and the ids come back in step on every unit. Also: no window left over
 * deregistered memory, more registrations than a dynamic window holds
 * (Open MPI), a team destroyed while units have released different
 * subsets, and atomics on registrations.
 */
#include <stdint.h>
#include <stdlib.h>

#include "gm_access.h"
#include "transport/probe.h"

enum { NSEG = 8, NELEM = 64 };

static int64_t *mem[NSEG];
static dart_gptr_t seg[NSEG];

static void register_all(dart_team_t team)
{
  for (int s = 0; s < NSEG; s++) {
    mem[s] = calloc(NELEM, sizeof(int64_t));
    TEST_CHECK(mem[s] != NULL);
    for (int i = 0; i < NELEM; i++) mem[s][i] = -1;
    TEST_OK(dart_team_memregister(team, NELEM, DART_TYPE_LONGLONG, mem[s],
                                  &seg[s]));
  }
}

/* Unit-specific order of segments lo..hi-1: rotated by the unit id,
 * reversed on odd units. */
static int order_of(int k, int lo, int hi)
{
  int n = hi - lo, j = (k + me) % n;
  return lo + ((me % 2) ? n - 1 - j : j);
}

/* Every unit writes its id into slot `me` of segment s on every unit. */
static void rma_on(int s, int round)
{
  for (int u = 0; u < nunits; u++) {
    int64_t v = (int64_t)round * 1000 + me;
    dart_gptr_t g = os_at(seg[s], u, (size_t)me * sizeof(int64_t));
    TEST_OK(
        dart_put_blocking(g, &v, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
    int64_t back = 0;
    TEST_OK(
        dart_get_blocking(&back, g, 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
    TEST_CHECK(back == v);
  }
}

static void test_order(void)
{
  int w0 = gm_windows();
  register_all(DART_TEAM_ALL);
  gm_barrier();
  /* First half released in per-unit orders, interleaved with RMA by this
   * unit on the second half (which nobody releases yet). */
  for (int k = 0; k < NSEG / 2; k++) {
    TEST_OK(dart_team_memderegister(seg[order_of(k, 0, NSEG / 2)]));
    rma_on(NSEG / 2 + k, 1);
  }
  gm_barrier();
  for (int s = NSEG / 2; s < NSEG; s++)
    for (int u = 0; u < nunits; u++) TEST_CHECK(mem[s][u] == 1000 + u);
  /* A released segment is gone for lookups at once. */
  int64_t v = 0;
  TEST_EQ_RET(
      dart_get_blocking(&v, seg[0], 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG),
      DART_ERR_INVAL);
  for (int k = 0; k < NSEG / 2; k++)
    TEST_OK(dart_team_memderegister(seg[order_of(k, NSEG / 2, NSEG)]));
  /* The next creation collects all windows; ids are reused in step. */
  dart_gptr_t g;
  TEST_OK(
      dart_team_memregister(DART_TEAM_ALL, 1, DART_TYPE_LONGLONG, mem[0], &g));
  dart_gptr_t all[64];
  gm_allgather_gptr(g, all);
  for (int u = 0; u < nunits; u++) TEST_CHECK(all[u].segid == g.segid);
  TEST_OK(dart_team_memderegister(g));
  dart_gptr_t a;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &a));
  TEST_OK(dart_team_memfree(a));
  TEST_CHECK(gm_windows() == w0);
  for (int s = 0; s < NSEG; s++) free(mem[s]);
}

/* Deregistration leaves no window over the program's memory (issue 24
 * item 7) wherever registrations take a dynamic window: right after every
 * unit has deregistered, before any later creation on the team, their
 * windows are gone and the memory may be freed. With osc/ucx (a window
 * each, docs/design.md 2) they go at the next creation. */
static void test_release_at_once(void)
{
  int w0 = gm_windows();
  register_all(DART_TEAM_ALL);
  gm_barrier();
  for (int s = 0; s < NSEG; s++) rma_on(s, 2);
  gm_barrier();
  for (int s = 0; s < NSEG; s++)
    for (int u = 0; u < nunits; u++) TEST_CHECK(mem[s][u] == 2000 + u);
  for (int k = 0; k < NSEG; k++)
    TEST_OK(dart_team_memderegister(seg[order_of(k, 0, NSEG)]));
  bool dynamic = dart__caps.register_dynamic || dart__caps.register_limited;
  if (dynamic || nunits == 1)
    TEST_CHECK_MSG(gm_windows() == w0,
                   "%d windows still over deregistered memory",
                   gm_windows() - w0);
  for (int s = 0; s < NSEG; s++) free(mem[s]);
  dart_gptr_t a;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &a));
  TEST_OK(dart_team_memfree(a));
  TEST_CHECK(gm_windows() == w0);
}

/* More live registrations than the team's dynamic window may hold where
 * the MPI limits its attachments (osc/rdma): the rest get windows of
 * their own, every one reaches the right memory, and after all are
 * deregistered the next creation leaves the windows as they were. */
static void test_past_budget(void)
{
  int n = dart__caps.attach_limit > 0 ? dart__caps.attach_limit + 4 : 2 * NSEG;
  int64_t *m = calloc((size_t)n * 4, sizeof *m);
  dart_gptr_t *g = calloc((size_t)n, sizeof *g);
  TEST_CHECK(m != NULL && g != NULL);
  int w0 = gm_windows(), right = (me + 1) % nunits;
  int left = (me + nunits - 1) % nunits;
  for (int s = 0; s < n; s++)
    TEST_OK(dart_team_memregister(DART_TEAM_ALL, 4, DART_TYPE_LONGLONG,
                                  m + 4 * s, &g[s]));
  gm_barrier();
  for (int s = 0; s < n; s++) {
    int64_t v = (int64_t)s * 1000 + me;
    TEST_OK(dart_put_blocking(os_at(g[s], right, 8), &v, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  }
  gm_barrier();
  for (int s = 0; s < n; s++)
    TEST_CHECK_MSG(m[4 * s + 1] == (int64_t)s * 1000 + left,
                   "registration %d: %lld", s, (long long)m[4 * s + 1]);
  for (int k = 0; k < n; k++)
    TEST_OK(dart_team_memderegister(g[order_of(k, 0, n)]));
  dart_gptr_t a;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &a));
  TEST_OK(dart_team_memfree(a));
  TEST_CHECK_MSG(gm_windows() == w0, "%d windows left", gm_windows() - w0);
  free(g);
  free(m);
}

/* Registration churn: in 300 steps the units register a fresh malloc'ed
 * block of a size of their own in a random slot or release the slot's
 * registration and free its memory (the same slot and choice on every
 * unit), then each unit writes into its right neighbour's block of a live
 * slot and checks its own. Exercises the attach/detach order that broke
 * Open MPI's osc/ucx dynamic windows (docs/design.md 2): with osc/rdma
 * and MPICH every block is attached to the dynamic window and detached,
 * with osc/ucx each gets a window (test_past_budget mixes the two). */
static void test_churn(void)
{
  enum { SLOTS = 12, STEPS = 300 };
  int64_t *blk[SLOTS] = {0};
  dart_gptr_t g[SLOTS];
  int w0 = gm_windows(), right = (me + 1) % nunits;
  int left = (me + nunits - 1) % nunits;
  unsigned common = 12345, own = 777u + (unsigned)me;
  for (int step = 0; step < STEPS; step++) {
    int s = (int)(rand_r(&common) % SLOTS);
    if (blk[s] != NULL) {
      TEST_OK(dart_team_memderegister(g[s]));
      free(blk[s]);
      blk[s] = NULL;
    } else {
      size_t n = 2 + rand_r(&own) % 300;
      blk[s] = calloc(n, sizeof(int64_t));
      TEST_CHECK(blk[s] != NULL);
      TEST_OK(dart_team_memregister(DART_TEAM_ALL, n, DART_TYPE_LONGLONG,
                                    blk[s], &g[s]));
    }
    int t = (int)(rand_r(&common) % SLOTS);
    if (blk[t] == NULL) continue;
    int64_t v = (int64_t)step * 100 + me;
    TEST_OK(dart_put_blocking(os_at(g[t], right, 0), &v, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
    gm_barrier();
    TEST_CHECK_MSG(blk[t][0] == (int64_t)step * 100 + left,
                   "step %d slot %d: %lld", step, t, (long long)blk[t][0]);
    gm_barrier();
  }
  for (int s = 0; s < SLOTS; s++)
    if (blk[s] != NULL) {
      TEST_OK(dart_team_memderegister(g[s]));
      free(blk[s]);
    }
  dart_gptr_t a;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_BYTE, &a));
  TEST_OK(dart_team_memfree(a));
  TEST_CHECK_MSG(gm_windows() == w0, "%d windows left", gm_windows() - w0);
}

/* Units release different subsets, then the team goes away. */
static void test_team_destroy(void)
{
  dart_group_t grp;
  dart_team_t team;
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &grp)); /* a new group */
  TEST_OK(dart_team_create(DART_TEAM_ALL, grp, &team));
  TEST_OK(dart_group_destroy(&grp));
  register_all(team);
  gm_barrier();
  for (int k = 0; k < me % NSEG; k++)
    TEST_OK(dart_team_memderegister(seg[order_of(k, 0, NSEG)]));
  TEST_OK(dart_team_destroy(&team));
  for (int s = 0; s < NSEG; s++) free(mem[s]);
}

/* All atomic operations work on registered memory. */
static void test_atomics(void)
{
  int64_t cnt[2] = {0, 0};
  int32_t small = 0;
  dart_gptr_t g, h;
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 2, DART_TYPE_LONGLONG, cnt, &g));
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 1, DART_TYPE_INT, &small, &h));
  gm_barrier();
  int64_t one = 1, old = 0;
  for (int i = 0; i < 20; i++) {
    TEST_OK(dart_fetch_and_op(os_at(g, 0, 0), &one, &old, DART_TYPE_LONGLONG,
                              DART_OP_SUM));
    TEST_OK(dart_accumulate(os_at(g, 0, 8), &one, 1, DART_TYPE_LONGLONG,
                            DART_OP_SUM));
    int32_t o32 = 0, one32 = 1;
    TEST_OK(dart_fetch_and_op(os_at(h, 0, 0), &one32, &o32, DART_TYPE_INT,
                              DART_OP_SUM));
  }
  TEST_OK(dart_flush_all(g));
  /* compare-and-swap: exactly one unit wins each round */
  int64_t wins = 0;
  for (int r = 0; r < 5; r++) {
    int64_t expect = 20LL * nunits + r, want = expect + 1, prev = -1;
    gm_barrier();
    TEST_OK(dart_compare_and_swap(os_at(g, 0, 0), &want, &expect, &prev,
                                  DART_TYPE_LONGLONG));
    wins += prev == expect;
    gm_barrier();
  }
  int64_t total = 0;
  TEST_CHECK(MPI_Allreduce(&wins, &total, 1, MPI_INT64_T, MPI_SUM,
                           MPI_COMM_WORLD) == MPI_SUCCESS);
  TEST_CHECK(total == 5);
  gm_barrier();
  if (me == 0) {
    TEST_CHECK(cnt[0] == 20LL * nunits + 5);
    TEST_CHECK(cnt[1] == 20LL * nunits);
    TEST_CHECK_MSG(small == 20 * nunits, "small=%d at %p", (int)small,
                   (void *)&small);
  }
  gm_barrier();
  TEST_OK(dart_team_memderegister(h));
  TEST_OK(dart_team_memderegister(g));
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  test_order();
  test_release_at_once();
  test_past_budget();
  test_churn();
  test_team_destroy();
  test_atomics();
  TEST_OK(dart_exit());
  return 0;
}
