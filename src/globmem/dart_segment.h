/*
 * Internal: global-memory segments and the gptr -> target resolver used by
 * the one-sided communication code.
 *
 * A segment is one allocation (or registration) of a team. Every member
 * holds a record with its own portion (base, size), the portion size of
 * every unit (one number if all are equal), the RMA window over the team
 * communicator and the base address of every portion the caller can
 * load/store (its own, and those of node peers for memory that came from
 * an MPI shared-memory window).
 *
 * Nothing in a record grows with the team's size where sizes are equal
 * (issue 23): mapped bases are kept per node rank (node_base, node-size
 * entries, shared by every block carved from one heap chunk), team unit ->
 * node rank is the team's node_idx, and window displacements of the shared
 * windows' aligned portions are computed (disp_neg0/disp_step) instead of
 * stored per unit. Registrations whose displacements differ between units
 * (user memory attached to a dynamic window) keep none either: a peer's
 * is fetched from that peer on first use and kept in a bounded
 * process-wide cache (globmem/regdir.c). The dart_memalloc pool's growth
 * segment does the same with each unit's address and committed size
 * (globmem/pool.c).
 */
#ifndef DART__SEGMENT_H
#define DART__SEGMENT_H

#include <dash/dart/if/dart_globmem.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dart_mpi.h"
#include "dart_policy.h"
#include "team/dart_team.h"
#include "globmem/segment.h"
#include "transport/transport.h"

typedef enum {
  DART__SEG_POOL = 0,  /* segment 0 of team ALL: dart_memalloc pool       */
  DART__SEG_ALLOC,     /* dart_team_memalloc_aligned                     */
  DART__SEG_ALLOCATOR, /* pool of a dart_allocator_t                      */
  DART__SEG_REGISTER   /* dart_team_memregister[_aligned]: user memory    */
} dart__seg_kind_t;

typedef struct dart__segment {
  /* Hot fields first: everything the resolver reads is in the first
   * cache line, without touching the team. */
  int nunits;         /* team size                                      */
  int myid;           /* caller's team unit id                          */
  size_t sym_size;    /* portion size of every unit if all are equal    */
  size_t *sizes;      /* [nunits] portion sizes, NULL if symmetric or
                         equal but for one unit's                       */
  unsigned odd_unit1; /* 1 + the unit whose portion is odd_size (the
                         last one, as in block distributions), 0: none */
  size_t odd_size;
  const int32_t *node_idx; /* team->node_idx: node rank of a team unit on
                              the caller's node, else -1                  */
  char *const *node_base;  /* [team->node_size] by node rank: portion
                              start of each node peer the caller can
                              load/store, else NULL; the record's own
                              array (own_bases) or its heap chunk's       */
  uint64_t base_off;       /* added to node_base entries (block offset in
                              the heap chunk, DART's hidden prefix)      */
  MPI_Aint disp_pad;       /* displacement of every unit's portion start
                              (without disp_pads), plus the computed pad: */
  MPI_Aint disp_neg0;      /* unit u's pad in a shared window laid out   */
  MPI_Aint disp_step;      /* contiguously: (neg0 - u * step) & mask     */
  MPI_Aint disp_mask;      /* 0 where there is no such pad               */
  MPI_Aint *disp_pads;     /* [nunits] displacement of each portion if they
                              follow no rule (odd shared-window layouts) */
  uint32_t disp_serial;    /* nonzero: displacements differ and are not
                              stored; each unit publishes its own in the
                              team's registration directory, fetched and
                              cached per (disp_serial, unit) on first use
                              (registrations on a dynamic window, the
                              dart_memalloc growth segment)              */
  uint64_t lazy_end;       /* disp_serial != 0: bytes of the caller's own
                              portion it may reach (the growth segment's
                              committed size; UINT64_MAX otherwise)      */
  MPI_Win win;             /* RMA window on team->comm (rank = team unit),
                              in a lock_all epoch for its whole life         */
  bool cpu_atomics;        /* atomics by CPU instructions on the mapping     */
  int mpi_used;            /* sticky: an MPI RMA op was issued on win        */

  int16_t segid;
  dart__seg_kind_t kind;
  uint16_t flags; /* dart_gptr_setflags word (local copy)           */
  dart__team_t *team;
  MPI_Win shm_win;   /* separate shared-memory window on the node comm,
                        MPI_WIN_NULL if none or if win is itself shared */
  char *base;        /* caller's portion                               */
  size_t size;       /* caller's portion size in bytes                 */
  void *priv_mem;    /* private mapping behind base (every unit alone
                        on its node), NULL if none                   */
  size_t priv_len;   /* its length in bytes                          */
  bool locked;       /* win is in its lock_all epoch                   */
  void *owner;       /* dart_allocator_t owning an ALLOCATOR segment   */
  dart__osc_t osc;   /* component carrying win (atomics choose by it)  */
  char *own_base;    /* caller's portion if peers reach it through MPI
                        (then its node_base entry is NULL), else NULL  */
  int chunk;         /* 1 + index of the team heap chunk it was carved
                        from (win is the chunk's), 0 if none          */
  uint64_t heap_off; /* its block's offset in that chunk              */
  bool borrowed;     /* win is the team's dynamic window, not seg's   */
  int mpi_left;      /* at creation: MPI objects left (team minimum)   */
  bool attached;     /* base is attached to it (registrations)        */
  bool reg_dynamic;  /* registration on the team's dynamic window      */
  int attach_left;   /* creating a registration where dynamic windows
                        hold few attachments: how many more the team's
                        takes from this unit (INT32_MAX: none needed) */
  MPI_Aint dyn_disp; /* with attach_left: the displacement there      */
  char **own_bases;  /* node_base when the record owns it, else NULL */
} dart__segment_t;

