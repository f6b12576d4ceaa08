/*
 * DART_THREAD_MULTIPLE: two threads per unit concurrently run atomics on
 * one counter, puts/gets to their own slots and dart_memalloc/memfree; the
 * wait word stays exact under their concurrent waits.
 */
#include <pthread.h>

#include "os_common.h"
#include "wait_word_check.h"

enum { THREADS = 2, ITER = 100 };

static dart_gptr_t seg;

static void *worker(void *arg)
{
  int tid = (int)(intptr_t)arg;
  int target = (me + 1) % nunits;
  long one = 1, old;
  dart_gptr_t ctr = os_at(seg, 0, 0);
  dart_gptr_t slot =
      os_at(seg, target, (size_t)(8 + me * THREADS + tid) * sizeof(long));
  for (int i = 0; i < ITER; i++) {
    TEST_OK(dart_fetch_and_op(ctr, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
    TEST_OK(dart_flush(ctr));
    long v = i * 100 + tid, back = -1;
    TEST_OK(dart_put_blocking(slot, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_OK(dart_get_blocking(&back, slot, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_CHECK(back == v);
    dart_gptr_t m;
    TEST_OK(dart_memalloc(64 + (size_t)i, DART_TYPE_BYTE, &m));
    char *p;
    TEST_OK(dart_gptr_getaddr(m, (void **)&p));
    memset(p, tid, 64);
    TEST_OK(dart_memfree(m));
  }
  return NULL;
}

int main(int argc, char **argv)
{
  dart_thread_support_level_t level;
  TEST_OK(dart_init_thread(&argc, &argv, &level));
  os_ids();
  if (level != DART_THREAD_MULTIPLE) {
    if (me == 0) printf("test_threads: skipped (no DART_THREAD_MULTIPLE)\n");
    TEST_OK(dart_exit());
    return 77; /* CTest SKIP_RETURN_CODE */
  }
  TEST_OK(dart_team_memalloc_aligned(
      DART_TEAM_ALL, (8 + (size_t)nunits * THREADS) * sizeof(long),
      DART_TYPE_BYTE, &seg));
  long *mine = os_local(seg);
  memset(mine, 0, (8 + (size_t)nunits * THREADS) * sizeof(long));
  ww_check_barrier(); /* locked adds (DART_THREAD_MULTIPLE) */
  unsigned long w0 = ww_now();
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++)
    TEST_CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
  ww_check_settled(w0); /* concurrent waits of both threads */
  os_barrier();
  if (me == 0) TEST_CHECK(mine[0] == (long)nunits * THREADS * ITER);
  int writer = (me - 1 + nunits) % nunits;
  for (int t = 0; t < THREADS; t++)
    TEST_CHECK(mine[8 + writer * THREADS + t] == (ITER - 1) * 100 + t);
  os_barrier();
  TEST_OK(dart_team_memfree(seg));
  TEST_OK(dart_exit());
  if (me == 0) printf("test_threads: OK (%d units)\n", nunits);
  return 0;
}
