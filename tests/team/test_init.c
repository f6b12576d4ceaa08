/* dart_init / dart_exit basics, unit ids and thread levels. */
#include <mpi.h>
#include <string.h>

#include "dart_test.h"

int main(int argc, char **argv)
{
  TEST_CHECK(!dart_initialized());
  dart_config_t *cfg = NULL;
  dart_config(&cfg); /* valid before init */
  TEST_CHECK(cfg != NULL && cfg->log_enabled == 1);

  dart_thread_support_level_t level = (dart_thread_support_level_t)-1;
  TEST_OK(dart_init_thread(&argc, &argv, &level));
  TEST_CHECK(level == DART_THREAD_SINGLE || level == DART_THREAD_MULTIPLE);
  TEST_CHECK(dart_initialized());
  TEST_EQ_RET(dart_init(&argc, &argv),
              DART_ERR_OTHER); /* already initialized */

  int wrank = -1, wsize = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  dart_global_unit_t me;
  size_t size = 0;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&size));
  TEST_CHECK(me.id == wrank && (int)size == wsize);

  dart_team_unit_t tme;
  TEST_OK(dart_team_myid(DART_TEAM_ALL, &tme));
  TEST_CHECK(tme.id == me.id);
  TEST_OK(dart_team_size(DART_TEAM_ALL, &size));
  TEST_CHECK((int)size == wsize);

  for (int i = 0; i < 50; i++) TEST_OK(dart_barrier(DART_TEAM_ALL));

  dart_config(&cfg);
  cfg->log_enabled = 0; /* writable */
  cfg->log_enabled = 1;

  TEST_OK(dart_exit());
  TEST_CHECK(!dart_initialized());
  TEST_EQ_RET(dart_exit(), DART_ERR_OTHER);
  size = 7;
  TEST_EQ_RET(dart_size(&size), DART_ERR_OTHER);
  TEST_CHECK(size == 0);
  TEST_EQ_RET(dart_barrier(DART_TEAM_ALL), DART_ERR_INVAL);
  if (me.id == 0) printf("init: all checks passed\n");
  return 0;
}
