/*
 * The large-count path of bcast/scatter/gather/allgather (nelem above what
 * one MPI count can hold): white-box test that lowers the per-call count
 * limit so the derived "span" types are exercised with small buffers,
 * including exact multiples, remainders and custom element types.
 */
#include <stdlib.h>
#include <string.h>

#include "coll/coll_internal.h"
#include "dart_test.h"

static int val(int u, size_t i)
{
  return (int)(u * 100000 + (int)i);
}

static void run(size_t ne, dart_datatype_t ty, size_t esize, int me, int n)
{
  /* elements are esize bytes; value j of an int view is checked */
  size_t ints = ne * esize / sizeof(int);
  int *mine = malloc(ints * sizeof(int)), *all = malloc(ints * n * sizeof(int));
  TEST_CHECK(mine != NULL && all != NULL);
  memset(mine, 0, ints * sizeof(int));
  for (int root = 0; root < n; root++) {
    for (size_t i = 0; i < ints; i++) mine[i] = me == root ? val(root, i) : -1;
    TEST_OK(dart_bcast(mine, ne, ty, (dart_team_unit_t){root}, DART_TEAM_ALL));
    for (size_t i = 0; i < ints; i++) TEST_CHECK(mine[i] == val(root, i));

    for (int u = 0; u < n; u++)
      for (size_t i = 0; i < ints; i++) all[u * ints + i] = val(u, i);
    memset(mine, 0, ints * sizeof(int));
    TEST_OK(dart_scatter(all, mine, ne, ty, (dart_team_unit_t){root},
                         DART_TEAM_ALL));
    for (size_t i = 0; i < ints; i++) TEST_CHECK(mine[i] == val(me, i));

    memset(all, 0, ints * n * sizeof(int));
    TEST_OK(dart_gather(mine, all, ne, ty, (dart_team_unit_t){root},
                        DART_TEAM_ALL));
    if (me == root)
      for (int u = 0; u < n; u++)
        for (size_t i = 0; i < ints; i++)
          TEST_CHECK(all[u * ints + i] == val(u, i));
  }
  memset(all, 0, ints * n * sizeof(int));
  TEST_OK(dart_allgather(mine, all, ne, ty, DART_TEAM_ALL));
  for (int u = 0; u < n; u++)
    for (size_t i = 0; i < ints; i++)
      TEST_CHECK(all[u * ints + i] == val(u, i));
  free(mine);
  free(all);
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_team_unit_t me;
  size_t n;
  TEST_OK(dart_team_myid(DART_TEAM_ALL, &me));
  TEST_OK(dart_size(&n));
  dart_datatype_t rec;
  TEST_OK(dart_type_create_custom(3 * sizeof(int), &rec));
  dart__coll_max_count = 7;
  size_t sizes[] = {7, 8, 21, 23, 1000};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    run(sizes[k], DART_TYPE_INT, sizeof(int), me.id, (int)n);
    run(sizes[k], rec, 3 * sizeof(int), me.id, (int)n);
  }
  dart__coll_max_count = INT_MAX;
  TEST_OK(dart_type_destroy(&rec));
  TEST_OK(dart_exit());
  return 0;
}
