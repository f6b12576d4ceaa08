/*
 * Binary buddy allocator with out-of-band bookkeeping.
 *
 * Every block that currently exists (free or allocated) has a record. At
 * any time the blocks partition the pool, so a block is identified by its
 * start offset alone: an open-addressing hash table maps offset -> record.
 * Free blocks are additionally kept in one min-heap per order (block size
 * 2^order), keyed by offset. Allocation takes the lowest free block of the
 * smallest sufficient order and splits it, returning right halves to the
 * heaps; freeing merges the block with its buddy (offset ^ size) while
 * that buddy is free and of the same order. Both walk at most log2(pool)
 * orders; heap operations are O(log free blocks), hash operations O(1)
 * expected.
 *
 * Merging is deferred: a free only returns the block to its order's heap,
 * so the common pattern of allocating and freeing blocks of one size costs
 * a heap pop and a push instead of splitting the pool down to that size
 * and merging it back up every time (12 levels for 1 KiB out of 4 MiB).
 * Only when no free block is large enough does the allocator coalesce:
 * every pair of free buddies is merged, bottom-up, which yields the
 * maximal aligned free blocks, and the allocation is tried again.
 *
 * Team heaps need units that free the same blocks in different orders to
 * hand out the same offsets afterwards. That holds: a free commutes with
 * other frees (it adds its block to a set), the coalesced partition depends
 * only on the set of free blocks, and an allocation is a function of the
 * free sets (lowest offset of the smallest sufficient order).
 */
#include "globmem/buddy.h"

#include <stdbool.h>
#include <stdlib.h>

#define NIL (-1)
#define MAX_ORDERS 64

typedef struct {
  uint64_t off;
  int32_t hpos; /* position in its order's heap (free blocks)  */
  int32_t next; /* link of the unused-record stack             */
  uint8_t order;
  bool free;
} block_t;

/* Min-heap (by offset) of the free blocks of one order. */
typedef struct {
  int32_t *rec;
  int32_t n, cap;
} fheap_t;

struct dart__buddy {
  size_t pool_size;
  unsigned min_order, max_order;
  fheap_t heap[MAX_ORDERS]; /* free blocks per order               */
  block_t *blocks;          /* record storage                      */
  int32_t nblocks, cap_blocks;
  int32_t recycled; /* stack of unused records (via .next) */
  int32_t *slots;   /* hash table of record indices or NIL */
  size_t nslots;    /* power of two                        */
  size_t used_slots;
  size_t live;
  bool unmerged; /* a free since the last coalescing  */
};

size_t dart__buddy_round_pow2(size_t n)
{
  size_t p = 1;
  while (p < n) {
    if (p > SIZE_MAX / 2) return 0;
    p <<= 1;
  }
  return p;
}

static unsigned log2_exact(size_t p)
{
  return (unsigned)__builtin_ctzll((unsigned long long)p);
}

static size_t hash_home(const dart__buddy_t *b, uint64_t off)
{
  uint64_t h = (off >> b->min_order) * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 17) & (b->nslots - 1);
}

/* Slot holding the record for off, or the empty slot where it would go. */
static size_t hash_probe(const dart__buddy_t *b, uint64_t off)
{
  size_t i = hash_home(b, off);
  while (b->slots[i] != NIL && b->blocks[b->slots[i]].off != off)
    i = (i + 1) & (b->nslots - 1);
  return i;
}

static int32_t hash_find(const dart__buddy_t *b, uint64_t off)
{
  return b->slots[hash_probe(b, off)];
}

static int hash_resize(dart__buddy_t *b, size_t nslots)
{
  int32_t *old = b->slots;
  size_t oldn = b->nslots;
  int32_t *s = malloc(nslots * sizeof *s);
  if (s == NULL) return -1;
  for (size_t i = 0; i < nslots; i++) s[i] = NIL;
  b->slots = s;
  b->nslots = nslots;
  for (size_t i = 0; i < oldn; i++)
    if (old[i] != NIL) b->slots[hash_probe(b, b->blocks[old[i]].off)] = old[i];
  free(old);
  return 0;
}

static int hash_insert(dart__buddy_t *b, int32_t rec)
{
  if (2 * (b->used_slots + 1) > b->nslots && hash_resize(b, 2 * b->nslots) != 0)
    return -1;
  b->slots[hash_probe(b, b->blocks[rec].off)] = rec;
  b->used_slots++;
  return 0;
}

/* Linear-probing deletion by backward shift (no tombstones). */
static void hash_remove(dart__buddy_t *b, uint64_t off)
{
  size_t mask = b->nslots - 1;
  size_t hole = hash_probe(b, off);
  if (b->slots[hole] == NIL) return;
  b->slots[hole] = NIL;
  b->used_slots--;
  for (size_t j = (hole + 1) & mask; b->slots[j] != NIL; j = (j + 1) & mask) {
    size_t home = hash_home(b, b->blocks[b->slots[j]].off);
    /* Move entry j into the hole unless its home lies cyclically in
     * (hole, j], in which case it is still reachable without the hole. */
    bool reachable =
        (hole < j) ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!reachable) {
      b->slots[hole] = b->slots[j];
      b->slots[j] = NIL;
      hole = j;
    }
  }
}

