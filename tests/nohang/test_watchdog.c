/*
 * Deliberately mismatched programs for the watchdog. Without argument:
 * the first half of the units enter dart_barrier, the others
 * dart_allreduce, on the same team. With the argument "team" (passed by
 * the test command): the first half enter dart_barrier on a clone of
 * DART_TEAM_ALL, the others dart_team_create on DART_TEAM_ALL (its id
 * agreement). run_watchdog.sh runs it with DART_WATCHDOG=1 and
 * DART_WATCHDOG_ABORT and checks that every unit printed what it waits
 * for and that the job ended with an error.
 */
#include "os_common.h"

/* The second half's call in "team" mode: a team of all units. */
static dart_ret_t create_team(void)
{
  dart_group_t g = DART_GROUP_NULL;
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &g));
  dart_team_t t = DART_TEAM_NULL;
  dart_ret_t ret = dart_team_create(DART_TEAM_ALL, g, &t);
  TEST_OK(dart_group_destroy(&g));
  if (ret == DART_OK) TEST_OK(dart_team_destroy(&t));
  return ret;
}

int main(int argc, char **argv)
{
  bool team = argc > 1 && strcmp(argv[1], "team") == 0;
  os_init(&argc, &argv);
  /* "team": the barrier on another communicator than the creation's, so
   * that no MPI can pair the two up (MPICH pairs an MPI_Ibarrier with an
   * MPI_Iallreduce on the same communicator at 2 units). */
  dart_team_t barrier_team = DART_TEAM_ALL;
  if (team) TEST_OK(dart_team_clone(DART_TEAM_ALL, &barrier_team));
  long v = me, r = 0;
  dart_ret_t ret;
  if (me < nunits / 2)
    ret = dart_barrier(barrier_team);
  else if (team)
    ret = create_team();
  else
    ret = dart_allreduce(&v, &r, 1, DART_TYPE_LONG, DART_OP_SUM, DART_TEAM_ALL);
  /* MPI may pair the barrier and the allreduce up anyway: the units then
   * wait in the barrier of dart_exit for the others. */
  printf("unit %d: first call returned %d\n", me, (int)ret);
  fflush(stdout);
  dart_exit();
  return 0;
}
