/*
 * White-box test of the MCS queue: grant order equals enqueue order (FIFO),
 * and the placement of lock tails (DART_LOCK_TAIL spread / unit0).
 */
#include <stdlib.h>
#include <string.h>

#include "dart_test.h"
#include "locks/lock_internal.h"

/* Unit 0 holds the lock while units 1..n-1 enqueue one after another
 * (in reverse id order, so FIFO differs from id order); each logs its id
 * when it gets the lock. */
static void test_fifo(int me, int n)
{
  dart_lock_t l;
  TEST_OK(dart_team_lock_init(DART_TEAM_ALL, &l));
  dart_gptr_t log;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 8, DART_TYPE_INT, &log));
  log.unitid = 0;
  if (me == 0) {
    int init[8] = {0};
    TEST_OK(dart_put_blocking(log, init, 8, DART_TYPE_INT, DART_TYPE_INT));
    TEST_OK(dart_lock_acquire(l));
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = n - 1; k >= 1; k--) {
    if (me == k) {
      bool granted = true;
      pthread_mutex_lock(&l->mtx);
      TEST_OK(dart__mcs_enqueue(l, &granted));
      TEST_CHECK(!granted);
    }
    TEST_OK(dart_barrier(DART_TEAM_ALL));
  }
  if (me != 0) {
    TEST_OK(dart__mcs_wait(l));
    dart__lock_mark_held(l);
  }
  /* inside the lock: log[0] is the count, log[1..] the order */
  int cnt = 0, one = 1;
  TEST_OK(dart_fetch_and_op(log, &one, &cnt, DART_TYPE_INT, DART_OP_SUM));
  TEST_OK(dart_flush(log));
  dart_gptr_t slot = log;
  slot.addr_or_offs.offset = sizeof(int) * (size_t)(1 + cnt);
  TEST_OK(dart_put_blocking(slot, &me, 1, DART_TYPE_INT, DART_TYPE_INT));
  TEST_OK(dart_lock_release(l));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  if (me == 0) {
    int got[8];
    TEST_OK(dart_get_blocking(got, log, 8, DART_TYPE_INT, DART_TYPE_INT));
    TEST_CHECK(got[0] == n);
    /* unit 0 was inside first, then n-1, n-2, ... 1 */
    TEST_CHECK(got[1] == 0);
    for (int i = 2; i <= n; i++)
      TEST_CHECK_MSG(got[i] == n + 1 - i, "position %d: unit %d", i, got[i]);
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_team_memfree(log));
  TEST_OK(dart_team_lock_destroy(&l));
}

static void test_tails(int n)
{
  const char *mode = getenv("DART_LOCK_TAIL");
  bool unit0 = mode != NULL && strcmp(mode, "unit0") == 0;
  enum { NL = 9 };
  dart_lock_t l[NL];
  for (int i = 0; i < NL; i++)
    TEST_OK(dart_team_lock_init(DART_TEAM_ALL, &l[i]));
  int first = l[0]->tail_unit;
  for (int i = 0; i < NL; i++)
    TEST_CHECK(l[i]->tail_unit == (unit0 ? 0 : (first + i) % n));
  for (int i = 0; i < NL; i++) TEST_OK(dart_team_lock_destroy(&l[i]));
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&n));
  TEST_CHECK(n <= 7);
  test_fifo(me.id, (int)n);
  test_tails((int)n);
  TEST_OK(dart_exit());
  return 0;
}
