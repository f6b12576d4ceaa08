/* MPI-free unit tests of the segment table (src/globmem/segment.c). */
#define DART_TEST_NO_DART
#include "dart_test.h"

#include <stdint.h>

#include "globmem/segment.h"

/* Segments are opaque to the table; any distinct addresses do. */
static char fake[8];
#define SEG(i) ((struct dart__segment *)(void *)&fake[i])

static void count_cb(struct dart__segment *s, int16_t id, void *arg)
{
  (void)s;
  (void)id;
  (*(int *)arg)++;
}

static void test_ids(void)
{
  dart__segtable_t t;
  dart__segtable_init(&t);
  TEST_CHECK(dart__segtable_get(&t, 0) == NULL);
  TEST_CHECK(dart__segtable_get(&t, 1) == NULL);
  TEST_CHECK(dart__segtable_get(&t, -1) == NULL);
  TEST_CHECK(dart__segtable_get(&t, INT16_MIN) == NULL);
  TEST_CHECK(dart__segtable_get(&t, INT16_MAX) == NULL);

  int16_t a = dart__segtable_reserve(&t, DART__SEGID_ALLOC);
  int16_t b = dart__segtable_reserve(&t, DART__SEGID_ALLOC);
  int16_t r = dart__segtable_reserve(&t, DART__SEGID_REG);
  int16_t s = dart__segtable_reserve(&t, DART__SEGID_REG);
  TEST_CHECK(a == 1 && b == 2 && r == -1 && s == -2);
  TEST_CHECK(dart__segtable_get(&t, a) == NULL); /* reserved, unpublished */
  dart__segtable_publish(&t, a, SEG(1));
  dart__segtable_publish(&t, b, SEG(2));
  dart__segtable_publish(&t, r, SEG(3));
  dart__segtable_publish(&t, s, SEG(4));
  dart__segtable_publish(&t, 0, SEG(5));
  TEST_CHECK(t.live == 5);
  TEST_CHECK(dart__segtable_get(&t, 1) == SEG(1));
  TEST_CHECK(dart__segtable_get(&t, 2) == SEG(2));
  TEST_CHECK(dart__segtable_get(&t, -1) == SEG(3));
  TEST_CHECK(dart__segtable_get(&t, -2) == SEG(4));
  TEST_CHECK(dart__segtable_get(&t, 0) == SEG(5));
  TEST_CHECK(dart__segtable_get(&t, 3) == NULL);

  /* Lowest freed first, whatever the order of the frees. */
  dart__segtable_release(&t, 2);
  dart__segtable_release(&t, 1);
  TEST_CHECK(dart__segtable_get(&t, 1) == NULL &&
             dart__segtable_get(&t, 2) == NULL);
  TEST_CHECK(dart__segtable_reserve(&t, DART__SEGID_ALLOC) == 1);
  TEST_CHECK(dart__segtable_reserve(&t, DART__SEGID_ALLOC) == 2);
  TEST_CHECK(dart__segtable_reserve(&t, DART__SEGID_ALLOC) == 3);
  dart__segtable_release(&t, -1);
  TEST_CHECK(dart__segtable_reserve(&t, DART__SEGID_REG) == -1);
  TEST_CHECK(dart__segtable_reserve(&t, DART__SEGID_REG) == -3);
  TEST_CHECK(t.live == 2); /* -2 and pool */
  int n = 0;
  dart__segtable_foreach(&t, count_cb, &n);
  TEST_CHECK(n == 2);
  dart__segtable_destroy(&t);
}

/* The whole id space can be used, then reservation fails cleanly. */
static void test_exhaust(void)
{
  dart__segtable_t t;
  dart__segtable_init(&t);
  for (int32_t i = 1; i <= DART__SEG_MAX_ALLOC_ID; i++) {
    int16_t id = dart__segtable_reserve(&t, DART__SEGID_ALLOC);
    TEST_CHECK(id == i);
    dart__segtable_publish(&t, id, SEG(i % 8));
  }
  TEST_CHECK(dart__segtable_reserve(&t, DART__SEGID_ALLOC) == 0);
  TEST_CHECK(dart__segtable_get(&t, 32766) == SEG(32766 % 8));
  /* The pool's growth segment: published under its fixed id. */
  TEST_CHECK(dart__segtable_get(&t, DART__SEG_POOL_GROWTH) == NULL);
  dart__segtable_publish(&t, DART__SEG_POOL_GROWTH, SEG(7));
  TEST_CHECK(dart__segtable_get(&t, 32767) == SEG(7));
  for (int32_t i = 1; i <= 32768; i++) {
    int16_t id = dart__segtable_reserve(&t, DART__SEGID_REG);
    TEST_CHECK(id == (int16_t)-i);
    dart__segtable_publish(&t, id, SEG(i % 8));
  }
  TEST_CHECK(dart__segtable_reserve(&t, DART__SEGID_REG) == 0);
  TEST_CHECK(dart__segtable_get(&t, INT16_MIN) == SEG(0));
  dart__segtable_release(&t, 700);
  TEST_CHECK(dart__segtable_get(&t, 700) == NULL);
  TEST_CHECK(dart__segtable_reserve(&t, DART__SEGID_ALLOC) == 700);
  TEST_CHECK(t.live == 32767 + 32768 - 1);
  dart__segtable_destroy(&t);
}

int main(void)
{
  test_ids();
  test_exhaust();
  printf("unit_segtable: OK\n");
  return 0;
}
