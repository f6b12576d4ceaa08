/* Sorted unit-id sets: the pure logic behind dart_group_t. */
#include <stdlib.h>
#include <string.h>

#include "dart_group_set.h"

dart__group_t *dart__group_new(size_t cap)
{
  dart__group_t *g = calloc(1, sizeof *g);
  if (g == NULL) return NULL;
  if (cap > 0) {
    g->ids = malloc(cap * sizeof *g->ids);
    if (g->ids == NULL) {
      free(g);
      return NULL;
    }
    g->cap = cap;
  }
  return g;
}

void dart__group_free(dart__group_t *g)
{
  if (g == NULL) return;
  free(g->ids);
  free(g);
}

dart__group_t *dart__group_copy(const dart__group_t *g)
{
  dart__group_t *c = dart__group_new(g->n);
  if (c == NULL) return NULL;
  if (g->n > 0) memcpy(c->ids, g->ids, g->n * sizeof *g->ids);
  c->n = g->n;
  return c;
}

/* Index of the first element >= id (binary search). */
static size_t dart__group_lower_bound(const dart__group_t *g, int32_t id)
{
  size_t lo = 0, hi = g->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (g->ids[mid] < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int dart__group_contains(const dart__group_t *g, int32_t id)
{
  size_t i = dart__group_lower_bound(g, id);
  return i < g->n && g->ids[i] == id;
}

int dart__group_insert(dart__group_t *g, int32_t id)
{
  size_t i = dart__group_lower_bound(g, id);
  if (i < g->n && g->ids[i] == id) return 0;
  if (g->n == g->cap) {
    size_t cap = g->cap ? 2 * g->cap : 8;
    int32_t *ids = realloc(g->ids, cap * sizeof *ids);
    if (ids == NULL) return -1;
    g->ids = ids;
    g->cap = cap;
  }
  memmove(g->ids + i + 1, g->ids + i, (g->n - i) * sizeof *g->ids);
  g->ids[i] = id;
  g->n++;
  return 0;
}

void dart__group_remove(dart__group_t *g, int32_t id)
{
  size_t i = dart__group_lower_bound(g, id);
  if (i == g->n || g->ids[i] != id) return;
  memmove(g->ids + i, g->ids + i + 1, (g->n - i - 1) * sizeof *g->ids);
  g->n--;
}

/* Linear merge of two ascending lists; keep_a_only/keep_b_only/keep_both
 * select union (1,1,1) or intersection (0,0,1). */
static dart__group_t *dart__group_merge(const dart__group_t *a,
                                        const dart__group_t *b, int keep_one)
{
  dart__group_t *r = dart__group_new(a->n + b->n);
  if (r == NULL) return NULL;
  size_t i = 0, j = 0;
  while (i < a->n || j < b->n) {
    if (j == b->n || (i < a->n && a->ids[i] < b->ids[j])) {
      if (keep_one) r->ids[r->n++] = a->ids[i];
      i++;
    } else if (i == a->n || b->ids[j] < a->ids[i]) {
      if (keep_one) r->ids[r->n++] = b->ids[j];
      j++;
    } else {
      r->ids[r->n++] = a->ids[i];
      i++;
      j++;
    }
  }
  return r;
}

dart__group_t *dart__group_union(const dart__group_t *a, const dart__group_t *b)
{
  return dart__group_merge(a, b, 1);
}

dart__group_t *dart__group_intersect(const dart__group_t *a,
                                     const dart__group_t *b)
{
  return dart__group_merge(a, b, 0);
}

long dart__group_split(const dart__group_t *g, size_t n, dart__group_t **out)
{
  size_t chunk = (g->n + n - 1) / n;
  long nonempty = 0;
  for (size_t i = 0; i < n; i++) {
    size_t begin = i * chunk < g->n ? i * chunk : g->n;
    size_t end = begin + chunk < g->n ? begin + chunk : g->n;
    out[i] = dart__group_new(end - begin);
    if (out[i] == NULL) {
      for (size_t k = 0; k < i; k++) dart__group_free(out[k]);
      return -1;
    }
    if (end > begin) {
      memcpy(out[i]->ids, g->ids + begin, (end - begin) * sizeof *g->ids);
      nonempty++;
    }
    out[i]->n = end - begin;
  }
  return nonempty;
}
