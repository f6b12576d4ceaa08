/*
 * Registration of user memory (dart_team_memregister) on the MPI side:
 * the window displacement each unit contributes to the agreement, the
 * choice between the team's dynamic window and a window of the
 * registration's own, and the attachments of the dynamic window with
 * their reference counts. The life cycle around it (agreement, ids,
 * retirement) is window.c's and agree.c's.
 */
#include <stdint.h>
#include <stdlib.h>

#include "globmem/dart_segment.h"
#include "globmem/globmem_internal.h"
#include "transport/transport.h"
#include "transport/probe.h"

/* Stand-in address for empty portions: resolving never yields NULL. */
static char empty_portion[16] __attribute__((aligned(16)));

/*
 * MPICH 4.0 (ch4) applies RMA on a window created over a base that is not
 * 16-byte aligned at the base rounded down to 16 bytes: data lands before
 * the registered memory (raw-MPI reproducer in docs/design.md). Registration
 * windows therefore start at addr rounded down to 16 bytes (with every MPI),
 * and displacements skip the pad. The pad bytes are never accessed: the
 * resolver checks ranges against the registered size. The pad also tells
 * peers the alignment of the target memory (atomics check it); where pads
 * differ between units they are published in the registration directory.
 */
enum { REG_WIN_ALIGN = 16 };

static MPI_Aint reg_pad(const void *addr, size_t size)
{
  if (addr == NULL || size == 0) return 0;
  return (MPI_Aint)((uintptr_t)addr & (REG_WIN_ALIGN - 1));
}

/*
 * Registrations go into the team's dynamic window (MPI_Win_attach, local)
 * where the probe at dart_init found dynamic windows working and no
 * attachment limit is known (MPICH: 10,000 and more, checked; its windows
 * cost a context id each, of which a process has ~2,000). Open MPI's
 * osc/rdma holds 64 attachments per dynamic window: there a registration
 * takes the dynamic window while every unit has attachments left
 * (dart__register_limited, decided in the agreement), else a window of
 * its own. With osc/ucx (32 attachments, and a region table that breaks
 * under the attach/detach order of registrations: transport/probe.c)
 * every registration gets a window of its own, which Open MPI allows by
 * the ten thousand but which lives on after a deregistration until the
 * units agree to free it (agree.c). A one-unit team needs no window.
 */
static bool register_dynamic(const dart__team_t *team)
{
  return dart__caps.register_dynamic && team->size > 1;
}

bool dart__register_limited(const dart__team_t *team)
{
  return dart__caps.register_limited && team->size > 1;
}

/* Attachments of a team's dynamic window open to registrations: all but
 * the dart_memalloc growth's share on DART_TEAM_ALL. */
static int attach_budget(const dart__team_t *team)
{
  int limit = dart__caps.attach_limit;
  return team->id == DART_TEAM_ALL ? limit - dart__pool_grow_pieces_max()
                                   : limit;
}

/* A region of local memory attached to a team's dynamic window. */
struct dart__attach {
  char *base;
  size_t size;
  int refs; /* live registrations inside it */
};

/*
 * The attached region of team table t that contains [lo, lo + n), or NULL;
 * *partial: some region overlaps it without containing it.
 */
static struct dart__attach *attach_find(dart__segtable_t *t, const char *lo,
                                        size_t n, bool *partial)
{
  *partial = false;
  for (int32_t i = 0; i < t->nattach; i++) {
    struct dart__attach *a = &t->attach[i];
    if (lo >= a->base && lo + n <= a->base + a->size) return a;
    if (lo < a->base + a->size && a->base < lo + n) *partial = true;
  }
  return NULL;
}

/* Takes a reference on the region containing [addr, +size), attaching a
 * new one if there is none. Returns the MPI error code. */
static int attach_ref(dart__segment_t *seg, char *addr, size_t size)
{
  dart__segtable_t *t = seg->team->segs;
  bool partial;
  struct dart__attach *a = attach_find(t, addr, size, &partial);
  if (a != NULL) {
    a->refs++;
    return MPI_SUCCESS;
  }
  if (t->nattach == t->capattach) {
    int32_t cap = t->capattach ? 2 * t->capattach : 8;
    struct dart__attach *m = realloc(t->attach, (size_t)cap * sizeof *m);
    if (m == NULL) return MPI_ERR_NO_MEM;
    t->attach = m;
    t->capattach = cap;
  }
  int rc = MPI_Win_attach(seg->win, addr, (MPI_Aint)size);
  if (rc == MPI_SUCCESS)
    t->attach[t->nattach++] = (struct dart__attach){addr, size, 1};
  return rc;
}

/* Drops seg's reference on its region, detaching the region with the
 * last one. Returns the MPI error code. */
static int attach_unref(dart__segment_t *seg)
{
  dart__segtable_t *t = seg->team->segs;
  bool partial;
  struct dart__attach *a = attach_find(t, seg->base, seg->size, &partial);
  if (a == NULL || --a->refs > 0) return MPI_SUCCESS;
  int rc = MPI_Win_detach(seg->win, a->base);
  *a = t->attach[--t->nattach];
  return rc;
}

