/*
 * A dart_init that fails part-way stops the modules it had started: here
 * global memory fails on every unit (DART_LOCAL_POOL_SIZE too large) after
 * the topology, the collectives, the transport, the datatypes and the
 * teams are up. DART is then not initialized, the application's MPI keeps
 * running, and the next dart_init starts from scratch (team ids restart,
 * global memory and team creation work). Three rounds in one process.
 */
#define _POSIX_C_SOURCE 200112L /* setenv */

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "dart_test.h"

static void failed_start(int argc, char **argv)
{
  setenv("DART_LOCAL_POOL_SIZE", "4000000T", 1);
  dart_ret_t ret = dart_init(&argc, &argv);
  unsetenv("DART_LOCAL_POOL_SIZE");
  TEST_CHECK(ret != DART_OK);
  TEST_CHECK(!dart_initialized());
  size_t size = 7;
  TEST_EQ_RET(dart_size(&size), DART_ERR_OTHER);
  TEST_EQ_RET(dart_barrier(DART_TEAM_ALL), DART_ERR_INVAL);
}

static void working_start(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_group_t g;
  dart_team_t t = DART_TEAM_NULL;
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &g));
  TEST_OK(dart_team_create(DART_TEAM_ALL, g, &t));
  TEST_CHECK(t == 1); /* ids restart after every init */
  dart_gptr_t mine = DART_GPTR_NULL, team = DART_GPTR_NULL;
  TEST_OK(dart_memalloc(16, DART_TYPE_LONG, &mine));
  TEST_OK(dart_team_memalloc_aligned(t, 16, DART_TYPE_LONG, &team));
  TEST_OK(dart_barrier(t));
  TEST_OK(dart_team_memfree(team));
  TEST_OK(dart_memfree(mine));
  TEST_OK(dart_team_destroy(&t));
  TEST_OK(dart_group_destroy(&g));
  TEST_OK(dart_exit());
  TEST_CHECK(!dart_initialized());
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int round = 0; round < 3; round++) {
    failed_start(argc, argv);
    working_start(argc, argv);
  }
  int flag = 0;
  MPI_Finalized(&flag);
  TEST_CHECK(!flag); /* DART left the application's MPI running */
  if (rank == 0) printf("init_fail: all checks passed\n");
  MPI_Finalize();
  return 0;
}
