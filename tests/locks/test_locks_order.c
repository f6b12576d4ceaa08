/*
 * dart_lock_release completes the holder's outstanding RMA (issue 15,
 * item 7): inside the lock every unit reads 256 KiB on unit 0 with a
 * blocking get, adds to them and writes them back with a *non-blocking*
 * put, never flushing; the next holder must read what it wrote, so the
 * words add up exactly at the end. On one node the
 * puts are copies (complete at once); with DART_SIM_NODE_SIZE=1 they are
 * MPI_Put, complete only after a flush.
 */
#include <string.h>

#include "dart_test.h"

enum { ITER = 30, WORDS = 32768 };

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t id;
  size_t n;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&n));
  int me = id.id, nu = (int)n;
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, WORDS, DART_TYPE_LONG, &g));
  static long zero[WORDS];
  g.unitid = me;
  TEST_OK(dart_put_blocking(g, zero, WORDS, DART_TYPE_LONG, DART_TYPE_LONG));
  dart_lock_t lock;
  TEST_OK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  static long buf[ITER][WORDS];
  for (int i = 0; i < ITER; i++) {
    TEST_OK(dart_lock_acquire(lock));
    dart_gptr_t t = g;
    t.unitid = 0;
    long *b = buf[i]; /* one buffer per section: valid until the end */
    TEST_OK(dart_get_blocking(b, t, WORDS, DART_TYPE_LONG, DART_TYPE_LONG));
    for (int w = 0; w < WORDS; w++) b[w] += w + 1;
    TEST_OK(dart_put(t, b, WORDS, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_OK(dart_lock_release(lock));
  }
  TEST_OK(dart_flush_all(g));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  if (me == 0) {
    static long got[WORDS];
    TEST_OK(dart_get_blocking(got, g, WORDS, DART_TYPE_LONG, DART_TYPE_LONG));
    for (int w = 0; w < WORDS; w++)
      TEST_CHECK_MSG(got[w] == (long)(w + 1) * ITER * nu,
                     "word %d is %ld, want %ld: an update of a critical "
                     "section was lost",
                     w, got[w], (long)(w + 1) * ITER * nu);
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_team_lock_destroy(&lock));
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  if (me == 0) printf("test_locks_order: OK (%d units)\n", nu);
  return 0;
}
