/* Unit tests (no MPI) of an OpenSHMEM context's completion record
 * (shmem/src/shmem_track.h): what a quiet flushes after a given sequence
 * of operations, and that the record stays a few words whatever the
 * number of PEs. */
#include <stdint.h>

#include "dart_test.h"
#include "shmem_track.h"

/* Whether the taken set is exactly want[0..n) in that order. */
static int taken_is(shmemi_track_t *k, const uint32_t *want, int n)
{
  uint32_t got[SHMEMI_TRACK_MAX];
  int m = shmemi_track_take(k, got);
  if (m != n) return 0;
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) return 0;
  return shmemi_track_empty(k);
}

static void test_keys(void)
{
  uint32_t a = shmemi_track_key(0, 5), b = shmemi_track_key(1, 5);
  TEST_CHECK(a != b);
  TEST_CHECK(shmemi_track_seg(a) == 0 && shmemi_track_pe(a) == 5);
  TEST_CHECK(shmemi_track_seg(b) == 1 && shmemi_track_pe(b) == 5);
  uint32_t big = shmemi_track_key(1, 0x7fffffff);
  TEST_CHECK(shmemi_track_seg(big) == 1 && shmemi_track_pe(big) == 0x7fffffff);
  TEST_CHECK(sizeof(shmemi_track_t) <= 4 + 4 * SHMEMI_TRACK_MAX);
}

static void test_repeats(void)
{
  shmemi_track_t k = {0};
  TEST_CHECK(shmemi_track_empty(&k));
  uint32_t none[1];
  TEST_CHECK(shmemi_track_take(&k, none) == 0);
  uint32_t a = shmemi_track_key(0, 3), b = shmemi_track_key(0, 9),
           c = shmemi_track_key(1, 3);
  for (int i = 0; i < 1000; i++) shmemi_track_add(&k, a); /* same target */
  TEST_CHECK(!shmemi_track_empty(&k));
  uint32_t w1[] = {a};
  TEST_CHECK(taken_is(&k, w1, 1));
  for (int i = 0; i < 1000; i++) { /* alternating: no growth */
    shmemi_track_add(&k, a);
    shmemi_track_add(&k, b);
    shmemi_track_add(&k, c);
  }
  uint32_t w3[] = {a, b, c};
  TEST_CHECK(taken_is(&k, w3, 3));
  /* taken: the next quiet starts afresh */
  shmemi_track_add(&k, b);
  uint32_t w4[] = {b};
  TEST_CHECK(taken_is(&k, w4, 1));
}

static void test_overflow(void)
{
  shmemi_track_t k = {0};
  for (int pe = 0; pe < SHMEMI_TRACK_MAX; pe++)
    shmemi_track_add(&k, shmemi_track_key(0, pe));
  uint32_t want[SHMEMI_TRACK_MAX];
  for (int pe = 0; pe < SHMEMI_TRACK_MAX; pe++)
    want[pe] = shmemi_track_key(0, pe);
  shmemi_track_add(&k, shmemi_track_key(0, 0)); /* kept already */
  TEST_CHECK(taken_is(&k, want, SHMEMI_TRACK_MAX));
  /* one more distinct target than it keeps: everything, then empty */
  for (int pe = 0; pe <= SHMEMI_TRACK_MAX; pe++)
    shmemi_track_add(&k, shmemi_track_key(1, pe));
  uint32_t out[SHMEMI_TRACK_MAX];
  TEST_CHECK(shmemi_track_take(&k, out) == -1);
  TEST_CHECK(shmemi_track_empty(&k));
  /* 10^5 PEs touched: still "everything", nothing written past t[] */
  for (int pe = 0; pe < 100000; pe++)
    shmemi_track_add(&k, shmemi_track_key(pe & 1, pe));
  TEST_CHECK(shmemi_track_take(&k, out) == -1);
}

int main(void)
{
  test_keys();
  test_repeats();
  test_overflow();
  printf("unit_shmem_track: OK\n");
  return 0;
}
