/*
 * Collectives of the OpenSHMEM layer.
 *
 * Team forms (coll_team.c, coll_reduce.c) run DART's collectives on the
 * team's DART team; active-set forms (coll_active.c) involve only the PEs of
 * the set and work one-sided on the symmetric pSync/source arrays: a
 * counter barrier on pSync[0..1], data moved by dart_get from the other PEs'
 * symmetric source. Entry points of the generated typed wrappers.
 */
#ifndef SHMEM_COLL_H_INCLUDED
#define SHMEM_COLL_H_INCLUDED

#include <stddef.h>

#include "shmem_internal.h"
#include "shmem_team.h"

/* The entry points (team forms: 0 on success, nonzero and one log line on
 * error, nbytes the size of one PE's block; active-set forms: OpenSHMEM 1.4
 * semantics, fatal on bad input) are declared in shmem_internal.h, where
 * the generated typed wrappers and the core see them. */

/* Internals shared by the collective files. */
typedef struct {
  int start;  /* world PE of set member 0 */
  int stride; /* 1 << logPE_stride */
  int size;
  int me; /* the caller's index in the set, -1 if not a member */
} shmemi_aset_t;

/* Checks the triplet and that the caller is a member; fatal otherwise. */
SHMEMI_HIDDEN shmemi_aset_t shmemi_aset_make(const char *func, int PE_start,
                                             int logPE_stride, int PE_size,
                                             const long *pSync);
/* Barrier of the set on pSync[0] (arrivals at member 0) and pSync[1]
 * (release); leaves both at SHMEM_SYNC_VALUE once every member returned. */
SHMEMI_HIDDEN void shmemi_aset_sync(const char *func, const shmemi_aset_t *as,
                                    long *pSync);
/* Blocking get of nbytes at symmetric address sym on world PE pe. */
SHMEMI_HIDDEN void shmemi_coll_get(const char *func, void *dest,
                                   const void *sym, size_t nbytes, int pe);
/* Element-wise dest[i] = dest[i] op src[i]; 0 ok, -1 unsupported pair. */
SHMEMI_HIDDEN int shmemi_reduce_apply(shmemi_dtype_t dt, shmemi_op_t op,
                                      void *dest, const void *src, size_t n);
static inline size_t shmemi_dtype_size(shmemi_dtype_t dt)
{
  return shmemi_dtinfo[dt].size;
}
/* Releases the DART types and operations of the team reductions. */
SHMEMI_HIDDEN void shmemi_reduce_fini(void);
static inline const char *shmemi_dtype_name(shmemi_dtype_t dt)
{
  return (unsigned)dt < SHMEMI_DT_COUNT ? shmemi_dtinfo[dt].name : "?";
}

/* coll_direct.c: the world forms by load/store on the peers' symmetric
 * memory, on one node and above DART's slot size. Every PE of the world
 * calls them with the same sizes; they return 1 if they did the work, 0 if
 * the caller goes on with its general path (every PE gets the same answer).
 * root: world PE; root_dest: the root's dest gets the data too (1.5). */
SHMEMI_HIDDEN int shmemi_direct_eligible(size_t nbytes);
/* A team whose PEs are the world's in world order (team PE == world PE),
 * on DART_TEAM_ALL: the direct forms apply to it. */
static inline int shmemi_team_is_world(shmem_team_t team)
{
  return team->dteam == DART_TEAM_ALL && team->ordered &&
         team->size == shmemi_g.n_pes;
}
SHMEMI_HIDDEN int shmemi_direct_mapped(const void *buf, size_t nbytes);
SHMEMI_HIDDEN int shmemi_direct_bcast(const char *fn, void *dest,
                                      const void *source, size_t nbytes,
                                      int root, int root_dest);
SHMEMI_HIDDEN int shmemi_direct_fcollect(const char *fn, void *dest,
                                         const void *source, size_t nbytes);
/* collect over the world: gathers every PE's size into cnt and displ
 * (bytes, by world PE; n_pes entries each) together with what the direct
 * path needs, which the gather also synchronizes. Returns 1 if it did the
 * collect by load/store, 0 if the caller goes on with cnt and displ, -1
 * if the gather failed (fatal if memory runs out). */
SHMEMI_HIDDEN int shmemi_direct_collect(const char *fn, void *dest,
                                        const void *source, size_t nbytes,
                                        size_t *cnt, size_t *displ);
SHMEMI_HIDDEN int shmemi_direct_reduce(const char *fn, void *dest,
                                       const void *source, size_t nreduce,
                                       shmemi_dtype_t dt, shmemi_op_t op);

/* Polls with backoff: spins briefly, then yields, then sleeps (capped), so
 * waiting PEs leave the cores to the PEs they wait for. */
SHMEMI_HIDDEN void shmemi_backoff(unsigned *round);

#endif /* SHMEM_COLL_H_INCLUDED */
