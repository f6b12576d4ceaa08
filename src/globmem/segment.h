/*
 * Internal: per-team segment table (segment id -> segment), MPI-free.
 *
 * Segment ids of a team:  0      the dart_memalloc pool (team ALL only),
 *                         1..    collective allocations (count up),
 *                         -1..   registrations (count down).
 * Freed ids are handed out again lowest first. Because every member
 * performs the same collective allocations on a team and frees the same
 * ids between two of them (in any order), the ids come out identical on
 * all members without communication.
 *
 * Lookup is O(1): one directory over the whole int16 id space, indexed
 * by the id biased to 0..65535 (two loads: chunk, entry). Chunks of 256
 * entries are allocated lazily and never move, so readers on other
 * threads never see a reallocated array; the chunk of ids 0..255 (the
 * pool and the first allocations) is part of the table itself and read
 * directly (one load). Entries and
 * chunks are published with release stores and read with acquire loads.
 */
#ifndef DART__GLOBMEM_SEGMENT_H
#define DART__GLOBMEM_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dart_log.h"

struct dart__segment; /* defined in dart_segment.h */

#define DART__SEG_CHUNK_BITS 8
#define DART__SEG_CHUNK (1 << DART__SEG_CHUNK_BITS)
#define DART__SEG_NCHUNKS (65536 >> DART__SEG_CHUNK_BITS)
/* Largest allocation id and largest |registration id|; id 32767 of team
 * DART_TEAM_ALL is the dart_memalloc pool's growth segment. */
#define DART__SEG_MAX_ALLOC_ID 32766
#define DART__SEG_POOL_GROWTH 32767
#define DART__SEG_MAX_REG_ID 32768

typedef enum { DART__SEGID_ALLOC = 0, DART__SEGID_REG = 1 } dart__segid_kind_t;

/* Id bookkeeping of one kind (allocations or registrations). */
typedef struct {
  int32_t next_fresh; /* next never-used |id|                  */
  int32_t *freed;     /* min-heap of released |ids|            */
  int32_t nfreed, capfreed;
} dart__segid_space_t;

typedef struct dart__segtable {
  /* chunk of biased index b = id + 32768 is dir[b >> 8] */
  struct dart__segment **dir[DART__SEG_NCHUNKS];
  struct dart__segment *low[DART__SEG_CHUNK]; /* ids 0..255 */
  dart__segid_space_t space[2];
  size_t live; /* segments currently in the table */
  /* Retired registrations: deregistered here, not yet freed on every
   * unit. Unpublished, but their ids stay reserved until released. */
  struct dart__segment **retired;
  int32_t nretired, capretired;
  struct dart__heap *heap; /* the team's heap (globmem/heap.c), or NULL */
  /* Regions of local memory attached to the team's dynamic window
   * (registrations, register.c), each with the number of live
   * registrations inside it: MPI forbids attaching overlapping regions. */
  struct dart__attach *attach;
  int32_t nattach, capattach;
  /* One disposed segment record kept for the next creation on the team
   * (window.c): saves a calloc/free pair per allocation. */
  struct dart__segment *spare;
  /* The team's registration directory (regdir.c), NULL until needed. */
  struct dart__regdir *regdir;
} dart__segtable_t;

/* Biased index of a segment id: 0..65535, id 0 at 32768. */
static inline uint32_t dart__segid_index(int16_t id)
{
  return (uint32_t)(uint16_t)id ^ 0x8000u;
}

DART__HIDDEN void dart__segtable_init(dart__segtable_t *t);
/* Frees the table's own memory (not the segments). */
DART__HIDDEN void dart__segtable_destroy(dart__segtable_t *t);

/*
 * Reserves the next id of the given kind (1, 2, ... or -1, -2, ...; the
 * lowest released |id| first). Returns 0 if the id space is exhausted or memory
 * ran out. The id is not visible to lookups until dart__segtable_publish.
 */
DART__HIDDEN int16_t dart__segtable_reserve(dart__segtable_t *t,
                                            dart__segid_kind_t kind);

/* Makes seg visible under id (reserved before, or 0 for the pool). */
DART__HIDDEN void dart__segtable_publish(dart__segtable_t *t, int16_t id,
                                         struct dart__segment *seg);

/*
 * Removes id from lookups (if published) and returns it to the freed ids
 * of its kind (ids != 0).
 */
DART__HIDDEN void dart__segtable_release(dart__segtable_t *t, int16_t id);

/*
 * Unpublishes id (lookups stop finding it) without releasing the id, and
 * keeps seg on the retired list. Returns -1 (nothing changed) if the list
 * cannot grow.
 */
DART__HIDDEN int dart__segtable_retire(dart__segtable_t *t, int16_t id,
                                       struct dart__segment *seg);

/* Publishes every retired segment again under its id and empties the
 * retired list (team destruction frees them in id order with the rest). */
DART__HIDDEN void
dart__segtable_revive_retired(dart__segtable_t *t,
                              int16_t (*id_of)(struct dart__segment *));

/*
 * Calls fn on every published segment, allocation ids ascending, then
 * registration ids, then the pool. fn may release the id it is given.
 */
DART__HIDDEN void dart__segtable_foreach(dart__segtable_t *t,
                                         void (*fn)(struct dart__segment *,
                                                    int16_t id, void *arg),
                                         void *arg);

/* O(1) lookup, NULL if unknown. Safe against concurrent publish/release. */
static inline struct dart__segment *
dart__segtable_get(const dart__segtable_t *t, int16_t id)
{
  /* ids 0..255 (pool, first allocations): one load less */
  if (__builtin_expect((uint16_t)id < DART__SEG_CHUNK, 1))
    return __atomic_load_n(&t->low[(uint16_t)id], __ATOMIC_ACQUIRE);
  uint32_t b = dart__segid_index(id);
  struct dart__segment *const *chunk =
      __atomic_load_n(&t->dir[b >> DART__SEG_CHUNK_BITS], __ATOMIC_ACQUIRE);
  if (chunk == NULL) return NULL;
  return __atomic_load_n(&chunk[b & (DART__SEG_CHUNK - 1)], __ATOMIC_ACQUIRE);
}

#endif /* DART__GLOBMEM_SEGMENT_H */
