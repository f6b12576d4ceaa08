/*
 * demo_pgas: global memory, one-sided access, atomics, a lock and a
 * reduction in one page. Every step checks its result.
 *
 *  1. a collective allocation of one int64 per unit;
 *  2. every unit writes its id into its right neighbour's slot
 *     (dart_put_blocking) and reads its left neighbour's (dart_get_blocking);
 *  3. every unit adds 1 to a counter on unit 0, 1000 times
 *     (dart_fetch_and_op, DART_OP_SUM);
 *  4. under an MCS lock, every unit increments a second counter with a
 *     plain get + put (mutual exclusion makes it exact);
 *  5. dart_allreduce sums the ids.
 *
 * Run: mpiexec -n 4 ./demo_pgas
 */
#include <dash/dart/if/dart.h>
#include <stdint.h>
#include <stdio.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    dart_ret_t r_ = (call);                                                    \
    if (r_ != DART_OK) {                                                       \
      fprintf(stderr, "%s failed: %d\n", #call, (int)r_);                      \
      dart_abort(DART_EXIT_ABORT);                                             \
    }                                                                          \
  } while (0)

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "check failed: %s\n", #cond);                            \
      dart_abort(DART_EXIT_ABORT);                                             \
    }                                                                          \
  } while (0)

enum { ADDS = 1000, LOCKED = 100 };

/* Slots: [0] neighbour value, [1] atomic counter, [2] locked counter. */
static dart_gptr_t slot(dart_gptr_t base, int unit, int index)
{
  dart_gptr_t g = base;
  dart_gptr_setunit(&g, (dart_team_unit_t){unit});
  dart_gptr_incaddr(&g, index * (int64_t)sizeof(int64_t));
  return g;
}

int main(int argc, char **argv)
{
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n;
  CHECK(dart_myid(&me));
  CHECK(dart_size(&n));

  dart_gptr_t mem;
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, 3, DART_TYPE_LONGLONG, &mem));
  int64_t *mine;
  dart_gptr_t own = slot(mem, me.id, 0);
  CHECK(dart_gptr_getaddr(own, (void **)&mine));
  mine[0] = mine[1] = mine[2] = 0;
  CHECK(dart_barrier(DART_TEAM_ALL));

  int right = (me.id + 1) % (int)n, left = (me.id + (int)n - 1) % (int)n;
  int64_t v = me.id;
  CHECK(dart_put_blocking(slot(mem, right, 0), &v, 1, DART_TYPE_LONGLONG,
                          DART_TYPE_LONGLONG));
  CHECK(dart_barrier(DART_TEAM_ALL));
  EXPECT(mine[0] == left);

  int64_t one = 1, old;
  dart_gptr_t counter = slot(mem, 0, 1);
  for (int i = 0; i < ADDS; i++) {
    CHECK(dart_fetch_and_op(counter, &one, &old, DART_TYPE_LONGLONG,
                            DART_OP_SUM));
    CHECK(dart_flush(counter));
  }

  dart_lock_t lock;
  CHECK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  dart_gptr_t locked = slot(mem, (int)n - 1, 2);
  for (int i = 0; i < LOCKED; i++) {
    int64_t x;
    CHECK(dart_lock_acquire(lock));
    CHECK(dart_get_blocking(&x, locked, 1, DART_TYPE_LONGLONG,
                            DART_TYPE_LONGLONG));
    x++;
    CHECK(dart_put_blocking(locked, &x, 1, DART_TYPE_LONGLONG,
                            DART_TYPE_LONGLONG));
    CHECK(dart_lock_release(lock));
  }
  CHECK(dart_barrier(DART_TEAM_ALL));

  int64_t total[2], ids = me.id, idsum = 0;
  CHECK(dart_get_blocking(&total[0], counter, 1, DART_TYPE_LONGLONG,
                          DART_TYPE_LONGLONG));
  CHECK(dart_get_blocking(&total[1], locked, 1, DART_TYPE_LONGLONG,
                          DART_TYPE_LONGLONG));
  CHECK(dart_allreduce(&ids, &idsum, 1, DART_TYPE_LONGLONG, DART_OP_SUM,
                       DART_TEAM_ALL));
  EXPECT(total[0] == (int64_t)n * ADDS);
  EXPECT(total[1] == (int64_t)n * LOCKED);
  EXPECT(idsum == (int64_t)(n * (n - 1) / 2));
  if (me.id == 0) {
    printf("demo_pgas on %zu units:\n", n);
    printf("  ring put/get        : every unit received its left neighbour's "
           "id\n");
    printf("  atomic counter      : %lld (= %zu units x %d fetch_and_op)\n",
           (long long)total[0], n, ADDS);
    printf("  lock-protected count: %lld (= %zu units x %d get+put under the "
           "lock)\n",
           (long long)total[1], n, LOCKED);
    printf("  allreduce of ids    : %lld\n", (long long)idsum);
  }
  CHECK(dart_team_lock_destroy(&lock));
  CHECK(dart_team_memfree(mem));
  CHECK(dart_exit());
  return 0;
}
