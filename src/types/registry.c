/*
 * Handle registry: slot + generation encoded handles (see registry.h).
 *
 * Slot states are told apart by the parity of the slot's generation: odd
 * means live, even means free. add() moves a free slot from even g to g+1,
 * remove() from odd g to g+1; a handle carries the odd generation it was
 * created with, so it matches its slot only while that incarnation lives.
 * Generations are kept modulo 2^DART__REG_GEN_BITS; parity survives the
 * wrap because the modulus is even.
 */
#include "registry.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define DART__REG_GEN_BITS                                                     \
  ((sizeof(intptr_t) * 8 - 1 - DART__REG_SLOT_BITS) < 31                       \
       ? (sizeof(intptr_t) * 8 - 1 - DART__REG_SLOT_BITS)                      \
       : 31)
#define DART__REG_GEN_MASK ((uint32_t)((1ull << DART__REG_GEN_BITS) - 1))

typedef struct {
  _Atomic uint32_t gen;
  uint32_t next_free; /* 1 + index of the next free slot, 0 = end */
} dart__reg_slot_t;

/* Payload offset inside a slot: header rounded up to max alignment. */
#define DART__REG_HDR                                                          \
  ((sizeof(dart__reg_slot_t) + alignof(max_align_t) - 1) /                     \
   alignof(max_align_t) * alignof(max_align_t))

static inline dart__reg_slot_t *reg_slot(unsigned char *chunk, size_t stride,
                                         uint32_t idx)
{
  return (dart__reg_slot_t *)(chunk +
                              (size_t)(idx & (DART__REG_CHUNK_SLOTS - 1)) *
                                  stride);
}

static inline intptr_t reg_handle(uint32_t idx, uint32_t gen)
{
  return ((intptr_t)gen << DART__REG_SLOT_BITS) | (intptr_t)idx;
}

void dart__registry_init(dart__registry_t *r, size_t payload_size)
{
  uint32_t fresh = r->fresh_gen; /* keep across cycles */
  memset(r, 0, sizeof(*r));
  pthread_mutex_init(&r->lock, NULL);
  r->payload_size = payload_size;
  r->stride = (DART__REG_HDR + payload_size + alignof(max_align_t) - 1) /
              alignof(max_align_t) * alignof(max_align_t);
  r->fresh_gen = fresh & DART__REG_GEN_MASK & ~1u;
  r->initialized = 1;
}

/* Looks up the slot of index idx; NULL if its chunk does not exist. */
static dart__reg_slot_t *reg_find(const dart__registry_t *r, uint32_t idx)
{
  unsigned char *chunk = atomic_load_explicit(
      &((dart__registry_t *)r)->chunks[idx >> DART__REG_CHUNK_BITS],
      memory_order_acquire);
  return chunk ? reg_slot(chunk, r->stride, idx) : NULL;
}

/* Takes a free slot (lock held): from the free list or a fresh one. */
static dart__reg_slot_t *reg_take(dart__registry_t *r, uint32_t *idx)
{
  if (r->free_head != 0) {
    *idx = r->free_head - 1;
    dart__reg_slot_t *s = reg_find(r, *idx);
    r->free_head = s->next_free;
    return s;
  }
  if (r->used >= DART__REG_MAX_SLOTS) return NULL;
  uint32_t ci = r->used >> DART__REG_CHUNK_BITS;
  if (atomic_load_explicit(&r->chunks[ci], memory_order_relaxed) == NULL) {
    unsigned char *chunk = calloc(DART__REG_CHUNK_SLOTS, r->stride);
    if (chunk == NULL) return NULL;
    atomic_store_explicit(&r->chunks[ci], chunk, memory_order_release);
  }
  *idx = r->used++;
  dart__reg_slot_t *s = reg_find(r, *idx);
  atomic_store_explicit(&s->gen, r->fresh_gen, memory_order_relaxed);
  return s;
}

