/*
 * Transfers and accumulates split into several MPI calls (the split size,
 * INT_MAX elements in production, is lowered to 7 here), in every
 * completion form, to the neighbour.
 */
#include "globmem/dart_segment.h"
#include "onesided/onesided.h"
#include "os_common.h"
#include "wait_word_check.h"

enum { N = 100 };

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  ww_check_barrier(); /* single-threaded: plain load and store */
  unsigned long w0 = ww_now();
  dart__rma_max_count = 7;
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 2 * N, DART_TYPE_LONG, &g));
  long *mine = os_local(g);
  int target = (me + 1) % nunits, writer = (me - 1 + nunits) % nunits;
  long src[N], dst[N];
  dart_gptr_t t = os_at(g, target, 0), acc = os_at(g, target, N * sizeof(long));
  for (int mode = 0; mode < 3; mode++) {
    memset(mine, 0, 2 * N * sizeof(long));
    os_barrier();
    for (int i = 0; i < N; i++) src[i] = 1000L * mode + 10L * me + i;
    dart_handle_t h = DART_HANDLE_NULL;
    if (mode == 0)
      TEST_OK(dart_put_blocking(t, src, N, DART_TYPE_LONG, DART_TYPE_LONG));
    if (mode == 1) {
      TEST_OK(dart_put(t, src, N, DART_TYPE_LONG, DART_TYPE_LONG));
      TEST_OK(dart_flush(t));
    }
    if (mode == 2) {
      TEST_OK(dart_put_handle(t, src, N, DART_TYPE_LONG, DART_TYPE_LONG, &h));
      TEST_OK(dart_wait_local(&h));
    }
    TEST_OK(dart_accumulate(acc, src, N, DART_TYPE_LONG, DART_OP_SUM));
    TEST_OK(dart_accumulate_blocking_local(acc, src, N, DART_TYPE_LONG,
                                           DART_OP_SUM));
    TEST_OK(dart_flush(acc));
    os_barrier();
    for (int i = 0; i < N; i++) {
      long want = 1000L * mode + 10L * writer + i;
      TEST_CHECK_MSG(mine[i] == want, "mode %d put element %d", mode, i);
      TEST_CHECK_MSG(mine[N + i] == 2 * want, "mode %d accumulate element %d",
                     mode, i);
    }
    memset(dst, 0, sizeof dst);
    if (mode == 0)
      TEST_OK(dart_get_blocking(dst, t, N, DART_TYPE_LONG, DART_TYPE_LONG));
    if (mode == 1) {
      TEST_OK(dart_get(dst, t, N, DART_TYPE_LONG, DART_TYPE_LONG));
      TEST_OK(dart_flush_local(t));
    }
    if (mode == 2) {
      int32_t done = 0;
      TEST_OK(dart_get_handle(dst, t, N, DART_TYPE_LONG, DART_TYPE_LONG, &h));
      while (!done) TEST_OK(dart_test_local(&h, &done));
    }
    for (int i = 0; i < N; i++) TEST_CHECK(dst[i] == src[i]);
    os_barrier();
  }
  ww_check_settled(w0);
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  if (me == 0) printf("test_chunks: OK (%d units)\n", nunits);
  return 0;
}
