/*
 * Global pointers and team-collective global memory: the gptr helpers,
 * dart_team_memalloc_aligned / memfree, dart_team_memregister[_aligned] /
 * memderegister and the per-team hooks.
 */
#include <limits.h>
#include <stdlib.h>

#include "types/dart_datatype.h"
#include "globmem/globmem_internal.h"

dart__segtable_t *dart__segtables[DART__TEAM_ID_MAX + 1];

dart_ret_t dart__globmem_team_init(dart__team_t *team)
{
  team->segs = malloc(sizeof *team->segs);
  if (team->segs == NULL) {
    DART_LOG_ERROR("out of memory for the segment table of team %d", team->id);
    return DART_ERR_NOMEM;
  }
  dart__segtable_init(team->segs);
  __atomic_store_n(&dart__segtables[team->id], team->segs, __ATOMIC_RELEASE);
  return DART_OK;
}

/* State of a team's teardown: the public call and the first failure. */
typedef struct {
  const char *func;
  dart_ret_t ret;
} teardown_t;

static void destroy_cb(struct dart__segment *seg, int16_t id, void *arg)
{
  teardown_t *td = arg;
  DART_LOG_DEBUG("team %d: freeing segment %d at team destruction",
                 seg->team->id, id);
  dart_ret_t r = dart__segment_destroy(td->func, seg);
  if (r != DART_OK) td->ret = r;
}

dart_ret_t dart__globmem_team_fini(const char *func, dart__team_t *team)
{
  if (team->segs == NULL) return DART_OK;
  teardown_t td = {func, DART_OK};
  /* Same ids on every member, visited in the same order: the collective
   * window frees match up. Registrations deregistered on some members but
   * not yet freed are freed in their place in that order. */
  dart__segtable_revive_retired(team->segs, dart__segment_id);
  dart__segtable_foreach(team->segs, destroy_cb, &td);
  dart_ret_t ret = td.ret, r = dart__heap_fini(func, team);
  if (r != DART_OK) ret = r;
  if ((r = dart__regdir_fini(func, team)) != DART_OK) ret = r;
  __atomic_store_n(&dart__segtables[team->id], NULL, __ATOMIC_RELEASE);
  dart__segment_spare_free(team->segs);
  dart__segtable_destroy(team->segs);
  free(team->segs);
  team->segs = NULL;
  return ret;
}

dart_ret_t dart__globmem_bytes(const char *func, size_t nelem,
                               dart_datatype_t dtype, bool basic_only,
                               size_t *bytes)
{
  const dart__type_t *t = dart__type_get(dtype);
  if (t == NULL || (basic_only && t->kind != DART__TYPE_BASIC)) {
    dart__log(DART__LOG_ERROR, func, "invalid %sdatatype %lld",
              basic_only ? "(non-basic) " : "", (long long)dtype);
    return DART_ERR_INVAL;
  }
  if (t->base_size != 0 && nelem > (size_t)PTRDIFF_MAX / t->base_size) {
    dart__log(DART__LOG_ERROR, func,
              "size of %zu elements of %zu bytes "
              "overflows",
              nelem, t->base_size);
    return DART_ERR_INVAL;
  }
  *bytes = nelem * t->base_size;
  return DART_OK;
}

dart_ret_t dart_gptr_getaddr(const dart_gptr_t gptr, void **addr)
{
  DART__CHECK_NOTNULL(addr);
  *addr = NULL;
  dart__segment_t *seg = dart__segment_lookup(__func__, gptr);
  if (seg == NULL) return DART_ERR_INVAL;
  if (gptr.unitid == seg->myid) *addr = seg->base + gptr.addr_or_offs.offset;
  return DART_OK;
}

dart_ret_t dart_gptr_setaddr(dart_gptr_t *gptr, void *addr)
{
  DART__CHECK_NOTNULL(gptr);
  dart__segment_t *seg = dart__segment_lookup(__func__, *gptr);
  if (seg == NULL) return DART_ERR_INVAL;
  char *p = addr;
  DART__CHECK_ARG(p >= seg->base && (size_t)(p - seg->base) <= seg->size,
                  "address %p is not inside this unit's %zu-byte portion of "
                  "segment %d of team %d",
                  addr, seg->size, gptr->segid, gptr->teamid);
  gptr->addr_or_offs.offset = (uint64_t)(p - seg->base);
  return DART_OK;
}

dart_ret_t dart_gptr_getflags(dart_gptr_t gptr, uint16_t *flags)
{
  DART__CHECK_NOTNULL(flags);
  *flags = 0;
  dart__segment_t *seg = dart__segment_lookup(__func__, gptr);
  if (seg == NULL) return DART_ERR_INVAL;
  *flags = __atomic_load_n(&seg->flags, __ATOMIC_RELAXED);
  return DART_OK;
}

dart_ret_t dart_gptr_setflags(dart_gptr_t *gptr, uint16_t flags)
{
  DART__CHECK_NOTNULL(gptr);
  dart__segment_t *seg = dart__segment_lookup(__func__, *gptr);
  if (seg == NULL) return DART_ERR_INVAL;
  __atomic_store_n(&seg->flags, flags, __ATOMIC_RELAXED);
  gptr->flags = flags & 0xffu;
  return DART_OK;
}