intptr_t dart__registry_add(dart__registry_t *r, const void *payload)
{
  if (!r->initialized) return 0;
  pthread_mutex_lock(&r->lock);
  uint32_t idx = 0;
  dart__reg_slot_t *s = reg_take(r, &idx);
  if (s == NULL) {
    pthread_mutex_unlock(&r->lock);
    return 0;
  }
  memcpy((unsigned char *)s + DART__REG_HDR, payload, r->payload_size);
  uint32_t gen = (atomic_load_explicit(&s->gen, memory_order_relaxed) + 1) &
                 DART__REG_GEN_MASK;
  s->next_free = 0;
  atomic_store_explicit(&s->gen, gen, memory_order_release);
  r->live++;
  pthread_mutex_unlock(&r->lock);
  return reg_handle(idx, gen);
}

void *dart__registry_get(const dart__registry_t *r, intptr_t h)
{
  if (h < DART__REG_MIN_HANDLE) return NULL;
  uint32_t idx = (uint32_t)(h & (DART__REG_MAX_SLOTS - 1));
  uintptr_t gen = (uintptr_t)h >> DART__REG_SLOT_BITS;
  if (gen > DART__REG_GEN_MASK || (gen & 1u) == 0) return NULL;
  if (idx >> DART__REG_CHUNK_BITS >= DART__REG_MAX_CHUNKS) return NULL;
  dart__reg_slot_t *s = reg_find(r, idx);
  if (s == NULL) return NULL;
  if (atomic_load_explicit(&s->gen, memory_order_acquire) != (uint32_t)gen)
    return NULL;
  return (unsigned char *)s + DART__REG_HDR;
}

int dart__registry_remove(dart__registry_t *r, intptr_t h, void *out)
{
  if (!r->initialized) return -1;
  pthread_mutex_lock(&r->lock);
  void *p = dart__registry_get(r, h);
  if (p == NULL) {
    pthread_mutex_unlock(&r->lock);
    return -1;
  }
  uint32_t idx = (uint32_t)(h & (DART__REG_MAX_SLOTS - 1));
  dart__reg_slot_t *s = reg_find(r, idx);
  if (out != NULL) memcpy(out, p, r->payload_size);
  uint32_t gen = (atomic_load_explicit(&s->gen, memory_order_relaxed) + 1) &
                 DART__REG_GEN_MASK;
  atomic_store_explicit(&s->gen, gen, memory_order_release);
  s->next_free = r->free_head;
  r->free_head = idx + 1;
  r->live--;
  pthread_mutex_unlock(&r->lock);
  return 0;
}

size_t dart__registry_live(dart__registry_t *r)
{
  if (!r->initialized) return 0;
  pthread_mutex_lock(&r->lock);
  size_t n = r->live;
  pthread_mutex_unlock(&r->lock);
  return n;
}

void dart__registry_fini(dart__registry_t *r, dart__registry_fn fn, void *ctx)
{
  if (!r->initialized) return;
  pthread_mutex_lock(&r->lock);
  uint32_t maxgen = r->fresh_gen;
  for (uint32_t i = 0; i < r->used; i++) {
    dart__reg_slot_t *s = reg_find(r, i);
    uint32_t g = atomic_load_explicit(&s->gen, memory_order_relaxed);
    if ((g & 1u) && fn != NULL) fn((unsigned char *)s + DART__REG_HDR, ctx);
    if (g > maxgen) maxgen = g;
  }
  for (uint32_t c = 0; c < DART__REG_MAX_CHUNKS; c++) {
    free(atomic_load_explicit(&r->chunks[c], memory_order_relaxed));
    atomic_store_explicit(&r->chunks[c], NULL, memory_order_relaxed);
  }
  r->used = 0;
  r->free_head = 0;
  r->live = 0;
  r->initialized = 0;
  /* Next cycle starts above every generation used so far: handles of this
   * cycle can never match a slot of the next one (until the counter wraps
   * after 2^30 cycles of the same slot). */
  r->fresh_gen = (maxgen + 2) & DART__REG_GEN_MASK & ~1u;
  pthread_mutex_unlock(&r->lock);
  pthread_mutex_destroy(&r->lock);
}