/* Where a (gptr, nbytes) access goes. */
typedef struct {
  dart__segment_t *seg;
  int unit;      /* target team unit (= rank in seg->win)              */
  MPI_Aint disp; /* target displacement in seg->win (disp unit 1)      */
  char *local;   /* load/store address of the target bytes if the
                    target's memory is mapped by the caller, else NULL */
} dart__target_t;

/* Logs why resolving gptr failed (out of line: the cold path). */
DART__HIDDEN __attribute__((cold, noinline)) dart_ret_t
dart__segment_resolve_error(const char *func, dart_gptr_t gptr, size_t nbytes,
                            int reason);

enum {
  DART__RESOLVE_BAD_TEAM = 1,
  DART__RESOLVE_BAD_SEGMENT,
  DART__RESOLVE_BAD_UNIT,
  DART__RESOLVE_BAD_RANGE
};

/* Segment table of every team the caller belongs to, by team id (set by
 * dart__globmem_team_init/fini): one load instead of going through the
 * team record on the hot path. */
extern dart__segtable_t *dart__segtables[DART__TEAM_ID_MAX + 1] DART__HIDDEN;

static inline dart__segtable_t *dart__segtable_of(dart_team_t teamid)
{
  if (__builtin_expect(teamid < 0, 0)) return NULL;
  return __atomic_load_n(&dart__segtables[teamid], __ATOMIC_ACQUIRE);
}

/* Portion size of team unit u (u must be in range). */
static inline size_t dart__segment_portion(const dart__segment_t *seg, int u)
{
  /* Relaxed load: the growth segment's sizes grow while it is in use. */
  if (__builtin_expect(seg->sizes != NULL, 0))
    return __atomic_load_n(&seg->sizes[u], __ATOMIC_RELAXED);
  return (unsigned)u + 1 == seg->odd_unit1 ? seg->odd_size : seg->sym_size;
}

/* Segment of (teamid, segid) or NULL; no logging. */
static inline dart__segment_t *dart__segment_get(dart_team_t teamid,
                                                 int16_t segid)
{
  dart__segtable_t *tab = dart__segtable_of(teamid);
  return tab == NULL ? NULL : dart__segtable_get(tab, segid);
}

/*
 * Segment named by gptr's (teamid, segid) for calls that do not address a
 * byte range (flush, pointer helpers). Logs one line naming func and
 * returns NULL for an unknown team or segment.
 */
