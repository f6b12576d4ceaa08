/*
 * Internal: a context's completion domain, the targets (segment, world PE)
 * of the operations it issued through DART's MPI path since its last quiet
 * (shmem_ctx_quiet flushes exactly those). Fixed size whatever the number
 * of PEs: at most SHMEMI_TRACK_MAX distinct targets are kept, and one more
 * marks the set as "more than that", for which the quiet flushes every
 * target of both segments (dart_flush_all), as it would for a set that
 * large anyway. A target just marked again costs one comparison, another
 * one of the kept ones at most SHMEMI_TRACK_MAX.
 *
 * Pure (no DART, no locks): the caller serialises adds and takes where
 * threads share a context (ctx.c); n is read without the lock by the
 * quiet's idle test, so it is accessed atomically. tests/unit checks it.
 */
#ifndef SHMEM_TRACK_H
#define SHMEM_TRACK_H

#include <stdint.h>

#ifndef SHMEMI_TRACK_MAX
#define SHMEMI_TRACK_MAX 16 /* a build may choose less (tests) */
#endif

typedef struct {
  int n;                        /* kept targets; SHMEMI_TRACK_MAX + 1: more */
  uint32_t t[SHMEMI_TRACK_MAX]; /* segment << 31 | PE                      */
} shmemi_track_t;

static inline uint32_t shmemi_track_key(int seg, int pe)
{
  return ((uint32_t)seg << 31) | ((uint32_t)pe & 0x7fffffffu);
}

static inline int shmemi_track_seg(uint32_t key)
{
  return (int)(key >> 31);
}

static inline int shmemi_track_pe(uint32_t key)
{
  return (int)(key & 0x7fffffffu);
}

/* Whether nothing is tracked (a relaxed read: the idle quiet's test). */
static inline int shmemi_track_empty(const shmemi_track_t *k)
{
  return __atomic_load_n(&k->n, __ATOMIC_RELAXED) == 0;
}

static inline void shmemi_track_add(shmemi_track_t *k, uint32_t key)
{
  int n = __atomic_load_n(&k->n, __ATOMIC_RELAXED);
  if (n > 0 && n <= SHMEMI_TRACK_MAX && k->t[n - 1] == key) return;
  if (n > SHMEMI_TRACK_MAX) return; /* everything is flushed anyway */
  for (int i = 0; i < n - 1; i++)
    if (k->t[i] == key) return;
  if (n < SHMEMI_TRACK_MAX) k->t[n] = key;
  __atomic_store_n(&k->n, n + 1, __ATOMIC_RELAXED);
}

/* Takes the tracked set, leaving it empty: the number of targets copied
 * to out (SHMEMI_TRACK_MAX entries of room), or -1 for "more than
 * SHMEMI_TRACK_MAX" (flush everything). */
static inline int shmemi_track_take(shmemi_track_t *k, uint32_t *out)
{
  int n = __atomic_load_n(&k->n, __ATOMIC_RELAXED);
  __atomic_store_n(&k->n, 0, __ATOMIC_RELAXED);
  if (n > SHMEMI_TRACK_MAX) return -1;
  for (int i = 0; i < n; i++) out[i] = k->t[i];
  return n;
}

#endif /* SHMEM_TRACK_H */
