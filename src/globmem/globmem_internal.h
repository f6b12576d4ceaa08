/* Internal to src/globmem: segment life cycle shared by the source files. */
#ifndef DART__GLOBMEM_INTERNAL_H
#define DART__GLOBMEM_INTERNAL_H

#include "globmem/dart_segment.h"

/* Window info hints, created in dart__globmem_init. */
DART__HIDDEN dart_ret_t dart__window_hints_init(void);
DART__HIDDEN void dart__window_hints_fini(void);

/*
 * Collectively creates a segment of the given kind on team: size bytes of
 * the caller's portion (allocated, or the user memory at addr for
 * registrations). status is the outcome of the caller's local argument
 * checks; every member passes its own, and if any member's status is not
 * DART_OK, all return that error without creating anything (so a bad
 * argument on one unit never leaves the others waiting). On success the
 * segment is published in team->segs under a fresh id.
 */
DART__HIDDEN dart_ret_t dart__segment_create(const char *func,
                                             dart__team_t *team,
                                             dart__seg_kind_t kind, size_t size,
                                             void *addr, dart_ret_t status,
                                             dart__segment_t **out);

/*
 * Frees a segment: unpublishes it and releases its id, then its memory.
 * A block of a team heap goes back to its chunk and a registration on the
 * team's dynamic window is detached, both locally (this unit's RMA on it
 * completed first); only a segment with windows of its own frees them,
 * collectively. func: the public call, for the watchdog and the log (as
 * in every internal function below that takes one).
 */
DART__HIDDEN dart_ret_t dart__segment_destroy(const char *func,
                                              dart__segment_t *seg);

/*
 * Deregistration, a local operation: unpublishes seg at once; its window is
 * freed collectively later, at the first segment creation on the team at
 * which every member has retired the same registrations (any per-unit
 * order of deregistration works), or when the team is destroyed.
 */
DART__HIDDEN dart_ret_t dart__segment_retire(const char *func,
                                             dart__segment_t *seg);

/*
 * Release of a collective segment by dart_team_memfree and
 * dart_allocator_destroy (so by dart_team_lock_destroy too): a block of a
 * team heap is retired like a registration and goes back to its chunk
 * when every member has released it, at the team's next segment creation;
 * a segment with windows of its own is destroyed at once (collectively).
 * A unit whose release failed (a bad argument) thus leaves the heaps of
 * the team in step: nobody reuses the block until that unit releases it
 * too (docs/onebad.md).
 */
DART__HIDDEN dart_ret_t dart__segment_release(const char *func,
                                              dart__segment_t *seg);

/* A bare segment record of team (no memory, no windows, not published);
 * NULL if out of memory. */
DART__HIDDEN dart__segment_t *
dart__segment_record(dart__team_t *team, dart__seg_kind_t kind, size_t size);
/* Frees the segment record a team keeps for reuse (team destruction). */
DART__HIDDEN void dart__segment_spare_free(dart__segtable_t *tab);
/* Gives seg an array of mapped bases of its own (node_size entries, all
 * NULL), freed with seg; DART_OK if it has one. */
DART__HIDDEN dart_ret_t dart__segment_own_bases(dart__segment_t *seg);
/* Creates the windows of an allocated segment of size bytes per unit with
 * the window scheme of window.c (collective); func, the public call, names
 * the waits for the watchdog and the failures in the log. */
DART__HIDDEN dart_ret_t dart__window_alloc(const char *func,
                                           dart__segment_t *seg, size_t size);
/* Creates seg->win, an MPI_Win_create window of size bytes at base on
 * seg's team (collective); dart__window_open_epoch then gives it DART's
 * error handler and opens its lock_all epoch (local). */
DART__HIDDEN dart_ret_t dart__window_create(const char *func,
                                            dart__segment_t *seg, void *base,
                                            MPI_Aint size);
DART__HIDDEN dart_ret_t dart__window_open_epoch(dart__segment_t *seg);
/* Component carrying win (Open MPI names windows after it; sidewin.c). */
DART__HIDDEN dart__osc_t dart__window_osc(MPI_Win win);
/* DART's memory-model rule for every window (unified, or no attribute):
 * DART_ERR_OTHER, logged, otherwise. */
DART__HIDDEN dart_ret_t dart__window_require_unified(MPI_Win win);
/* Counts windows created (+1) and freed (-1) (budget.c). */
DART__HIDDEN void dart__window_count_add(int delta);
/* Creates a dynamic window on seg's team in its lock_all epoch. */
DART__HIDDEN dart_ret_t dart__window_dynamic(const char *func,
                                             dart__segment_t *seg);
/* Windows the window scheme creates per allocation on team (1 or 2). */
DART__HIDDEN int dart__window_count(const dart__team_t *team);
/* Sets seg->cpu_atomics from its kind and team. */
DART__HIDDEN void dart__segment_set_atomics(dart__segment_t *seg);
/* Frees seg's windows (collective if it has any) and its record. */
DART__HIDDEN dart_ret_t dart__segment_dispose(const char *func,
                                              dart__segment_t *seg);

/*
 * Team heap (heap.c). Allocations with a largest per-unit size of at most
 * DART__HEAP_MAX_BLOCK are carved from the team's heap chunks; chunks
 * grow from DART__HEAP_CHUNK_MIN to DART__HEAP_CHUNK_MAX bytes per unit
 * (docs/design.md §3 has the measurements behind these numbers).
 */
