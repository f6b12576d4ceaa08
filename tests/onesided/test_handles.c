/*
 * Handle semantics: NULL entries, test loops, all-or-nothing testall,
 * handle_free followed by flush, the halo-flag pattern (put_handle +
 * waitall_local only; the receiver polls its own memory with
 * get_blocking), and completed operations returning DART_HANDLE_NULL.
 */
#include "os_common.h"

enum { N = 8, WORDS = 256 };

static void test_null_and_free(void)
{
  int32_t r = 7;
  TEST_OK(dart_wait(NULL));
  TEST_OK(dart_wait_local(NULL));
  dart_handle_t h = DART_HANDLE_NULL;
  TEST_OK(dart_wait(&h));
  TEST_OK(dart_test(NULL, &r));
  TEST_CHECK(r == 1);
  r = 0;
  TEST_OK(dart_test_local(&h, &r));
  TEST_CHECK(r == 1);
  TEST_OK(dart_handle_free(NULL));
  TEST_OK(dart_handle_free(&h));
  TEST_OK(dart_waitall(NULL, 5));
  TEST_OK(dart_waitall_local(&h, 0));
  r = 0;
  TEST_OK(dart_testall(NULL, 0, &r));
  TEST_CHECK(r == 1);
  r = 0;
  TEST_OK(dart_testall_local(&h, 1, &r));
  TEST_CHECK(r == 1);
}

/* Puts N blocks to the neighbour with handles, NULL entries interleaved;
 * completes with the given method; the neighbour checks. */
static void round_trip(dart_gptr_t g, long *mine, int method, int round)
{
  int target = (me + 1) % nunits, writer = (me - 1 + nunits) % nunits;
  long src[N][WORDS / N];
  dart_handle_t hs[2 * N];
  for (int i = 0; i < N; i++) {
    for (int k = 0; k < WORDS / N; k++)
      src[i][k] = round * 100000 + me * 1000 + i * 32 + k;
    hs[2 * i] = DART_HANDLE_NULL;
    TEST_OK(dart_put_handle(os_at(g, target, (size_t)i * sizeof src[i]), src[i],
                            WORDS / N, DART_TYPE_LONG, DART_TYPE_LONG,
                            &hs[2 * i + 1]));
    if (target == me)
      TEST_CHECK(hs[2 * i + 1] == DART_HANDLE_NULL); /* done at once */
  }
  int32_t done = 0;
  switch (method) {
  case 0: TEST_OK(dart_waitall(hs, 2 * N)); break;
  case 1:
    for (long it = 0; !done; it++) {
      TEST_OK(dart_testall(hs, 2 * N, &done));
      if (!done) /* all-or-nothing: no entry touched yet */
        for (int i = 0; i < N; i++)
          TEST_CHECK(hs[2 * i + 1] != DART_HANDLE_NULL || target == me);
    }
    break;
  case 2:
    for (long it = 0; !done; it++)
      TEST_OK(dart_testall_local(hs, 2 * N, &done));
    TEST_OK(dart_flush(os_at(g, target, 0)));
    break;
  case 3: /* one by one, test loops */
    for (int i = 0; i < 2 * N; i++) {
      done = 0;
      while (!done) TEST_OK(dart_test(&hs[i], &done));
    }
    break;
  default: /* released without waiting: a later flush covers them */
    for (int i = 0; i < 2 * N; i++) TEST_OK(dart_handle_free(&hs[i]));
    TEST_OK(dart_flush_all(g));
  }
  for (int i = 0; i < 2 * N; i++) TEST_CHECK(hs[i] == DART_HANDLE_NULL);
  for (int i = 0; i < 2 * N; i++)
    TEST_OK(dart_handle_free(&hs[i])); /* DASH does */
  os_barrier();
  for (int i = 0; i < N; i++)
    for (int k = 0; k < WORDS / N; k++)
      TEST_CHECK_MSG(mine[i * (WORDS / N) + k] ==
                         round * 100000 + writer * 1000 + i * 32 + k,
                     "method %d block %d word %d", method, i, k);
  os_barrier();
}

/* Halo flags: put_handle + waitall_local, never flushed; the receiver
 * polls its own flag with dart_get_blocking. Must finish in bounded time. */
static void test_halo_flags(dart_gptr_t g)
{
  int target = (me + 1) % nunits;
  for (int round = 1; round <= 5; round++) {
    long flag = round;
    dart_handle_t h[2] = {DART_HANDLE_NULL, DART_HANDLE_NULL};
    TEST_OK(dart_put_handle(os_at(g, target, WORDS * sizeof(long)), &flag, 1,
                            DART_TYPE_LONG, DART_TYPE_LONG, &h[1]));
    TEST_OK(dart_waitall_local(h, 2));
    TEST_CHECK(h[1] == DART_HANDLE_NULL);
    long seen = 0;
    double t0 = os_now();
    while (seen != round) {
      TEST_OK(dart_get_blocking(&seen, os_at(g, me, WORDS * sizeof(long)), 1,
                                DART_TYPE_LONG, DART_TYPE_LONG));
      TEST_CHECK_MSG(os_now() - t0 < 20, "flag of round %d not seen after 20 s",
                     round);
    }
    os_barrier();
  }
}

/* Gets with handles, completed by wait_local / test_local. */
static void test_get_handles(dart_gptr_t g, long *mine)
{
  int target = (me + nunits - 1) % nunits;
  for (int i = 0; i < WORDS; i++) mine[i] = me * 10000 + i;
  os_barrier();
  long dst[WORDS];
  dart_handle_t h;
  TEST_OK(dart_get_handle(dst, os_at(g, target, 0), WORDS, DART_TYPE_LONG,
                          DART_TYPE_LONG, &h));
  TEST_OK(dart_wait_local(&h));
  for (int i = 0; i < WORDS; i++) TEST_CHECK(dst[i] == target * 10000 + i);
  memset(dst, 0, sizeof dst);
  TEST_OK(dart_get_handle(dst, os_at(g, target, 0), WORDS, DART_TYPE_LONG,
                          DART_TYPE_LONG, &h));
  int32_t done = 0;
  while (!done) TEST_OK(dart_test_local(&h, &done));
  TEST_CHECK(h == DART_HANDLE_NULL);
  for (int i = 0; i < WORDS; i++) TEST_CHECK(dst[i] == target * 10000 + i);
  os_barrier();
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  dart_gptr_t g;
  TEST_OK(
      dart_team_memalloc_aligned(DART_TEAM_ALL, WORDS + 8, DART_TYPE_LONG, &g));
  long *mine = os_local(g);
  memset(mine, 0, (WORDS + 8) * sizeof(long));
  os_barrier();
  test_null_and_free();
  for (int method = 0; method < 5; method++)
    round_trip(g, mine, method, method + 1);
  test_get_handles(g, mine);
  test_halo_flags(g);
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  if (me == 0) printf("test_handles: OK (%d units)\n", nunits);
  return 0;
}