/* The gptr every member gets for a collective segment. */
static dart_gptr_t collective_gptr(const dart__segment_t *seg)
{
  dart_gptr_t g = DART_GPTR_NULL;
  g.unitid = 0;
  g.flags = 0;
  g.segid = seg->segid;
  g.teamid = seg->team->id;
  g.addr_or_offs.offset = 0;
  return g;
}

dart_ret_t dart__team_memalloc(const char *func, dart__team_t *team,
                               size_t nelem, dart_datatype_t dtype,
                               dart_ret_t status, dart_gptr_t *gptr)
{
  if (gptr != NULL) *gptr = DART_GPTR_NULL;
  /* Local checks do not return early: the outcome is agreed on below. */
  size_t bytes = 0;
  if (status != DART_OK) {
    /* the caller has logged its own */
  } else if (gptr == NULL) {
    dart__log(DART__LOG_ERROR, func, "argument 'gptr' is NULL");
    status = DART_ERR_INVAL;
  } else {
    status = dart__globmem_bytes(func, nelem, dtype, true, &bytes);
  }
  dart__segment_t *seg;
  dart_ret_t ret = dart__segment_create(func, team, DART__SEG_ALLOC, bytes,
                                        NULL, status, &seg);
  if (ret != DART_OK) return ret;
  *gptr = collective_gptr(seg);
  return DART_OK;
}

dart_ret_t dart_team_memalloc_aligned(dart_team_t teamid, size_t nelem,
                                      dart_datatype_t dtype, dart_gptr_t *gptr)
{
  if (gptr != NULL) *gptr = DART_GPTR_NULL;
  DART__TEAM_OR_RETURN(team, teamid);
  return dart__team_memalloc(__func__, team, nelem, dtype, DART_OK, gptr);
}

/*
 * Common part of dart_team_memfree / dart_team_memderegister: NULL gptr is
 * a no-op; the segment must exist and be of the expected kind.
 */
static dart_ret_t free_collective(const char *func, dart_gptr_t gptr,
                                  bool registration)
{
  if (DART_GPTR_ISNULL(gptr)) return DART_OK;
  dart__team_t *team = dart__team_lookup(func, gptr.teamid);
  if (team == NULL) return DART_ERR_INVAL;
  dart__segment_t *seg = dart__segment_lookup(func, gptr);
  if (seg == NULL) return DART_ERR_INVAL;
  static const char *const owner[] = {
      [DART__SEG_POOL] = "dart_memfree",
      [DART__SEG_ALLOC] = "dart_team_memfree",
      [DART__SEG_ALLOCATOR] = "dart_allocator_destroy",
      [DART__SEG_REGISTER] = "dart_team_memderegister"};
  dart__seg_kind_t want = registration ? DART__SEG_REGISTER : DART__SEG_ALLOC;
  if (seg->kind != want) {
    dart__log(DART__LOG_ERROR, func,
              "segment %d of team %d must be released with %s", gptr.segid,
              gptr.teamid, owner[seg->kind]);
    return DART_ERR_INVAL;
  }
  return registration ? dart__segment_retire(func, seg)
                      : dart__segment_release(func, seg);
}

dart_ret_t dart_team_memfree(dart_gptr_t gptr)
{
  return free_collective(__func__, gptr, false);
}

/* Common part of both registration calls. */
static dart_ret_t register_memory(const char *func, dart_team_t teamid,
                                  size_t nelem, dart_datatype_t dtype,
                                  void *addr, dart_gptr_t *gptr)
{
  if (gptr != NULL) *gptr = DART_GPTR_NULL;
  dart__team_t *team = dart__team_lookup(func, teamid);
  if (team == NULL) return DART_ERR_INVAL;
  dart_ret_t status = DART_OK;
  size_t bytes = 0;
  if (gptr == NULL) {
    dart__log(DART__LOG_ERROR, func, "argument 'gptr' is NULL");
    status = DART_ERR_INVAL;
  } else {
    status = dart__globmem_bytes(func, nelem, dtype, true, &bytes);
    if (status == DART_OK && addr == NULL && bytes > 0) {
      dart__log(DART__LOG_ERROR, func, "argument 'addr' is NULL for %zu bytes",
                bytes);
      status = DART_ERR_INVAL;
    }
  }
  dart__segment_t *seg;
  dart_ret_t ret = dart__segment_create(func, team, DART__SEG_REGISTER, bytes,
                                        addr, status, &seg);
  if (ret != DART_OK) return ret;
  *gptr = collective_gptr(seg);
  return DART_OK;
}

dart_ret_t dart_team_memregister_aligned(dart_team_t teamid, size_t nelem,
                                         dart_datatype_t dtype, void *addr,
                                         dart_gptr_t *gptr)
{
  return register_memory(__func__, teamid, nelem, dtype, addr, gptr);
}

dart_ret_t dart_team_memregister(dart_team_t teamid, size_t nlelem,
                                 dart_datatype_t dtype, void *addr,
                                 dart_gptr_t *gptr)
{
  return register_memory(__func__, teamid, nlelem, dtype, addr, gptr);
}

dart_ret_t dart_team_memderegister(dart_gptr_t gptr)
{
  return free_collective(__func__, gptr, true);
}

bool dart__segment_rma_find(int16_t team, int16_t segid, dart__rma_target_t *w)
{
  const dart__segment_t *seg = dart__segment_get(team, segid);
  if (seg == NULL) return false;
  dart__segment_rma_win(seg, w);
  return true;
}