#define DART__HEAP_MIN_BLOCK ((size_t)64)
#define DART__HEAP_MAX_BLOCK ((size_t)1 << 20)
#define DART__HEAP_CHUNK_MIN ((size_t)4 << 20)
#define DART__HEAP_CHUNK_MAX ((size_t)64 << 20)
/* Does an allocation of max_size bytes (largest unit) go to the heap? */
DART__HIDDEN bool dart__heap_takes(size_t max_size);
/* Carves seg (sizes agreed, collective: every unit calls it with the same
 * max_size) out of its team's heap, adding a chunk if none fits. */
DART__HIDDEN dart_ret_t dart__heap_alloc(const char *func, dart__segment_t *seg,
                                         size_t max_size);
/* Returns seg's block to the heap (local). */
DART__HIDDEN dart_ret_t dart__heap_free(const char *func, dart__segment_t *seg);
/* The team's dynamic window (created collectively at the first call, in
 * its lock_all epoch, if mpi_left, the team's minimum of MPI objects
 * left, allows) and its one-sided component. */
DART__HIDDEN dart_ret_t dart__heap_dynamic(const char *func, dart__team_t *team,
                                           int mpi_left, MPI_Win *win,
                                           dart__osc_t *osc);
/* Does a registration on team choose between the dynamic window, which
 * holds few attachments with this MPI, and a window of its own (decided
 * in the agreement from every unit's attachments left)? */
DART__HIDDEN bool dart__register_limited(const dart__team_t *team);
/*
 * Registration steps (register.c). dart__register_disp: before the
 * agreement, this unit's window displacement of its portion (addr, size)
 * and, where the dynamic window holds few attachments, its part of the
 * choice of window; refuses memory that overlaps a live registration's
 * attachment without lying inside it. dart__register_window: after it,
 * attaches the memory to the team's dynamic window or creates the
 * registration's own window (collective). dart__register_detach: drops
 * the attachment of a registration on the dynamic window (local, after
 * completing this unit's RMA on it).
 */
DART__HIDDEN dart_ret_t dart__register_disp(const char *func,
                                            dart__segment_t *seg, void *addr,
                                            size_t size);
DART__HIDDEN dart_ret_t dart__register_window(const char *func,
                                              dart__segment_t *seg, void *addr,
                                              size_t size);
DART__HIDDEN dart_ret_t dart__register_detach(const char *func,
                                              dart__segment_t *seg);
/* Attachments the dart_memalloc growth may take on DART_TEAM_ALL's
 * dynamic window (pool.c). */
DART__HIDDEN int dart__pool_grow_pieces_max(void);
/* Frees every chunk of team's heap (collective; segments freed before). */
DART__HIDDEN dart_ret_t dart__heap_fini(const char *func, dart__team_t *team);

/*
 * Agreement step of a creation (agree.c): combines sizes, ids, local
 * statuses and retired registrations of all members of seg's team (its
 * record filled in: size, segid, disp_pad). Sets seg->sym_size and, if
 * they differ between units, seg->sizes (odd_unit1/odd_size if only the
 * last unit's size differs); differing displacements (registrations) give
 * seg->disp_serial (regdir.c), nothing per unit. Returns the
 * worst status of all members, DART_ERR_OTHER if ids differ (collective
 * calls out of order). *collect is for dart__segment_collect.
 */
DART__HIDDEN dart_ret_t dart__segment_agree(const char *func,
                                            dart__segment_t *seg,
                                            dart_ret_t status,
                                            int32_t *collect);
/*
 * Agreement on one step of a creation that can fail on some units only
 * (collective over seg's team, same wait policy as dart__segment_agree):
 * returns the worst status of all members and, if min_count is not NULL,
 * the smallest count any member passed (e.g. windows it created).
 */
DART__HIDDEN dart_ret_t dart__segment_agree_step(const char *func,
                                                 dart__segment_t *seg,
                                                 dart_ret_t status, int count,
                                                 int *min_count);
/* Frees retired registrations as the agreement decided (collective). */
DART__HIDDEN dart_ret_t dart__segment_collect(const char *func,
                                              dart__team_t *team,
                                              int32_t collect, int32_t *freed);

/*
 * Registration directory of a team (regdir.c): where each unit publishes
 * the window displacement of its portion of a registration whose
 * displacements differ between units. One small window per 256
 * registration ids, created collectively at the first registration of
 * that range that needs it. dart__regdir_publish (collective over seg's
 * team, every member with the same seg->segid) stores the caller's
 * seg->disp_pad in its slot; peers read it with dart__regdir_fetch.
 * dart__regdir_prepare (local, before the agreement of every registration
 * on a team of several units) makes the team's table of chunks.
 */
DART__HIDDEN dart_ret_t dart__regdir_prepare(const char *func,
                                             dart__team_t *team);
/* node_base of every registration record of team (prepared): node_size
 * entries, all NULL. */
DART__HIDDEN char *const *dart__regdir_no_bases(const dart__team_t *team);
DART__HIDDEN dart_ret_t dart__regdir_publish(const char *func,
                                             dart__segment_t *seg);
/* A fresh nonzero serial for seg->disp_serial (cache key). */
DART__HIDDEN uint32_t dart__regdir_serial(void);
/* Frees team's directory windows (collective, at team destruction). */
DART__HIDDEN dart_ret_t dart__regdir_fini(const char *func, dart__team_t *team);

/* seg's id (callback of dart__segtable_revive_retired). */
DART__HIDDEN int16_t dart__segment_id(dart__segment_t *seg);

/* Byte count of nelem elements of dtype (any valid type), or logs and
 * fails: bad type -> DART_ERR_INVAL, overflow -> DART_ERR_INVAL. */
DART__HIDDEN dart_ret_t dart__globmem_bytes(const char *func, size_t nelem,
                                            dart_datatype_t dtype,
                                            bool basic_only, size_t *bytes);

#endif /* DART__GLOBMEM_INTERNAL_H */
