/*
 * Two disjoint teams (the lower and the upper half of the units) register
 * memory at the same time, round after round, and check puts between
 * their members. With Open MPI 4.x started by the application, every
 * registration is an osc/rdma window, whose shared-memory file is named
 * after the context id of the window's own communicator (a duplicate of
 * the team's, made by the team's units only): the two halves' windows get
 * the same one, so without DART's per-process file names (asked for at the
 * first dart_team_create, transport/ompi_shm_names.c) the two windows
 * made at the same moment open, truncate and unlink one file (wrong data,
 * MPI_ERR_WIN or a hang). Every value is checked.
 */
#include "gm_access.h"

enum { ROUNDS = 40, WORDS = 64 };

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  int half = nunits / 2, upper = me >= half && half > 0;
  /* as DASH splits a team: one dart_team_create per part, on every unit */
  dart_team_t team = DART_TEAM_NULL;
  for (int part = 0; part < 2; part++) {
    dart_group_t grp;
    TEST_OK(dart_group_create(&grp));
    for (int u = 0; u < nunits; u++)
      if ((u >= half && half > 0) == part)
        TEST_OK(dart_group_addmember(grp, DART_GLOBAL_UNIT_ID(u)));
    dart_team_t t = DART_TEAM_NULL;
    TEST_OK(dart_team_create(DART_TEAM_ALL, grp, &t));
    TEST_OK(dart_group_destroy(&grp));
    if (part == upper)
      team = t;
    else
      TEST_CHECK(t == DART_TEAM_NULL);
  }
  TEST_CHECK(team != DART_TEAM_NULL);
  dart_team_unit_t tme;
  size_t tsize;
  TEST_OK(dart_team_myid(team, &tme));
  TEST_OK(dart_team_size(team, &tsize));
  static long mem[WORDS];
  for (long r = 0; r < ROUNDS; r++) {
    /* a clone per round: its communicator and its registration window's
     * are made by the half's units only, so both halves' get the same
     * context ids over the rounds */
    dart_team_t clone = DART_TEAM_NULL;
    TEST_OK(dart_team_clone(team, &clone));
    TEST_CHECK(clone != DART_TEAM_NULL);
    for (int i = 0; i < WORDS; i++) mem[i] = -1;
    dart_gptr_t g;
    TEST_OK(dart_team_memregister(clone, WORDS, DART_TYPE_LONG, mem, &g));
    int right = (tme.id + 1) % (int)tsize;
    long v[WORDS];
    for (int i = 0; i < WORDS; i++) v[i] = r * 100000 + me * 100 + i;
    g.unitid = right;
    TEST_OK(dart_put_blocking(g, v, WORDS, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_OK(dart_barrier(clone));
    int left_global = upper ? half + (tme.id + (int)tsize - 1) % (int)tsize
                            : (tme.id + (int)tsize - 1) % (int)tsize;
    for (int i = 0; i < WORDS; i++)
      TEST_CHECK_MSG(mem[i] == r * 100000 + left_global * 100 + i,
                     "round %ld: word %d = %ld, want %ld", r, i, mem[i],
                     r * 100000 + left_global * 100 + i);
    TEST_OK(dart_barrier(clone));
    g.unitid = tme.id;
    TEST_OK(dart_team_memderegister(g));
    TEST_OK(dart_team_destroy(&clone));
  }
  TEST_OK(dart_team_destroy(&team));
  gm_barrier();
  TEST_OK(dart_exit());
  if (me == 0) printf("test_globmem_halves: OK (%d units)\n", nunits);
  return 0;
}
