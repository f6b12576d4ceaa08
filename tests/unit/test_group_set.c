/* Unit tests of the sorted unit-id sets behind dart_group_t (no MPI). */
#include <stdint.h>
#include <stdlib.h>

#include "dart_test.h"
#include "dart_group_set.h"

/* The group module logs nothing itself; no runtime needed. */
static dart__group_t *make(const int32_t *ids, size_t n)
{
  dart__group_t *g = dart__group_new(0);
  TEST_CHECK(g != NULL);
  for (size_t i = 0; i < n; i++) TEST_CHECK(dart__group_insert(g, ids[i]) == 0);
  return g;
}

static void expect(const dart__group_t *g, const int32_t *ids, size_t n)
{
  TEST_CHECK_MSG(g->n == n, "size %zu want %zu", g->n, n);
  for (size_t i = 0; i < n; i++) TEST_CHECK(g->ids[i] == ids[i]);
}

static void test_insert_remove(void)
{
  const int32_t in[] = {5, 1, 9, 1, 3, 5, 0};
  dart__group_t *g = make(in, 7);
  expect(g, (const int32_t[]){0, 1, 3, 5, 9}, 5);
  TEST_CHECK(dart__group_contains(g, 3) && !dart__group_contains(g, 4));
  dart__group_remove(g, 3);
  dart__group_remove(g, 42); /* absent: no change */
  expect(g, (const int32_t[]){0, 1, 5, 9}, 4);
  for (int32_t i = 1000; i > 0; i--) TEST_CHECK(dart__group_insert(g, i) == 0);
  TEST_CHECK(g->n == 1001);
  for (size_t i = 0; i + 1 < g->n; i++) TEST_CHECK(g->ids[i] < g->ids[i + 1]);
  dart__group_free(g);
}

static void test_union_intersect(void)
{
  dart__group_t *a = make((const int32_t[]){1, 3, 5, 7}, 4);
  dart__group_t *b = make((const int32_t[]){2, 3, 7, 8}, 4);
  dart__group_t *u = dart__group_union(a, b);
  dart__group_t *x = dart__group_intersect(a, b);
  expect(u, (const int32_t[]){1, 2, 3, 5, 7, 8}, 6);
  expect(x, (const int32_t[]){3, 7}, 2);
  dart__group_t *e = dart__group_new(0);
  dart__group_t *ue = dart__group_union(a, e),
                *xe = dart__group_intersect(a, e);
  expect(ue, a->ids, a->n);
  TEST_CHECK(xe->n == 0);
  dart__group_t *c = dart__group_copy(a);
  expect(c, a->ids, a->n);
  dart__group_free(a), dart__group_free(b), dart__group_free(u);
  dart__group_free(x), dart__group_free(e), dart__group_free(ue);
  dart__group_free(xe), dart__group_free(c);
}

/* Split into n groups of ceil(size/n): the spec's 5 units / 4 example. */
static void test_split(void)
{
  dart__group_t *g = make((const int32_t[]){0, 1, 2, 3, 4}, 5);
  dart__group_t *out[6];
  TEST_CHECK(dart__group_split(g, 4, out) == 3);
  expect(out[0], (const int32_t[]){0, 1}, 2);
  expect(out[1], (const int32_t[]){2, 3}, 2);
  expect(out[2], (const int32_t[]){4}, 1);
  TEST_CHECK(out[3]->n == 0);
  for (int i = 0; i < 4; i++) dart__group_free(out[i]);
  TEST_CHECK(dart__group_split(g, 6, out) == 5);
  for (int i = 0; i < 5; i++) expect(out[i], &g->ids[i], 1);
  TEST_CHECK(out[5]->n == 0);
  for (int i = 0; i < 6; i++) dart__group_free(out[i]);
  TEST_CHECK(dart__group_split(g, 1, out) == 1);
  expect(out[0], g->ids, 5);
  dart__group_free(out[0]);
  dart__group_t *e = dart__group_new(0);
  TEST_CHECK(dart__group_split(e, 3, out) == 0);
  for (int i = 0; i < 3; i++) {
    TEST_CHECK(out[i]->n == 0);
    dart__group_free(out[i]);
  }
  dart__group_free(e);
  dart__group_free(g);
}

int main(void)
{
  test_insert_remove();
  test_union_intersect();
  test_split();
  printf("group_set: all checks passed\n");
  return 0;
}
