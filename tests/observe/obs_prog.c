/*
 * The program tests/observe/run_obs_test.sh runs with DART_STATS and
 * DART_TRACE on: a known pattern whose statistics and trace the driver
 * checks exactly. Per unit:
 *   PUTS x dart_put of 8 bytes into the right neighbour's slots, then one
 *   dart_flush to it; REDUCES x dart_allreduce of one int; one lock
 *   acquire/release; 3 dart_barrier. The data is checked.
 */
#include <dash/dart/if/dart.h>

#include <stdint.h>

#include "dart_test.h"

enum { PUTS = 100, REDUCES = 10 };

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
  dart_lock_t lock;
  TEST_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  TEST_OK(dart_barrier(DART_TEAM_ALL));

  dart_gptr_t g = mem;
  dart_gptr_setunit(&g, (dart_team_unit_t){right});
  int64_t vals[PUTS];
  for (int i = 0; i < PUTS; ++i) {
    vals[i] = 1000 * (int64_t)me.id + i;
    dart_gptr_t gi = g;
    dart_gptr_incaddr(&gi, i * (int64_t)sizeof(int64_t));
    TEST_OK(dart_put(gi, &vals[i], 1, DART_TYPE_LONGLONG, DART_TYPE_LONGLONG));
  }
  TEST_OK(dart_flush(g));
  for (int i = 0; i < REDUCES; ++i) {
    int one = 1, sum = 0;
    TEST_OK(dart_allreduce(&one, &sum, 1, DART_TYPE_INT, DART_OP_SUM,
                           DART_TEAM_ALL));
    TEST_CHECK(sum == (int)n);
  }
  TEST_OK(dart_lock_acquire(lock));
  TEST_OK(dart_lock_release(lock));
  TEST_OK(dart_barrier(DART_TEAM_ALL));

  dart_gptr_t mine = mem;
  dart_gptr_setunit(&mine, (dart_team_unit_t){me.id});
  int64_t *p;
  TEST_OK(dart_gptr_getaddr(mine, (void **)&p));
  for (int i = 0; i < PUTS; ++i) TEST_CHECK(p[i] == 1000 * (int64_t)left + i);

  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_team_lock_destroy(&lock));
  TEST_OK(dart_team_memfree(mem));
  TEST_OK(dart_exit());
  return 0;
}
