/* Unit tests of the progress thread's policy (no MPI): when it drives MPI
 * progress and how long it sleeps, given the process's wait word. */
#include "dart_test.h"
#include "transport/progress_policy.h"

enum { BASE = 200 };
#define BEGIN 1UL
#define END 0xFFFFUL /* as dart__watch_end: depth - 1, finished + 1 */

/* Away from DART (the word never changes): drive at every look. */
static void test_away(void)
{
  dart__progress_policy_t p;
  dart__progress_policy_init(&p, 0, BASE);
  for (int i = 0; i < 10; i++) {
    TEST_CHECK(dart__progress_policy_step(&p, 0, BASE));
    TEST_CHECK(p.sleep_us == BASE);
  }
}

/* Short waits between looks: stay out, back off to the cap; drive again
 * at the first look after the waits stop. */
static void test_busy_then_away(void)
{
  dart__progress_policy_t p;
  unsigned long w = 0;
  dart__progress_policy_init(&p, w, BASE);
  long expect = BASE;
  for (int i = 0; i < 10; i++) {
    w += BEGIN;
    w += END; /* one whole wait since the last look */
    TEST_CHECK(!dart__progress_policy_step(&p, w, BASE));
    expect = expect * 2 < BASE * DART__PROGRESS_IDLE_FACTOR
                 ? expect * 2
                 : BASE * DART__PROGRESS_IDLE_FACTOR;
    TEST_CHECK_MSG(p.sleep_us == expect, "sleep %ld want %ld", p.sleep_us,
                   expect);
  }
  TEST_CHECK(p.sleep_us == BASE * DART__PROGRESS_IDLE_FACTOR);
  TEST_CHECK(dart__progress_policy_step(&p, w, BASE)); /* left DART */
  TEST_CHECK(p.sleep_us == BASE);
}

/* One wait that never ends: stay out for STALE_LOOKS - 1 looks after the
 * first, then drive, and so on periodically. */
static void test_stale_wait(void)
{
  dart__progress_policy_t p;
  unsigned long w = 0;
  dart__progress_policy_init(&p, w, BASE);
  w += BEGIN;
  TEST_CHECK(!dart__progress_policy_step(&p, w, BASE)); /* new wait */
  int drives = 0, looks = 0;
  for (; looks < 4 * DART__PROGRESS_STALE_LOOKS; looks++)
    drives += dart__progress_policy_step(&p, w, BASE);
  TEST_CHECK_MSG(drives == 4, "%d drives in %d looks", drives, looks);
  /* the wait ends: busy once (a wait finished since the last look) */
  w += END;
  TEST_CHECK(!dart__progress_policy_step(&p, w, BASE));
  TEST_CHECK(dart__progress_policy_step(&p, w, BASE));
}

/* Nested and concurrent waits keep the depth non-zero until all end. */
static void test_nested(void)
{
  dart__progress_policy_t p;
  unsigned long w = 0;
  dart__progress_policy_init(&p, w, BASE);
  w += BEGIN;
  w += BEGIN;
  w += END; /* inner wait over, outer still under way */
  TEST_CHECK((w & DART__WAIT_DEPTH_MASK) == 1);
  TEST_CHECK(!dart__progress_policy_step(&p, w, BASE));
  w += END;
  TEST_CHECK((w & DART__WAIT_DEPTH_MASK) == 0 && (w >> 16) == 2);
  TEST_CHECK(!dart__progress_policy_step(&p, w, BASE)); /* just finished */
  TEST_CHECK(dart__progress_policy_step(&p, w, BASE));
}

int main(void)
{
  test_away();
  test_busy_then_away();
  test_stale_wait();
  test_nested();
  printf("unit_progress_policy: OK\n");
  return 0;
}