/*
 * Where the dynamic window holds few attachments: this unit's part of the
 * choice between it and a window of the registration's own (agree.c),
 * i.e. how many more attachments it takes from this unit and the
 * displacement there. Memory inside a region attached for a live
 * registration needs none; memory that overlaps one without lying inside
 * it cannot be attached (MPI-3.1 11.2.4): 0 left, so the registration
 * gets its own window on every unit.
 */
static dart_ret_t register_candidate(dart__segment_t *seg, void *addr,
                                     size_t size)
{
  seg->dyn_disp = 0;
  seg->attach_left = INT32_MAX;
  if (size == 0) return DART_OK;
  dart__segtable_t *t = seg->team->segs;
  bool partial;
  if (attach_find(t, addr, size, &partial) == NULL) {
    int left = attach_budget(seg->team) - t->nattach;
    seg->attach_left = partial || left < 0 ? 0 : left;
  }
  DART__MPI(MPI_Get_address(addr, &seg->dyn_disp));
  return DART_OK;
}

/*
 * Window displacement of this unit's registered portion, exchanged by the
 * agreement: its address in a dynamic window, else the pad (both where
 * the agreement chooses, register_candidate). MPI forbids attaching
 * memory that overlaps an attached region of the same window (MPI-3.1
 * 11.2.4): memory inside a region attached for an earlier live
 * registration shares that attachment (attach_ref); where the dynamic
 * window is the only way, memory that overlaps one without lying inside
 * it fails here, before the agreement, and thus on every unit.
 */
dart_ret_t dart__register_disp(const char *func, dart__segment_t *seg,
                               void *addr, size_t size)
{
  seg->reg_dynamic = register_dynamic(seg->team);
  if (!seg->reg_dynamic || size == 0) {
    seg->disp_pad = reg_pad(addr, size);
    return dart__register_limited(seg->team)
               ? register_candidate(seg, addr, size)
               : DART_OK;
  }
  bool partial;
  if (attach_find(seg->team->segs, addr, size, &partial) == NULL && partial) {
    dart__log(DART__LOG_ERROR, func,
              "memory %p (+%zu bytes) overlaps live registrations of team "
              "%d without lying inside one (deregister them first)",
              addr, size, seg->team->id);
    return DART_ERR_INVAL;
  }
  DART__MPI(MPI_Get_address(addr, &seg->disp_pad));
  return DART_OK;
}

/* Creates the window of a registration of size bytes at addr. */
dart_ret_t dart__register_window(const char *func, dart__segment_t *seg,
                                 void *addr, size_t size)
{
  void *base = (addr != NULL && size > 0) ? addr : empty_portion;
  seg->base = base;
  /* only the owner maps user memory, and only without peers */
  if (seg->own_bases != NULL) seg->own_bases[seg->team->node_rank] = base;
  /* A one-unit team only ever reaches its own memory: no window (Open
   * MPI's osc/rdma cannot even create one on a single process). */
  if (seg->nunits == 1) return DART_OK;
  /* Displacements differ: this unit's goes to the team's directory, where
   * peers fetch it (published before the agreement that ends the call). */
  dart_ret_t pub =
      seg->disp_serial != 0 ? dart__regdir_publish(func, seg) : DART_OK;
  if (seg->reg_dynamic) {
    dart_ret_t ret = dart__heap_dynamic(func, seg->team, seg->mpi_left,
                                        &seg->win, &seg->osc);
    if (ret == DART_OK) ret = pub;
    seg->borrowed = true;
    if (ret == DART_OK && size > 0) {
      int rc = attach_ref(seg, addr, size);
      if (rc == MPI_SUCCESS) {
        seg->attached = true;
      } else {
        dart__mpi_log_error(func, "MPI_Win_attach", rc);
        ret = DART_ERR_OTHER;
      }
    }
    /* Peers may access the portion as soon as they return, so nobody
     * returns before every unit has attached; a failed attach fails the
     * registration on every unit (ids stay in step). */
    return dart__segment_agree_step(func, seg, ret, 0, NULL);
  }
  MPI_Aint pad = reg_pad(addr, size);
  dart_ret_t ret =
      dart__window_create(func, seg, (char *)base - pad, (MPI_Aint)size + pad);
  if (ret != DART_OK) return ret;
  ret = dart__window_open_epoch(seg);
  /* published everywhere before anybody returns */
  if (seg->disp_serial != 0)
    ret = dart__segment_agree_step(func, seg, ret != DART_OK ? ret : pub, 0,
                                   NULL);
  return ret;
}

/* Detaches seg's memory from the dynamic window (local), after completing
 * this unit's RMA on the segment. func: the caller, for the log. */
dart_ret_t dart__register_detach(const char *func, dart__segment_t *seg)
{
  dart_ret_t ret = DART_OK;
  if (__atomic_load_n(&seg->mpi_used, __ATOMIC_RELAXED)) {
    dart__rma_target_t w;
    dart__segment_rma_win(seg, &w);
    ret = dart__rma_complete(func, &w, DART__WATCH_NONE, DART__RMA_FLUSH_ALL);
  }
  if (seg->attached && attach_unref(seg) != MPI_SUCCESS) {
    DART_LOG_ERROR("MPI_Win_detach of segment %d of team %d failed", seg->segid,
                   seg->team->id);
    ret = DART_ERR_OTHER;
  }
  seg->attached = false;
  seg->borrowed = false;
  seg->win = MPI_WIN_NULL; /* the team's: not freed with seg */
  return ret;
}
