/*
 * A deregistration releases the MPI resources of the registration before
 * it returns (issue 24, item 7): the user may free the memory right after.
 *
 * Where registrations have windows of their own (Open MPI), the window is
 * freed by the deregistration itself once every unit has deregistered the
 * same registrations: at once when all go in the same order, at the second
 * call when two are released in opposite orders; never waiting for a
 * later creation on the team. Where they attach to the team's dynamic
 * window (MPICH), the memory is detached at once: a registration that
 * overlaps it partly is accepted right after. Also: data put just before
 * the deregistration has arrived, a deregistered gptr is DART_ERR_INVAL,
 * and a bad gptr on one unit is an error on every unit where the call
 * agrees (never a hang).
 */
#include <stdint.h>
#include <stdlib.h>

#include "gm_access.h"
#include "globmem/globmem_internal.h"

enum { NELEM = 64 };

/* Windows a registration on team adds on this unit. */
static int reg_windows(dart_team_t team)
{
  return dart__register_windows(dart__team_get(team)) ? 1 : 0;
}

/* Attachments to the dynamic window of DART_TEAM_ALL. */
static int attached(void)
{
  return (int)dart__segtable_of(DART_TEAM_ALL)->nattach;
}

static int64_t *make_buf(size_t n)
{
  int64_t *b = malloc(n * sizeof *b);
  TEST_CHECK(b != NULL);
  for (size_t i = 0; i < n; i++) b[i] = -1;
  return b;
}

/* Unit me puts tag * 1000 + me into slot me of every unit's portion of g,
 * without waiting for completion (the deregistration completes it). */
static void put_ids(dart_gptr_t g, int64_t tag)
{
  static int64_t v[8]; /* one source per tag: read until completion */
  v[tag] = tag * 1000 + me;
  for (int u = 0; u < nunits; u++)
    TEST_OK(dart_put(os_at(g, u, (size_t)me * sizeof(int64_t)), &v[tag], 1,
                     DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
}

static void check_ids(const int64_t *buf, int64_t tag)
{
  for (int u = 0; u < nunits; u++)
    TEST_CHECK_MSG(buf[u] == tag * 1000 + u, "slot %d: %lld", u,
                   (long long)buf[u]);
}

/* Access and deregistration of a released gptr fail with DART_ERR_INVAL
 * (every unit passes it: all agree, nobody hangs). */
static void check_gone(dart_gptr_t g)
{
  int64_t v = 0;
  TEST_EQ_RET(dart_get_blocking(&v, os_at(g, (me + 1) % nunits, 0), 1,
                                DART_TYPE_LONGLONG, DART_TYPE_LONGLONG),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_memderegister(g), DART_ERR_INVAL);
}

/* The same order on every unit: resources gone when the call returns. */
static void test_in_order(void)
{
  int w0 = gm_windows(), a0 = attached();
  int64_t *buf = make_buf(2 * NELEM);
  dart_gptr_t g;
  TEST_OK(
      dart_team_memregister(DART_TEAM_ALL, NELEM, DART_TYPE_LONGLONG, buf, &g));
  TEST_CHECK(gm_windows() == w0 + reg_windows(DART_TEAM_ALL));
  gm_barrier(); /* everybody registered */
  put_ids(g, 1);
  TEST_OK(dart_team_memderegister(g));
  TEST_CHECK_MSG(gm_windows() == w0, "%d windows left after deregistering",
                 gm_windows() - w0);
  TEST_CHECK_MSG(attached() == a0, "%d attachments left", attached() - a0);
  gm_barrier(); /* every unit's puts are complete */
  check_ids(buf, 1);
  check_gone(g);
  /* Memory overlapping the released registration partly: accepted at
   * once (MPICH refuses it while the old region is attached). */
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, NELEM, DART_TYPE_LONGLONG,
                                buf + NELEM / 2, &g));
  TEST_OK(dart_team_memderegister(g));
  TEST_CHECK(gm_windows() == w0 && attached() == a0);
  free(buf);
}

/* Unit 0 releases a then b, the others b then a. */
static void test_out_of_order(void)
{
  int w0 = gm_windows(), a0 = attached(), per = reg_windows(DART_TEAM_ALL);
  int64_t *ba = make_buf(NELEM), *bb = make_buf(NELEM);
  dart_gptr_t a, b;
  TEST_OK(
      dart_team_memregister(DART_TEAM_ALL, NELEM, DART_TYPE_LONGLONG, ba, &a));
  TEST_OK(
      dart_team_memregister(DART_TEAM_ALL, NELEM, DART_TYPE_LONGLONG, bb, &b));
  TEST_CHECK(gm_windows() == w0 + 2 * per);
  gm_barrier();
  put_ids(a, 2);
  put_ids(b, 3);
  dart_gptr_t first = me == 0 ? a : b, second = me == 0 ? b : a;
  TEST_OK(dart_team_memderegister(first));
  /* Different sets retired with peers: nothing freed yet; one unit alone
   * has no windows at all. */
  if (nunits > 1) TEST_CHECK(gm_windows() == w0 + 2 * per);
  TEST_OK(dart_team_memderegister(second));
  TEST_CHECK_MSG(gm_windows() == w0, "%d windows left after deregistering",
                 gm_windows() - w0);
  TEST_CHECK(attached() == a0);
  gm_barrier();
  check_ids(ba, 2);
  check_ids(bb, 3);
  check_gone(a);
  check_gone(b);
  /* Ids are back in step: the next registration gets the same id. */
  dart_gptr_t g, all[64];
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 1, DART_TYPE_LONGLONG, ba, &g));
  gm_allgather_gptr(g, all);
  for (int u = 0; u < nunits; u++) TEST_CHECK(all[u].segid == g.segid);
  TEST_OK(dart_team_memderegister(g));
  TEST_CHECK(gm_windows() == w0);
  free(ba);
  free(bb);
}

/* Unit 0 names a released registration while the others deregister a live
 * one: where the call agrees every unit gets DART_ERR_INVAL, elsewhere
 * unit 0 alone; the team's destruction frees what is left. */
static void test_one_bad(void)
{
  int w0 = gm_windows();
  dart_group_t grp;
  dart_team_t team;
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &grp));
  TEST_OK(dart_team_create(DART_TEAM_ALL, grp, &team));
  TEST_OK(dart_group_destroy(&grp));
  int64_t *buf = make_buf(2 * NELEM);
  dart_gptr_t stale, live;
  TEST_OK(dart_team_memregister(team, NELEM, DART_TYPE_LONGLONG, buf + NELEM,
                                &live));
  /* released last: its id is not handed out again before the bad call */
  TEST_OK(dart_team_memregister(team, NELEM, DART_TYPE_LONGLONG, buf, &stale));
  TEST_OK(dart_team_memderegister(stale));
  dart_ret_t want = me == 0 || reg_windows(team) ? DART_ERR_INVAL : DART_OK;
  TEST_EQ_RET(dart_team_memderegister(me == 0 ? stale : live), want);
  TEST_OK(dart_team_destroy(&team));
  TEST_CHECK(gm_windows() == w0);
  free(buf);
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  TEST_CHECK(nunits <= 64);
  test_in_order();
  test_out_of_order();
  test_one_bad();
  TEST_OK(dart_exit());
  return 0;
}
