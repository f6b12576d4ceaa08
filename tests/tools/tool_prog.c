/*
 * The program tests/tools/run_tool_test.sh runs under examples/tool_count:
 * a known pattern of DART calls, each result checked. Per unit:
 *   PUTS x dart_put_blocking of 8 bytes into the right neighbour's slots,
 *   2 x dart_barrier, 1 x dart_get_blocking (the left neighbour's last
 *   slot), 1 x dart_allreduce, no dart_put / dart_get / dart_flush /
 *   dart_bcast. The global allocation and dart_exit make DART calls of
 *   their own; the tool must not count those.
 * The driver then asserts the tool's counts are exactly these.
 */
#include <dash/dart/if/dart.h>

#include <stdint.h>

#include "dart_test.h"

enum { PUTS = 100 };

static dart_gptr_t at(dart_gptr_t base, int unit, int index)
{
  dart_gptr_t g = base;
  dart_gptr_setunit(&g, (dart_team_unit_t){unit});
  dart_gptr_incaddr(&g, index * (int64_t)sizeof(int64_t));
  return g;
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&n));
  int right = (int)((me.id + 1) % (int)n);
  int left = (int)((me.id + (int)n - 1) % (int)n);

  dart_gptr_t mem;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, PUTS, DART_TYPE_LONGLONG,
                                     &mem));
  int64_t *mine;
  TEST_OK(dart_gptr_getaddr(at(mem, me.id, 0), (void **)&mine));
  TEST_OK(dart_barrier(DART_TEAM_ALL));

  for (int i = 0; i < PUTS; ++i) {
    int64_t v = 1000 * (int64_t)me.id + i;
    TEST_OK(dart_put_blocking(at(mem, right, i), &v, 1, DART_TYPE_LONGLONG,
                              DART_TYPE_LONGLONG));
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  for (int i = 0; i < PUTS; ++i) {
    TEST_CHECK_MSG(mine[i] == 1000 * (int64_t)left + i, "slot %d holds %lld", i,
                   (long long)mine[i]);
  }
  int64_t last = -1;
  TEST_OK(dart_get_blocking(&last, at(mem, left, PUTS - 1), 1,
                            DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  int64_t expect = 1000 * (int64_t)((left + (int)n - 1) % (int)n) + PUTS - 1;
  TEST_CHECK_MSG(last == expect, "left's last slot %lld", (long long)last);

  int64_t id = me.id, sum = -1;
  TEST_OK(dart_allreduce(&id, &sum, 1, DART_TYPE_LONGLONG, DART_OP_SUM,
                         DART_TEAM_ALL));
  TEST_CHECK(sum == (int64_t)(n * (n - 1) / 2));

  TEST_OK(dart_team_memfree(mem));
  TEST_OK(dart_exit());
  return 0;
}
