/*
 * dart_lock_release completes the holder's outstanding RMA (issue 15,
 * item 7): inside the lock every unit reads 256 KiB on unit 0 with a
 * blocking get, adds to them and writes them back with a *non-blocking*
 * put, never flushing; the next holder must read what it wrote, so the
 * words add up exactly at the end. On one node the
 * puts are copies (complete at once); with DART_SIM_NODE_SIZE=1 they are
 * MPI_Put, complete only after a flush.
 * Then the same with one critical section touching more segments than a
 * thread notes for its release (40 team allocations and a block of unit
 * 0's dart_memalloc growth segment): all of them are complete at release.
 */
#include <string.h>

#include "dart_test.h"

enum { ITER = 30, WORDS = 32768 };
enum { NSEG = 40, ITER2 = 6, SW = 64, GROW_BYTES = 24 << 20 };

/* Inside the lock: get, add, non-blocking put on t; checked at the end. */
static void update(dart_gptr_t t, long *b, int k)
{
  TEST_OK(dart_get_blocking(b, t, SW, DART_TYPE_LONG, DART_TYPE_LONG));
  for (int w = 0; w < SW; w++) b[w] += w + k;
  TEST_OK(dart_put(t, b, SW, DART_TYPE_LONG, DART_TYPE_LONG));
}

static void check_sum(dart_gptr_t t, int k, int nu)
{
  long got[SW];
  TEST_OK(dart_get_blocking(got, t, SW, DART_TYPE_LONG, DART_TYPE_LONG));
  for (int w = 0; w < SW; w++)
    TEST_CHECK_MSG(got[w] == (long)(w + k) * ITER2 * nu,
                   "segment %d word %d is %ld, want %ld", k, w, got[w],
                   (long)(w + k) * ITER2 * nu);
}

static void many_segments(dart_lock_t lock, int me, int nu)
{
  dart_gptr_t seg[NSEG + 1];
  static long zero[SW];
  for (int k = 0; k < NSEG; k++) {
    TEST_OK(
        dart_team_memalloc_aligned(DART_TEAM_ALL, SW, DART_TYPE_LONG, &seg[k]));
    seg[k].unitid = 0;
  }
  /* beyond the initial local pool: the growth segment */
  if (me == 0) {
    TEST_OK(dart_memalloc(GROW_BYTES, DART_TYPE_BYTE, &seg[NSEG]));
    TEST_OK(
        dart_put_blocking(seg[NSEG], zero, SW, DART_TYPE_LONG, DART_TYPE_LONG));
    for (int k = 0; k < NSEG; k++)
      TEST_OK(
          dart_put_blocking(seg[k], zero, SW, DART_TYPE_LONG, DART_TYPE_LONG));
  }
  TEST_OK(dart_bcast(&seg[NSEG], sizeof(dart_gptr_t), DART_TYPE_BYTE,
                     (dart_team_unit_t){0}, DART_TEAM_ALL));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  static long buf[ITER2][NSEG + 1][SW];
  for (int i = 0; i < ITER2; i++) {
    TEST_OK(dart_lock_acquire(lock));
    for (int k = 0; k <= NSEG; k++) update(seg[k], buf[i][k], k);
    TEST_OK(dart_lock_release(lock));
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  if (me == 0)
    for (int k = 0; k <= NSEG; k++) check_sum(seg[k], k, nu);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  for (int k = 0; k < NSEG; k++) TEST_OK(dart_team_memfree(seg[k]));
  if (me == 0) TEST_OK(dart_memfree(seg[NSEG]));
}

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
  many_segments(lock, me, nu);
  TEST_OK(dart_team_lock_destroy(&lock));
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  if (me == 0) printf("test_locks_order: OK (%d units)\n", nu);
  return 0;
}
