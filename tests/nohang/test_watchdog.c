/*
 * A deliberately mismatched program for the watchdog: the first half of
 * the units enter dart_barrier, the others dart_allreduce, on the same
 * team. run_watchdog.sh runs it with DART_WATCHDOG=1 and
 * DART_WATCHDOG_ABORT and checks that every unit printed what it waits
 * for and that the job ended with an error.
 */
#include "os_common.h"

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  long v = me, r = 0;
  dart_ret_t ret;
  if (me < nunits / 2)
    ret = dart_barrier(DART_TEAM_ALL);
  else
    ret = dart_allreduce(&v, &r, 1, DART_TYPE_LONG, DART_OP_SUM, DART_TEAM_ALL);
  /* MPI may pair the two calls up anyway: the units then wait in the
   * barrier of dart_exit for the others. */
  printf("unit %d: first call returned %d\n", me, (int)ret);
  fflush(stdout);
  dart_exit();
  return 0;
}
