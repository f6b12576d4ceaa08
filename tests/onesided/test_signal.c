/*
 * Two patterns of DASH's test suite that need the MPI's one-sided
 * progress, each failing under Open MPI's osc/ucx before issue 36 item 5
 * (docs/design.md §7.2, the progress probes):
 *  - halo: every unit starts a handle-based get of 64 KiB from its right
 *    neighbour and enters dart_barrier; where the probe found that gets
 *    move only inside calls on their requests, the data must be complete
 *    when the barrier returns, before any wait (DASH's HaloTest reads its
 *    halos there); everywhere it is complete after dart_wait_local;
 *  - signal: unit 0 polls its own element with dart_fetch_and_op(NO_OP)
 *    and dart_flush_local until every other unit's dart_accumulate of 1
 *    has landed (DASH's AtomicTest.AtomicSignal); it must end (the test's
 *    timeout catches the hang) with the exact count.
 */
#include "os_common.h"
#include "transport/probe.h"

#define WORDS 8192

static void test_halo_get(void)
{
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, WORDS, DART_TYPE_LONG, &g));
  long *mine = os_local(g);
  for (int i = 0; i < WORDS; i++) mine[i] = 1000L * (me + 1) + i;
  long *dst = calloc(WORDS, sizeof *dst);
  TEST_CHECK(dst != NULL);
  for (int round = 0; round < 3; round++) {
    memset(dst, 0, WORDS * sizeof *dst);
    os_barrier();
    int right = (me + 1) % nunits;
    dart_handle_t h = DART_HANDLE_NULL;
    TEST_OK(dart_get_handle(dst, os_at(g, right, 0), WORDS, DART_TYPE_LONG,
                            DART_TYPE_LONG, &h));
    os_barrier();
    if (!dart__caps.cap[DART__CAP_GET_MOVES])
      for (int i = 0; i < WORDS; i++)
        TEST_CHECK_MSG(dst[i] == 1000L * (right + 1) + i,
                       "round %d: word %d of unit %d's halo is %ld after the "
                       "barrier",
                       round, i, right, dst[i]);
    TEST_OK(dart_wait_local(&h));
    for (int i = 0; i < WORDS; i++)
      TEST_CHECK_MSG(dst[i] == 1000L * (right + 1) + i,
                     "round %d: word %d of unit %d's halo is %ld", round, i,
                     right, dst[i]);
  }
  os_barrier();
  free(dst);
  TEST_OK(dart_team_memfree(g));
}

static void test_signal(void)
{
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_INT, &g));
  int *mine = os_local(g);
  *mine = 0;
  os_barrier();
  dart_gptr_t flag = os_at(g, 0, 0);
  if (me == 0) {
    int v = 0;
    long polls = 0;
    do {
      TEST_OK(dart_fetch_and_op(flag, NULL, &v, DART_TYPE_INT, DART_OP_NO_OP));
      TEST_OK(dart_flush_local(flag));
      polls++;
    } while (v < nunits - 1);
    TEST_CHECK_MSG(v == nunits - 1, "signal count %d after %ld polls", v,
                   polls);
  } else {
    const int one = 1;
    TEST_OK(dart_accumulate(flag, &one, 1, DART_TYPE_INT, DART_OP_SUM));
    TEST_OK(dart_flush(flag));
  }
  os_barrier();
  TEST_OK(dart_team_memfree(g));
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  test_halo_get();
  for (int i = 0; i < 5; i++) test_signal();
  TEST_OK(dart_exit());
  return 0;
}
