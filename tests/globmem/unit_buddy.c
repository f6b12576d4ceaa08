/* MPI-free unit tests of the buddy allocator (src/globmem/buddy.c). */
#define DART_TEST_NO_DART
#include "dart_test.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "globmem/buddy.h"

/* 128 x 32 B fill a 4096 B pool exactly, at increasing offsets; then the
 * pool is exhausted; freeing everything gives back one whole block. */
static void test_fill_exact(void)
{
  dart__buddy_t *b = dart__buddy_create(4096);
  TEST_CHECK(b != NULL);
  uint64_t off[128];
  for (int i = 0; i < 128; i++) {
    TEST_CHECK(dart__buddy_alloc(b, 32, &off[i]) == 0);
    TEST_CHECK(off[i] == (uint64_t)i * 32);
    TEST_CHECK(dart__buddy_block_size(b, off[i]) == 32);
  }
  uint64_t x;
  TEST_CHECK(dart__buddy_alloc(b, 1, &x) == -1);
  TEST_CHECK(dart__buddy_live_blocks(b) == 128);
  /* Free in a scrambled order. */
  for (int i = 0; i < 128; i++)
    TEST_CHECK(dart__buddy_free(b, off[(i * 37) % 128]) == 0);
  TEST_CHECK(dart__buddy_live_blocks(b) == 0);
  TEST_CHECK(dart__buddy_alloc(b, 4096, &x) == 0 && x == 0);
  TEST_CHECK(dart__buddy_alloc(b, 16, &x) == -1);
  TEST_CHECK(dart__buddy_free(b, 0) == 0);
  dart__buddy_destroy(b);
}

static void test_bad_input(void)
{
  TEST_CHECK(dart__buddy_create(0) == NULL);
  TEST_CHECK(dart__buddy_create(8) == NULL);
  TEST_CHECK(dart__buddy_create(3000) == NULL);
  dart__buddy_t *b = dart__buddy_create(1024);
  uint64_t o, p;
  TEST_CHECK(dart__buddy_alloc(b, 2048, &o) == -1);
  TEST_CHECK(dart__buddy_alloc(b, 100, &o) == 0); /* 128 B block */
  TEST_CHECK(dart__buddy_block_size(b, o) == 128);
  TEST_CHECK(dart__buddy_free(b, o + 16) == -1);   /* interior   */
  TEST_CHECK(dart__buddy_free(b, 512) == -1);      /* free block */
  TEST_CHECK(dart__buddy_free(b, 1u << 20) == -1); /* outside    */
  TEST_CHECK(dart__buddy_free(b, o) == 0);
  TEST_CHECK(dart__buddy_free(b, o) == -1);     /* double free */
  TEST_CHECK(dart__buddy_alloc(b, 0, &p) == 0); /* min block   */
  TEST_CHECK(dart__buddy_block_size(b, p) == DART__BUDDY_MIN_BLOCK);
  TEST_CHECK(dart__buddy_free(b, p) == 0);
  TEST_CHECK(dart__buddy_round_pow2(0) == 1);
  TEST_CHECK(dart__buddy_round_pow2(1000) == 1024);
  TEST_CHECK(dart__buddy_round_pow2(1024) == 1024);
  TEST_CHECK(dart__buddy_round_pow2(SIZE_MAX) == 0);
  dart__buddy_destroy(b);
}

/* Random alloc/free against a shadow byte map: blocks never overlap, are
 * aligned to their size, and everything coalesces back at the end. */
static void test_random(void)
{
  enum { POOL = 1 << 20, N = 4000 };
  dart__buddy_t *b = dart__buddy_create(POOL);
  unsigned char *owner = calloc(POOL, 1);
  uint64_t *offs = malloc(N * sizeof *offs);
  size_t *sizes = malloc(N * sizeof *sizes);
  int live = 0;
  srand(12345);
  for (int it = 0; it < 30000; it++) {
    if (live < N && (live == 0 || rand() % 3 != 0)) {
      size_t sz = (size_t)1 + (size_t)rand() % (rand() % 8 == 0 ? 65536 : 256);
      uint64_t o;
      if (dart__buddy_alloc(b, sz, &o) != 0) continue;
      size_t bs = dart__buddy_block_size(b, o);
      TEST_CHECK(bs >= sz && o % bs == 0 && o + bs <= POOL);
      for (size_t i = 0; i < sz; i++) TEST_CHECK(owner[o + i] == 0);
      memset(owner + o, 1, sz);
      offs[live] = o;
      sizes[live++] = sz;
    } else {
      int k = rand() % live;
      memset(owner + offs[k], 0, sizes[k]);
      TEST_CHECK(dart__buddy_free(b, offs[k]) == 0);
      offs[k] = offs[--live];
      sizes[k] = sizes[live];
    }
  }
  TEST_CHECK(dart__buddy_live_blocks(b) == (size_t)live);
  while (live > 0) TEST_CHECK(dart__buddy_free(b, offs[--live]) == 0);
  uint64_t o;
  TEST_CHECK(dart__buddy_alloc(b, POOL, &o) == 0 && o == 0);
  dart__buddy_destroy(b);
  free(owner);
  free(offs);
  free(sizes);
}

/* A large pool: bookkeeping stays proportional to the blocks in use. */
static void test_large_pool(void)
{
  dart__buddy_t *b = dart__buddy_create((size_t)1 << 40);
  TEST_CHECK(b != NULL);
  uint64_t o1, o2;
  TEST_CHECK(dart__buddy_alloc(b, 16, &o1) == 0 && o1 == 0);
  TEST_CHECK(dart__buddy_alloc(b, 16, &o2) == 0 && o2 == 16);
  TEST_CHECK(dart__buddy_free(b, o1) == 0 && dart__buddy_free(b, o2) == 0);
  TEST_CHECK(dart__buddy_alloc(b, (size_t)1 << 40, &o1) == 0 && o1 == 0);
  dart__buddy_destroy(b);
}

