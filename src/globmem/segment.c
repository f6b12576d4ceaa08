/* Per-team segment table: id reservation, publication and release. */
#include "globmem/segment.h"

#include <stdlib.h>
#include <string.h>

static int32_t id_limit(dart__segid_kind_t kind)
{
  return kind == DART__SEGID_ALLOC ? DART__SEG_MAX_ALLOC_ID
                                   : DART__SEG_MAX_REG_ID;
}

static int16_t signed_id(dart__segid_kind_t kind, int32_t a)
{
  return (int16_t)(kind == DART__SEGID_ALLOC ? a : -a);
}

void dart__segtable_init(dart__segtable_t *t)
{
  memset(t, 0, sizeof *t);
  t->dir[dart__segid_index(0) >> DART__SEG_CHUNK_BITS] = t->low;
  t->space[DART__SEGID_ALLOC].next_fresh = 1;
  t->space[DART__SEGID_REG].next_fresh = 1;
}

void dart__segtable_destroy(dart__segtable_t *t)
{
  for (int c = 0; c < DART__SEG_NCHUNKS; c++)
    if (t->dir[c] != t->low) free(t->dir[c]);
  for (int k = 0; k < 2; k++) free(t->space[k].freed);
  free(t->retired);
  free(t->attach);
  memset(t, 0, sizeof *t);
}

/* Makes sure the chunk holding id exists. */
static int ensure_chunk(dart__segtable_t *t, int16_t id)
{
  uint32_t c = dart__segid_index(id) >> DART__SEG_CHUNK_BITS;
  if (t->dir[c] != NULL) return 0;
  struct dart__segment **chunk = calloc(DART__SEG_CHUNK, sizeof *chunk);
  if (chunk == NULL) return -1;
  __atomic_store_n(&t->dir[c], chunk, __ATOMIC_RELEASE);
  return 0;
}

/* The freed |ids| of a kind form a min-heap: the lowest is reused first,
 * so the next id depends on the set of freed ids, not on the order in
 * which they were freed (units may free in different orders). */
static void freed_swap(int32_t *f, int32_t i, int32_t j)
{
  int32_t x = f[i];
  f[i] = f[j];
  f[j] = x;
}

static int32_t freed_pop(dart__segid_space_t *s)
{
  int32_t *f = s->freed, top = f[0];
  f[0] = f[--s->nfreed];
  for (int32_t i = 0;;) {
    int32_t l = 2 * i + 1, m = i;
    if (l < s->nfreed && f[l] < f[m]) m = l;
    if (l + 1 < s->nfreed && f[l + 1] < f[m]) m = l + 1;
    if (m == i) break;
    freed_swap(f, i, m);
    i = m;
  }
  return top;
}

static void freed_push(dart__segid_space_t *s, int32_t a)
{
  int32_t i = s->nfreed++;
  s->freed[i] = a;
  while (i > 0 && s->freed[i] < s->freed[(i - 1) / 2]) {
    freed_swap(s->freed, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}

int16_t dart__segtable_reserve(dart__segtable_t *t, dart__segid_kind_t kind)
{
  dart__segid_space_t *s = &t->space[kind];
  int32_t a;
  if (s->nfreed > 0) {
    a = freed_pop(s);
  } else {
    if (s->next_fresh > id_limit(kind)) return 0;
    if (ensure_chunk(t, signed_id(kind, s->next_fresh)) != 0) return 0;
    /* Room on the freed heap for every id ever handed out, so that a
     * release never allocates: a release that failed would lose the id
     * here only, and the ids of the units would differ from then on. A
     * failure here is agreed on by the creation that asked (status). */
    if (s->next_fresh > s->capfreed) {
      int32_t cap = s->capfreed ? 2 * s->capfreed : 16;
      int32_t *f = realloc(s->freed, (size_t)cap * sizeof *f);
      if (f == NULL) return 0;
      s->freed = f;
      s->capfreed = cap;
    }
    a = s->next_fresh++;
  }
  return signed_id(kind, a);
}

static struct dart__segment **slot_of(dart__segtable_t *t, int16_t id)
{
  uint32_t b = dart__segid_index(id);
  struct dart__segment **chunk = t->dir[b >> DART__SEG_CHUNK_BITS];
  return chunk == NULL ? NULL : &chunk[b & (DART__SEG_CHUNK - 1)];
}

void dart__segtable_publish(dart__segtable_t *t, int16_t id,
                            struct dart__segment *seg)
{
  if (ensure_chunk(t, id) != 0) return;
  struct dart__segment **slot = slot_of(t, id);
  if (slot == NULL) return;
  if (*slot == NULL) t->live++;
  __atomic_store_n(slot, seg, __ATOMIC_RELEASE);
}

void dart__segtable_release(dart__segtable_t *t, int16_t id)
{
  struct dart__segment **slot = slot_of(t, id);
  if (slot != NULL && *slot != NULL) {
    t->live--;
    __atomic_store_n(slot, NULL, __ATOMIC_RELEASE);
  }
  if (id == 0) return;
  dart__segid_space_t *s =
      &t->space[id < 0 ? DART__SEGID_REG : DART__SEGID_ALLOC];
  int32_t a = id < 0 ? -(int32_t)id : id;
  /* reserve made room for every id handed out */
  if (s->nfreed < s->capfreed) freed_push(s, a);
}

int dart__segtable_retire(dart__segtable_t *t, int16_t id,
                          struct dart__segment *seg)
{
  if (t->nretired == t->capretired) {
    int32_t cap = t->capretired ? 2 * t->capretired : 16;
    struct dart__segment **r = realloc(t->retired, (size_t)cap * sizeof *r);
    if (r == NULL) return -1;
    t->retired = r;
    t->capretired = cap;
  }
  struct dart__segment **slot = slot_of(t, id);
  if (slot != NULL && *slot != NULL) {
    t->live--;
    __atomic_store_n(slot, NULL, __ATOMIC_RELEASE);
  }
  t->retired[t->nretired++] = seg;
  return 0;
}

void dart__segtable_revive_retired(dart__segtable_t *t,
                                   int16_t (*id_of)(struct dart__segment *))
{
  for (int32_t i = 0; i < t->nretired; i++)
    dart__segtable_publish(t, id_of(t->retired[i]), t->retired[i]);
  t->nretired = 0;
}

void dart__segtable_foreach(dart__segtable_t *t,
                            void (*fn)(struct dart__segment *, int16_t, void *),
                            void *arg)
{
  for (int k = 0; k < 2; k++) {
    dart__segid_space_t *s = &t->space[k];
    for (int32_t a = 1; a < s->next_fresh; a++) {
      int16_t id = signed_id((dart__segid_kind_t)k, a);
      struct dart__segment *seg = dart__segtable_get(t, id);
      if (seg != NULL) fn(seg, id, arg);
    }
  }
  struct dart__segment *pool = dart__segtable_get(t, 0);
  if (pool != NULL) fn(pool, 0, arg);
}
