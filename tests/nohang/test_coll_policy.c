/*
 * Units configured differently: even units ask for blocking collectives
 * (DART_COLL_WAIT=block), odd ones for yielding waits (yield). MPI_Bcast
 * never matches MPI_Ibcast, so unless the units agree on one policy the
 * first collective hangs. The policy is agreed in dart_init; every
 * collective below must finish with exact data.
 */
#include <stdlib.h>

#include "os_common.h"

/* The launcher's rank of this process, before dart_init. */
static int launcher_rank(void)
{
  const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};
  for (int i = 0; i < 3; i++) {
    const char *v = getenv(vars[i]);
    if (v != NULL) return atoi(v);
  }
  return 0;
}

int main(int argc, char **argv)
{
  setenv("DART_COLL_WAIT", launcher_rank() % 2 ? "yield" : "block", 1);
  os_init(&argc, &argv);
  for (int i = 0; i < 50; i++) {
    long v[4] = {0, 0, 0, 0};
    dart_team_unit_t root = {i % nunits};
    if (me == root.id)
      for (int k = 0; k < 4; k++) v[k] = i * 10 + k;
    TEST_OK(dart_bcast(v, 4, DART_TYPE_LONG, root, DART_TEAM_ALL));
    for (int k = 0; k < 4; k++) TEST_CHECK(v[k] == i * 10 + k);
    long one = me + i, sum = 0;
    TEST_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_LONG, DART_OP_SUM,
                           DART_TEAM_ALL));
    TEST_CHECK(sum == (long)nunits * i + (long)nunits * (nunits - 1) / 2);
    long all[64];
    TEST_OK(dart_allgather(&one, all, 1, DART_TYPE_LONG, DART_TEAM_ALL));
    for (int u = 0; u < nunits; u++) TEST_CHECK(all[u] == u + i);
  }
  TEST_OK(dart_exit());
  if (me == 0) printf("test_coll_policy: OK (%d units)\n", nunits);
  return 0;
}