/* The offsets handed out depend only on the set of live blocks: two
 * allocators that free the same blocks in different orders return the
 * same offsets afterwards (team heaps rely on it), and the lowest free
 * block of the smallest sufficient order is taken. */
static void test_order_independent(void)
{
  enum { N = 600 };
  dart__buddy_t *a = dart__buddy_create(1 << 20);
  dart__buddy_t *b = dart__buddy_create(1 << 20);
  uint64_t oa[N], ob[N];
  srand(777);
  for (int round = 0; round < 20; round++) {
    for (int i = 0; i < N; i++) {
      size_t sz = (size_t)16 << (rand() % 6);
      TEST_CHECK(dart__buddy_alloc(a, sz, &oa[i]) == 0);
      TEST_CHECK(dart__buddy_alloc(b, sz, &ob[i]) == 0);
      TEST_CHECK_MSG(oa[i] == ob[i], "round %d alloc %d: %llu vs %llu", round,
                     i, (unsigned long long)oa[i], (unsigned long long)ob[i]);
    }
    /* Free a random half: forwards in a, backwards in b. */
    int pick[N], np = 0;
    for (int i = 0; i < N; i++)
      if (rand() % 2) pick[np++] = i;
    for (int k = 0; k < np; k++)
      TEST_CHECK(dart__buddy_free(a, oa[pick[k]]) == 0);
    for (int k = np - 1; k >= 0; k--)
      TEST_CHECK(dart__buddy_free(b, ob[pick[k]]) == 0);
    /* Refill the freed slots, in index order. */
    for (int k = 0; k < np; k++) {
      int i = pick[k];
      size_t sz = (size_t)16 << (i % 6);
      TEST_CHECK(dart__buddy_alloc(a, sz, &oa[i]) == 0);
      TEST_CHECK(dart__buddy_alloc(b, sz, &ob[i]) == 0);
      TEST_CHECK(oa[i] == ob[i]);
    }
    for (int i = 0; i < N; i++) {
      TEST_CHECK(dart__buddy_free(a, oa[i]) == 0);
      TEST_CHECK(dart__buddy_free(b, ob[N - 1 - i]) == 0);
    }
  }
  /* Lowest first: free 64 and 0 of four 32-byte blocks; 0 comes back. */
  uint64_t o[4], x;
  for (int i = 0; i < 4; i++) TEST_CHECK(dart__buddy_alloc(a, 32, &o[i]) == 0);
  TEST_CHECK(dart__buddy_free(a, o[2]) == 0 && dart__buddy_free(a, o[0]) == 0);
  TEST_CHECK(dart__buddy_alloc(a, 32, &x) == 0 && x == o[0]);
  dart__buddy_destroy(a);
  dart__buddy_destroy(b);
}

/* Deferred merging keeps team heaps consistent: two allocators see the
 * same allocations and, between two allocations, the same frees in
 * different orders; the pool is small, so allocations often fail first
 * and coalesce. Both must hand out the same offsets throughout, and the
 * repeated alloc + free of one size must not fragment the pool for good. */
static void test_deferred_merge(void)
{
  enum { POOL = 1 << 16, N = 512 };
  dart__buddy_t *a = dart__buddy_create(POOL), *b = dart__buddy_create(POOL);
  uint64_t oa[N], ob[N];
  int live = 0, idx[N];
  srand(777);
  for (int it = 0; it < 20000; it++) {
    size_t sz = (size_t)16 << (rand() % 9);
    uint64_t x, y;
    int ra = dart__buddy_alloc(a, sz, &x), rb = dart__buddy_alloc(b, sz, &y);
    TEST_CHECK(ra == rb);
    if (ra == 0) {
      TEST_CHECK_MSG(x == y, "it %d: %llu vs %llu", it, (unsigned long long)x,
                     (unsigned long long)y);
      if (live < N) {
        oa[live] = x;
        ob[live++] = y;
      }
    }
    /* free a random subset: a in index order, b in reverse */
    int nf = 0;
    for (int i = 0; i < live; i++)
      if (rand() % 4 == 0) idx[nf++] = i;
    for (int i = 0; i < nf; i++)
      TEST_CHECK(dart__buddy_free(a, oa[idx[i]]) == 0);
    for (int i = nf - 1; i >= 0; i--)
      TEST_CHECK(dart__buddy_free(b, ob[idx[i]]) == 0);
    for (int i = nf - 1; i >= 0; i--) {
      oa[idx[i]] = oa[--live];
      ob[idx[i]] = ob[live];
    }
  }
  while (live > 0) {
    live--;
    TEST_CHECK(dart__buddy_free(a, oa[live]) == 0);
    TEST_CHECK(dart__buddy_free(b, ob[live]) == 0);
  }
  uint64_t x, first = 0;
  for (int i = 0; i < 1000; i++) {
    TEST_CHECK(dart__buddy_alloc(a, 1024, &x) == 0);
    if (i == 0) first = x;
    TEST_CHECK(x == first && dart__buddy_free(a, x) == 0);
  }
  TEST_CHECK(dart__buddy_alloc(a, POOL, &x) == 0 && x == 0);
  dart__buddy_destroy(a);
  dart__buddy_destroy(b);
}

int main(void)
{
  test_deferred_merge();
  test_order_independent();
  test_fill_exact();
  test_bad_input();
  test_random();
  test_large_pool();
  printf("unit_buddy: OK\n");
  return 0;
}