static inline dart__segment_t *dart__segment_lookup(const char *func,
                                                    dart_gptr_t gptr)
{
  dart__segtable_t *tab = dart__segtable_of(gptr.teamid);
  if (__builtin_expect(tab == NULL, 0)) {
    dart__segment_resolve_error(func, gptr, 0, DART__RESOLVE_BAD_TEAM);
    return NULL;
  }
  dart__segment_t *seg = dart__segtable_get(tab, gptr.segid);
  if (__builtin_expect(seg == NULL, 0))
    dart__segment_resolve_error(func, gptr, 0, DART__RESOLVE_BAD_SEGMENT);
  return seg;
}

/* Start of team unit u's portion as mapped by the caller, or NULL if the
 * caller does not load/store it (u must be in range). O(1): the unit's
 * node rank, then the base of that node peer. */
static inline char *dart__segment_mapped(const dart__segment_t *seg, int u)
{
  int r = seg->node_idx[u];
  if (r < 0) return NULL;
  char *b = seg->node_base[r];
  return b != NULL ? b + seg->base_off : NULL;
}

/*
 * Process-wide cache of peers' registration displacements (regdir.c):
 * direct-mapped, DART__DISPCACHE_SLOTS entries keyed by (segment serial,
 * unit), so its size is fixed whatever the number of units and
 * registrations. Each entry is a sequence lock: writers (cache misses,
 * serialised) make seq odd while they write; a reader that sees seq
 * change or odd treats the entry as a miss.
 */
#define DART__DISPCACHE_BITS 12
#define DART__DISPCACHE_SLOTS (1u << DART__DISPCACHE_BITS)
typedef struct {
  uint32_t seq;
  uint32_t serial; /* 0: empty */
  int32_t unit;
  MPI_Aint disp;
  uint64_t bound;
} dart__dispcache_entry_t;
extern dart__dispcache_entry_t
    dart__dispcache[DART__DISPCACHE_SLOTS] DART__HIDDEN;

static inline uint32_t dart__dispcache_slot(uint32_t serial, int u)
{
  uint64_t k = ((uint64_t)serial << 32) | (uint32_t)u;
  return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> (64 - DART__DISPCACHE_BITS));
}

/* Cached displacement of unit u's portion of the segment with this serial:
 * true, *disp and *bound if present. */
