/*
 * Global memory on a sub-team (the even units): per-team segment ids,
 * team-relative unit ids in gptrs, access among members, and a team
 * destroyed with live segments frees them (window count back to start).
 */
#include "gm_access.h"

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  int w0 = gm_windows();
  dart_group_t grp;
  TEST_OK(dart_group_create(&grp));
  for (int u = 0; u < nunits; u += 2)
    TEST_OK(dart_group_addmember(grp, DART_GLOBAL_UNIT_ID(u)));
  dart_team_t team;
  TEST_OK(dart_team_create(DART_TEAM_ALL, grp, &team));
  TEST_OK(dart_group_destroy(&grp));
  dart_gptr_t onall;
  TEST_OK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, 16, DART_TYPE_BYTE, &onall));
  if (me % 2 == 0) {
    TEST_CHECK(team != DART_TEAM_NULL);
    dart_team_unit_t tme;
    size_t tsize;
    TEST_OK(dart_team_myid(team, &tme));
    TEST_OK(dart_team_size(team, &tsize));
    TEST_CHECK(tme.id == me / 2 && tsize == (size_t)(nunits + 1) / 2);
    dart_gptr_t g;
    TEST_OK(dart_team_memalloc_aligned(team, 8, DART_TYPE_LONG, &g));
    TEST_CHECK(g.teamid == team && g.segid > 0 && g.unitid == 0);
    /* ids are per team: the team's counter is independent of team ALL's */
    TEST_CHECK(g.segid <= onall.segid);
    long *p;
    dart_gptr_t mine = g;
    mine.unitid = tme.id;
    TEST_OK(dart_gptr_getaddr(mine, (void **)&p));
    for (int i = 0; i < 8; i++) p[i] = 1000L * tme.id + i;
    TEST_OK(dart_barrier(team));
    for (int u = 0; u < (int)tsize; u++) {
      long got[8];
      dart_gptr_t gu = g;
      gu.unitid = u;
      gm_get(got, gu, sizeof got);
      for (int i = 0; i < 8; i++) TEST_CHECK(got[i] == 1000L * u + i);
    }
    dart_gptr_t out = g;
    out.unitid = (int)tsize; /* team-relative: one past the last member */
    long x;
    TEST_EQ_RET(dart_get_blocking(&x, out, 1, DART_TYPE_LONG, DART_TYPE_LONG),
                DART_ERR_INVAL);
    /* a registration, too; both still alive at team destruction */
    static long reg[4];
    dart_gptr_t r;
    TEST_OK(dart_team_memregister(team, 4, DART_TYPE_LONG, reg, &r));
    TEST_CHECK(r.segid < 0 && r.teamid == team);
    TEST_OK(dart_barrier(team));
    dart_team_t dead = team;
    TEST_OK(dart_team_destroy(&team));
    TEST_EQ_RET(dart_get_blocking(&x, g, 1, DART_TYPE_LONG, DART_TYPE_LONG),
                DART_ERR_INVAL);
    void *addr;
    TEST_EQ_RET(dart_gptr_getaddr(mine, &addr), DART_ERR_INVAL);
    (void)dead;
  } else {
    TEST_CHECK(team == DART_TEAM_NULL);
  }
  TEST_OK(dart_team_memfree(onall));
  TEST_CHECK(gm_windows() == w0);
  gm_barrier();
  TEST_OK(dart_exit());
  if (me == 0) printf("test_globmem_teams: OK (%d units)\n", nunits);
  return 0;
}