static int32_t record_new(dart__buddy_t *b, uint64_t off, unsigned order)
{
  int32_t r = b->recycled;
  if (r != NIL) {
    b->recycled = b->blocks[r].next;
  } else {
    if (b->nblocks == b->cap_blocks) {
      if (b->cap_blocks > INT32_MAX / 2) return NIL;
      int32_t cap = b->cap_blocks * 2;
      block_t *nb = realloc(b->blocks, (size_t)cap * sizeof *nb);
      if (nb == NULL) return NIL;
      b->blocks = nb;
      b->cap_blocks = cap;
    }
    r = b->nblocks++;
  }
  b->blocks[r] = (block_t){.off = off,
                           .hpos = NIL,
                           .next = NIL,
                           .order = (uint8_t)order,
                           .free = false};
  return r;
}

static void record_recycle(dart__buddy_t *b, int32_t r)
{
  b->blocks[r].next = b->recycled;
  b->recycled = r;
}

/* Makes room for one more free block in each order lo..hi, so that the
 * pushes of one operation cannot fail half-way. */
static int heap_reserve(dart__buddy_t *b, unsigned lo, unsigned hi)
{
  for (unsigned k = lo; k <= hi; k++) {
    fheap_t *h = &b->heap[k];
    if (h->n < h->cap) continue;
    int32_t cap = h->cap ? 2 * h->cap : 8;
    int32_t *nr = realloc(h->rec, (size_t)cap * sizeof *nr);
    if (nr == NULL) return -1;
    h->rec = nr;
    h->cap = cap;
  }
  return 0;
}

static void heap_set(dart__buddy_t *b, fheap_t *h, int32_t i, int32_t r)
{
  h->rec[i] = r;
  b->blocks[r].hpos = i;
}

static bool heap_less(const dart__buddy_t *b, const fheap_t *h, int32_t i,
                      int32_t j)
{
  return b->blocks[h->rec[i]].off < b->blocks[h->rec[j]].off;
}

static void heap_swap(dart__buddy_t *b, fheap_t *h, int32_t i, int32_t j)
{
  int32_t ri = h->rec[i];
  heap_set(b, h, i, h->rec[j]);
  heap_set(b, h, j, ri);
}