static inline bool dart__dispcache_find(uint32_t serial, int u, MPI_Aint *disp,
                                        uint64_t *bound)
{
  const dart__dispcache_entry_t *e =
      &dart__dispcache[dart__dispcache_slot(serial, u)];
  uint32_t s1 = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
  uint32_t ser = __atomic_load_n(&e->serial, __ATOMIC_RELAXED);
  int32_t unit = __atomic_load_n(&e->unit, __ATOMIC_RELAXED);
  MPI_Aint d = __atomic_load_n(&e->disp, __ATOMIC_RELAXED);
  uint64_t b = __atomic_load_n(&e->bound, __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  uint32_t s2 = __atomic_load_n(&e->seq, __ATOMIC_RELAXED);
  if (s1 != s2 || (s1 & 1u) != 0 || ser != serial || unit != u) return false;
  *disp = d;
  *bound = b;
  return true;
}

/* Stores (serial, u) -> (disp, bound) in the cache (regdir.c). */
DART__HIDDEN void dart__dispcache_put(uint32_t serial, int u, MPI_Aint disp,
                                      uint64_t bound);

/* Displacement of unit u's portion of seg (disp_serial != 0), fetched from
 * u and cached (out of line; the growth segment's from u's pool page,
 * with its committed size). On failure logs under func and returns
 * DART_ERR_OTHER. */
DART__HIDDEN __attribute__((noinline)) dart_ret_t
dart__regdir_fetch(const char *func, const dart__segment_t *seg, int u,
                   MPI_Aint *disp);

/* Displacement of a peer's portion of a segment with disp_serial != 0. */
static inline MPI_Aint dart__segment_lazy_disp(const dart__segment_t *seg,
                                               int u)
{
  MPI_Aint d = seg->disp_pad;
  uint64_t bound;
  if (u == seg->myid) return d;
  /* evicted by another thread since the resolver saw it: fetch again */
  if (__builtin_expect(!dart__dispcache_find(seg->disp_serial, u, &d, &bound),
                       0))
    dart__regdir_fetch("global memory access", seg, u, &d);
  return d;
}

/* Cold part of dart__segment_fast for a segment with disp_serial != 0 that
 * the caller does not map: whether the MPI path may use what is cached
 * for unit u up to byte end (the own committed end, or a peer's cached
 * displacement and bound); false sends the caller to the retry path. Out
 * of line so that the inline fast paths keep to few registers. */
DART__HIDDEN __attribute__((cold, noinline)) bool
dart__segment_lazy_known(const dart__segment_t *seg, int u, uint64_t end);

/*
 * Validates gptr for an access of nbytes bytes starting at its offset
 * (team, segment, target unit, offset + nbytes <= portion size) without
 * logging: if valid, sets *segp to its segment and returns the load/store
 * address of the target bytes, or NULL if the caller does not map them
 * (MPI path). If anything is invalid, sets *segp to NULL and returns NULL.
 * Unchecked: for a segment with disp_serial != 0 that the caller does not
 * map, *segp is set although the displacement may not be cached yet; the
 * caller must ask dart__segment_lazy_known before the MPI path (so the
 * inline fast paths make no call: few registers, no saved ones).
 */
static inline __attribute__((always_inline)) char *
dart__segment_fast_unchecked(dart_gptr_t gptr, size_t nbytes,
                             dart__segment_t **segp)
{
  *segp = NULL;
  dart__segtable_t *tab = dart__segtable_of(gptr.teamid);
  if (__builtin_expect(tab == NULL, 0)) return NULL;
  dart__segment_t *seg = dart__segtable_get(tab, gptr.segid);
  if (__builtin_expect(seg == NULL, 0)) return NULL;
  int u = gptr.unitid;
  if (__builtin_expect((unsigned)u >= (unsigned)seg->nunits, 0)) return NULL;
  size_t psize = dart__segment_portion(seg, u);
  uint64_t off = gptr.addr_or_offs.offset;
  if (__builtin_expect(off > psize || nbytes > psize - off, 0)) return NULL;
  *segp = seg;
  char *b = dart__segment_mapped(seg, u);
  return __builtin_expect(b != NULL, 1) ? b + off : NULL;
}

/* dart__segment_fast_unchecked, then: a peer's displacement not cached
 * yet, or an access past what the caller knows is committed, sets *segp
 * to NULL (the cold path fetches it again). */
static inline __attribute__((always_inline)) char *
dart__segment_fast(dart_gptr_t gptr, size_t nbytes, dart__segment_t **segp)
{
  char *p = dart__segment_fast_unchecked(gptr, nbytes, segp);
  dart__segment_t *seg = *segp;
  if (p == NULL && seg != NULL && __builtin_expect(seg->disp_serial != 0, 0) &&
      !dart__segment_lazy_known(seg, gptr.unitid,
                                gptr.addr_or_offs.offset + nbytes))
    *segp = NULL;
  return p;
}

/* Window displacement of byte off of team unit u's portion. */
static inline MPI_Aint dart__segment_disp(const dart__segment_t *seg, int u,
                                          uint64_t off)
{
  if (__builtin_expect(seg->disp_pads != NULL, 0))
    return (MPI_Aint)off + seg->disp_pads[u];
  if (__builtin_expect(seg->disp_serial != 0, 0))
    return (MPI_Aint)off + dart__segment_lazy_disp(seg, u);
  return (MPI_Aint)off + seg->disp_pad +
         ((seg->disp_neg0 - (MPI_Aint)u * seg->disp_step) & seg->disp_mask);
}

/* Logs why gptr does not resolve for nbytes (whichever check of
 * dart__segment_fast failed) and returns DART_ERR_INVAL. */
DART__HIDDEN __attribute__((cold, noinline)) dart_ret_t
dart__segment_resolve_failed(const char *func, dart_gptr_t gptr, size_t nbytes);

/* The cold path of dart__segment_resolve: a peer's displacement not
 * cached yet, or an access past what the caller knows of a unit's
 * committed growth of the dart_memalloc pool, fetches it again from that
 * unit and retries (DART_ERR_OTHER if the fetch fails); anything else
 * logs one line naming func and returns DART_ERR_INVAL. */
DART__HIDDEN __attribute__((cold, noinline)) dart_ret_t
dart__segment_resolve_retry(const char *func, dart_gptr_t gptr, size_t nbytes,
                            dart__target_t *t);

/* Four words (arrival count and generation of DART_TEAM_ALL's barrier,
 * then of its allreduce; coll/shm.c) in unit 0's page of the dart_memalloc
 * pool, zeroed at dart_init, if every unit of DART_TEAM_ALL is on one node and
 * this unit maps that page; else NULL (pool.c). */
DART__HIDDEN uint64_t *dart__pool_sync_words(void);
/* Sets slots[u] to the start of unit u's room for the shared-memory collectives
 * in its pool pages (*bytes per unit) for u < n == the size of DART_TEAM_ALL,
 * if this unit maps every unit's pool; else returns false (pool.c). */
DART__HIDDEN bool dart__pool_coll_slots(char **slots, int n, size_t *bytes);
/* Reads peer u's growth address and committed size from its pool page
 * (pool.c) into the cache; *disp is the address. DART_ERR_OTHER (logged
 * under func) if that fails. */
DART__HIDDEN dart_ret_t dart__pool_grow_fetch(const char *func, int u,
                                              MPI_Aint *disp);

/* Bytes of unit u's portion of seg the caller may reach as far as it
 * knows now (the portion, or less in the growth segment): messages. */
DART__HIDDEN uint64_t dart__segment_reach(const dart__segment_t *seg, int u);

/*
 * dart__segment_fast with logging, filling *t: on failure logs one line
 * naming func and returns DART_ERR_INVAL.
 */
static inline __attribute__((always_inline)) dart_ret_t
dart__segment_resolve(const char *func, dart_gptr_t gptr, size_t nbytes,
                      dart__target_t *t)
{
  dart__segment_t *seg;
  char *local = dart__segment_fast(gptr, nbytes, &seg);
  if (__builtin_expect(seg == NULL, 0))
    return dart__segment_resolve_retry(func, gptr, nbytes, t);
  t->seg = seg;
  t->unit = gptr.unitid;
  t->disp = dart__segment_disp(seg, t->unit, gptr.addr_or_offs.offset);
  t->local = local;
  return DART_OK;
}

/* Marks that MPI RMA operations were issued on seg->win (sticky) and
 * notes it for the calling thread's next lock release. */
static inline void dart__segment_mark_mpi(dart__segment_t *seg)
{
  if (!__atomic_load_n(&seg->mpi_used, __ATOMIC_RELAXED))
    __atomic_store_n(&seg->mpi_used, 1, __ATOMIC_RELAXED);
  dart__rma_note((int16_t)seg->team->id, seg->segid);
}

/* dart_team_memalloc_aligned on behalf of func, with the caller's own
 * argument checks in status: a failure on any unit fails the call on all
 * (the allocation agreement), nobody is left waiting. */
DART__HIDDEN dart_ret_t dart__team_memalloc(const char *func,
                                            dart__team_t *team, size_t nelem,
                                            dart_datatype_t dtype,
                                            dart_ret_t status,
                                            dart_gptr_t *gptr);

/* The transport's record of seg's window (no target: unit -1). */
static inline void dart__segment_rma_win(const dart__segment_t *seg,
                                         dart__rma_target_t *w)
{
  w->win = seg->win;
  w->unit = -1;
  w->disp = 0;
  w->local = NULL;
  w->mpi_used = (int *)&seg->mpi_used;
  w->team = (int16_t)seg->team->id;
  w->segid = seg->segid;
  w->osc = seg->osc;
}

/* The transport's record of a resolved target: what every call on the
 * MPI path is handed. */
static inline void dart__segment_rma_target(const dart__target_t *t,
                                            dart__rma_target_t *rt)
{
  dart__segment_rma_win(t->seg, rt);
  rt->unit = t->unit;
  rt->disp = t->disp;
  rt->local = t->local;
}

/* The memory layer's lookup the transport's lock-release completion uses
 * (dart__rma_set_finder; handed over by dart__globmem_init). */
DART__HIDDEN bool dart__segment_rma_find(int16_t team, int16_t segid,
                                         dart__rma_target_t *w);

/* Number of MPI windows currently created by the global-memory module
 * (for leak tests and diagnostics). */
DART__HIDDEN int dart__globmem_live_windows(void);
/* Of those, the windows of team heap chunks (kept until the team ends). */
DART__HIDDEN int dart__globmem_heap_windows(void);

/*
 * Budget of MPI windows and communicators (DART_MAX_MPI_OBJECTS): MPICH
 * aborts when a process runs out of its 2048 context ids, so DART counts
 * what it creates and refuses to go past the budget. Left of the budget
 * on this unit; callers agree on the minimum over the team before a
 * collective creation. dart__mpi_objects_add counts created (n > 0) and
 * freed (n < 0) objects. dart__mpi_objects_refuse logs the refusal.
 */
DART__HIDDEN int dart__mpi_objects_left(void);
DART__HIDDEN void dart__mpi_objects_add(int n);
DART__HIDDEN dart_ret_t dart__mpi_objects_refuse(const char *func, int need);

/*
 * A side window: a window of DART's own on a communicator that is not a
 * segment's (the collectives' flag words, coll/bad.c; the locality
 * records, locality/locality.c). Created collectively (after a yielding
 * rendezvous, watched) over `bytes` bytes of this unit, copied from init
 * or zeroed before any peer can reach them, with the same memory-model
 * rule and lock_all epoch as every segment window (sidewin.c), and
 * counted in the MPI-object budget. On failure logs under func naming
 * what and returns DART_ERR_OTHER (nothing is left behind). Free is
 * collective (unlock_all, free).
 */
typedef struct {
  MPI_Win win;     /* MPI_WIN_NULL if none                         */
  void *mem;       /* this unit's bytes                            */
  bool own_memory; /* mem is DART's (MPI_Win_create), else MPI's   */
  bool shared;     /* node-shared (loads and stores only, no epoch) */
} dart__side_window_t;
DART__HIDDEN dart_ret_t dart__side_window_create(
    const char *func, const char *what, MPI_Comm comm, size_t bytes,
    int disp_unit, const void *init, dart__side_window_t *sw);
DART__HIDDEN dart_ret_t dart__side_window_create_shared(
    const char *func, const char *what, MPI_Comm comm, size_t bytes,
    const void *init, dart__side_window_t *sw);
DART__HIDDEN dart_ret_t dart__side_window_peer(const char *func,
                                               const char *what,
                                               const dart__side_window_t *sw,
                                               int rank, void **addr);
DART__HIDDEN dart_ret_t dart__side_window_free(const char *func,
                                               const char *what,
                                               dart__side_window_t *sw);

/* The capability probe's windows (probe_windows.c). */
/*
 * Runs the probe on comm (all units, collective) unless this process has
 * done so since MPI_Init: the MPI and its settings cannot change within
 * one MPI session, so later dart_init cycles reuse the result. Fails with
 * one line naming the setting to change when the MPI cannot provide what
 * DART needs (windows over existing memory with more than one unit).
 */
DART__HIDDEN dart_ret_t dart__caps_probe(MPI_Comm comm, int size, int rank);

/*
 * Whether MPI_Win_allocate_shared works on node (the units that share
 * memory): tried once per MPI session, locally; the caller agrees the
 * answer within the node. Without shared windows (Open MPI with
 * OMPI_MCA_osc=pt2pt) every unit is its own node for DART: all traffic
 * between units goes through MPI RMA.
 */
DART__HIDDEN bool dart__caps_shared_windows(MPI_Comm node);

/* Records the node's agreed answer (for the capability table). */
DART__HIDDEN void dart__caps_set_shared(bool ok);

/* Module hooks of global memory (runtime/modules.c): start after the
 * teams, stop at exit; a team's segment table is made with the team and
 * its segments and heap chunks freed with it. */
DART__HIDDEN dart_ret_t dart__globmem_init(void);
DART__HIDDEN void dart__globmem_fini(void);
DART__HIDDEN dart_ret_t dart__globmem_team_init(dart__team_t *team);
DART__HIDDEN dart_ret_t dart__globmem_team_fini(const char *func,
                                                dart__team_t *team);
/* Keeps the policy's wait mode for allocation agreements (agree.c). */
DART__HIDDEN void dart__agree_set_policy(const dart__policy_t *policy);

#endif /* DART__SEGMENT_H */
