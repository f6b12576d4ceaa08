/*
 * Internal: DART_TEAM_ALL's collectives through shared memory, when every
 * unit is on one node and maps every other unit's dart_memalloc pool
 * (coll/shm.c). runtime/barrier.c decides at dart_init, with one
 * allreduce, whether all units use them (DART_BARRIER) and hands over the
 * memory; until then, and after dart__coll_shm_set(NULL, NULL, 0), every
 * collective takes MPI.
 */
#ifndef DART__COLL_SHM_H
#define DART__COLL_SHM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dart_mpi.h"

/* Most units that share the counter: every arrival is an atomic on one
 * cache line. */
#define DART__COLL_SHM_MAX 64
/* Bytes of one slot (the most a unit sends in an allreduce, allgather or
 * bcast through shared memory). */
#define DART__COLL_SHM_SLOT ((size_t)4096)
/* Slots of the broadcasts a unit roots: how many it may publish before
 * the slowest reader has taken the first (MPI's eager messages let a root
 * run ahead in the same way). */
#define DART__COLL_SHM_BCAST_DEPTH 16
/* Bytes each unit needs for its slots (globmem/pool.c keeps them in front
 * of its pool portion): two for allreduce and allgather, the depth's for
 * the broadcasts it roots, and a page for their publication and
 * acknowledgement words. */
#define DART__COLL_SHM_ROOM                                                    \
  ((2 + DART__COLL_SHM_BCAST_DEPTH) * DART__COLL_SHM_SLOT + 4096)

/* Zeroes the bcast words in this unit's area (own: DART__COLL_SHM_ROOM
 * bytes); before any unit can look at them (dart_init, before the
 * agreement). */
DART__HIDDEN void dart__coll_shm_clear(char *own);

/* Unit 0's four words (count and generation of the barrier, then of
 * allreduce and allgather; transport/cpu_barrier.h) and the n units' areas
 * (slots[u]: DART__COLL_SHM_ROOM bytes), or NULL to switch the shared-memory
 * collectives off. */
DART__HIDDEN void dart__coll_shm_set(_Atomic uint64_t *words,
                                     char *const *slots, int n);

/* Whether DART_TEAM_ALL's barrier goes through the counter. */
DART__HIDDEN bool dart__coll_shm_on(void);

/* The counter barrier of DART_TEAM_ALL (dart__coll_shm_on must hold). */
DART__HIDDEN void dart__coll_shm_barrier(void);

#endif /* DART__COLL_SHM_H */