/* Restores the heap order around position i. */
static void heap_fix(dart__buddy_t *b, fheap_t *h, int32_t i)
{
  while (i > 0 && heap_less(b, h, i, (i - 1) / 2)) {
    heap_swap(b, h, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
  for (;;) {
    int32_t l = 2 * i + 1, m = i;
    if (l < h->n && heap_less(b, h, l, m)) m = l;
    if (l + 1 < h->n && heap_less(b, h, l + 1, m)) m = l + 1;
    if (m == i) return;
    heap_swap(b, h, i, m);
    i = m;
  }
}

/* Marks record r free and adds it to its order's heap (room reserved). */
static void list_push(dart__buddy_t *b, int32_t r)
{
  block_t *blk = &b->blocks[r];
  fheap_t *h = &b->heap[blk->order];
  blk->free = true;
  heap_set(b, h, h->n++, r);
  heap_fix(b, h, h->n - 1);
}

/* Takes free record r out of its order's heap. */
static void list_unlink(dart__buddy_t *b, int32_t r)
{
  block_t *blk = &b->blocks[r];
  fheap_t *h = &b->heap[blk->order];
  int32_t i = blk->hpos;
  h->n--;
  if (i != h->n) {
    heap_set(b, h, i, h->rec[h->n]);
    heap_fix(b, h, i);
  }
  blk->free = false;
  blk->hpos = NIL;
}

dart__buddy_t *dart__buddy_create(size_t pool_size)
{
  if (pool_size < DART__BUDDY_MIN_BLOCK || (pool_size & (pool_size - 1)) != 0)
    return NULL;
  dart__buddy_t *b = calloc(1, sizeof *b);
  if (b == NULL) return NULL;
  b->pool_size = pool_size;
  b->min_order = log2_exact(DART__BUDDY_MIN_BLOCK);
  b->max_order = log2_exact(pool_size);
  b->recycled = NIL;
  b->cap_blocks = 64;
  b->blocks = malloc((size_t)b->cap_blocks * sizeof *b->blocks);
  b->nslots = 128;
  b->slots = malloc(b->nslots * sizeof *b->slots);
  if (b->blocks == NULL || b->slots == NULL ||
      heap_reserve(b, b->max_order, b->max_order) != 0) {
    dart__buddy_destroy(b);
    return NULL;
  }
  for (size_t i = 0; i < b->nslots; i++) b->slots[i] = NIL;
  int32_t root = record_new(b, 0, b->max_order);
  hash_insert(b, root);
  list_push(b, root);
  return b;
}

void dart__buddy_destroy(dart__buddy_t *b)
{
  if (b == NULL) return;
  for (int i = 0; i < MAX_ORDERS; i++) free(b->heap[i].rec);
  free(b->blocks);
  free(b->slots);
  free(b);
}

/* Splits free-list-removed block r (order k) down to order `want`,
 * returning right halves to the free lists. -1 if bookkeeping OOM. */
static int split_down(dart__buddy_t *b, int32_t r, unsigned want)
{
  while (b->blocks[r].order > want) {
    unsigned k = b->blocks[r].order - 1u;
    uint64_t right_off = b->blocks[r].off + ((uint64_t)1 << k);
    int32_t right = record_new(b, right_off, k);
    if (right == NIL) return -1;
    if (hash_insert(b, right) != 0) {
      record_recycle(b, right);
      return -1;
    }
    b->blocks[r].order = (uint8_t)k;
    list_push(b, right);
  }
  return 0;
}

/* Order of the smallest free block of at least order want, or max+1. */
static unsigned first_fit(const dart__buddy_t *b, unsigned want)
{
  unsigned k = want;
  while (k <= b->max_order && b->heap[k].n == 0) k++;
  return k;
}

/* Merges free record r of order k with its lower or upper buddy `bud`
 * (free, same order, both out of their heap) into one record of order
 * k + 1, pushed on that order's heap (room reserved by the caller). */
static void merge_pair(dart__buddy_t *b, int32_t r, int32_t bud, unsigned k)
{
  int32_t keep = b->blocks[r].off < b->blocks[bud].off ? r : bud;
  int32_t drop = keep == r ? bud : r;
  hash_remove(b, b->blocks[drop].off);
  b->blocks[drop].free = false;
  b->blocks[drop].hpos = NIL; /* skipped by the scan */
  record_recycle(b, drop);
  b->blocks[keep].order = (uint8_t)(k + 1);
  b->blocks[keep].hpos = NIL;
  list_push(b, keep);
}

/*
 * Coalesces order k: every free block whose buddy is free too is merged
 * into order k + 1; the others are put back on order k's heap, rebuilt in
 * place. Blocks of the heap are marked by hpos == PENDING while scanned.
 */
#define PENDING (-2)

static void coalesce_order(dart__buddy_t *b, unsigned k)
{
  fheap_t *h = &b->heap[k];
  int32_t n = h->n, m = 0;
  for (int32_t i = 0; i < n; i++) b->blocks[h->rec[i]].hpos = PENDING;
  for (int32_t i = 0; i < n; i++) {
    int32_t r = h->rec[i];
    if (b->blocks[r].hpos != PENDING) continue; /* merged already */
    int32_t bud = hash_find(b, b->blocks[r].off ^ ((uint64_t)1 << k));
    if (bud != NIL && b->blocks[bud].free && b->blocks[bud].order == k &&
        b->blocks[bud].hpos == PENDING && heap_reserve(b, k + 1, k + 1) == 0)
      merge_pair(b, r, bud, k);
    else
      h->rec[m++] = r;
  }
  /* Re-push the m survivors; each push touches positions <= its own. */
  for (int32_t t = 0; t < m; t++) {
    int32_t r = h->rec[t];
    h->n = t;
    list_push(b, r);
  }
  h->n = m;
}

static void coalesce(dart__buddy_t *b)
{
  for (unsigned k = b->min_order; k < b->max_order; k++) coalesce_order(b, k);
  b->unmerged = false;
}

int dart__buddy_alloc(dart__buddy_t *b, size_t size, uint64_t *offset)
{
  if (size > b->pool_size) return -1;
  unsigned want = b->min_order;
  while (((size_t)1 << want) < size) want++;
  unsigned k = first_fit(b, want);
  if (k > b->max_order && b->unmerged) {
    coalesce(b);
    k = first_fit(b, want);
  }
  if (k > b->max_order || heap_reserve(b, want, k) != 0) return -1;
  int32_t r = b->heap[k].rec[0];
  list_unlink(b, r);
  if (split_down(b, r, want) != 0) {
    /* Out of bookkeeping memory: give back what is left of the block. The
     * halves already split off stay valid free blocks. */
    list_push(b, r);
    return -1;
  }
  b->live++;
  *offset = b->blocks[r].off;
  return 0;
}

int dart__buddy_free(dart__buddy_t *b, uint64_t offset)
{
  int32_t r = hash_find(b, offset);
  if (r == NIL || b->blocks[r].free) return -1;
  unsigned k = b->blocks[r].order;
  if (heap_reserve(b, k, k) != 0) return -1;
  b->live--;
  list_push(b, r);
  b->unmerged = true;
  return 0;
}

size_t dart__buddy_block_size(const dart__buddy_t *b, uint64_t offset)
{
  int32_t r = hash_find(b, offset);
  if (r == NIL || b->blocks[r].free) return 0;
  return (size_t)1 << b->blocks[r].order;
}

size_t dart__buddy_pool_size(const dart__buddy_t *b)
{
  return b->pool_size;
}

size_t dart__buddy_live_blocks(const dart__buddy_t *b)
{
  return b->live;
}
