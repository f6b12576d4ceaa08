/*
 * The resolver's cold paths (dart_segment.h): why a global pointer does
 * not resolve, one log line naming the public function, and the retry of
 * an access whose peer displacement or committed size the caller has not
 * fetched yet.
 */
#include <inttypes.h>

#include "globmem/dart_segment.h"
#include "globmem/globmem_internal.h"

dart_ret_t dart__segment_resolve_failed(const char *func, dart_gptr_t gptr,
                                        size_t nbytes)
{
  int reason = DART__RESOLVE_BAD_RANGE;
  dart__segment_t *seg = NULL;
  if (dart__segtable_of(gptr.teamid) == NULL)
    reason = DART__RESOLVE_BAD_TEAM;
  else if ((seg = dart__segment_get(gptr.teamid, gptr.segid)) == NULL)
    reason = DART__RESOLVE_BAD_SEGMENT;
  else if ((unsigned)gptr.unitid >= (unsigned)seg->nunits)
    reason = DART__RESOLVE_BAD_UNIT;
  return dart__segment_resolve_error(func, gptr, nbytes, reason);
}

dart_ret_t dart__segment_resolve_retry(const char *func, dart_gptr_t gptr,
                                       size_t nbytes, dart__target_t *t)
{
  dart__segment_t *seg = NULL;
  char *local = NULL;
  dart__segment_t *lazy = dart__segment_get(gptr.teamid, gptr.segid);
  if (lazy != NULL && lazy->disp_serial != 0 &&
      (unsigned)gptr.unitid < (unsigned)lazy->nunits &&
      gptr.unitid != lazy->myid) {
    /* a peer's displacement (and growth) unknown or stale: fetch it, then
     * the usual checks again */
    MPI_Aint d;
    if (dart__regdir_fetch(func, lazy, gptr.unitid, &d) != DART_OK)
      return DART_ERR_OTHER;
    local = dart__segment_fast(gptr, nbytes, &seg);
  }
  if (seg == NULL) return dart__segment_resolve_failed(func, gptr, nbytes);
  t->seg = seg;
  t->unit = gptr.unitid;
  t->disp = dart__segment_disp(seg, t->unit, gptr.addr_or_offs.offset);
  t->local = local;
  return DART_OK;
}

uint64_t dart__segment_reach(const dart__segment_t *seg, int u)
{
  uint64_t n = dart__segment_portion(seg, u), bound = UINT64_MAX;
  MPI_Aint d;
  if (seg->disp_serial != 0) {
    if (u == seg->myid)
      bound = __atomic_load_n(&seg->lazy_end, __ATOMIC_RELAXED);
    else if (!dart__dispcache_find(seg->disp_serial, u, &d, &bound))
      bound = UINT64_MAX;
  }
  return n < bound ? n : bound;
}

dart_ret_t dart__segment_resolve_error(const char *func, dart_gptr_t gptr,
                                       size_t nbytes, int reason)
{
  int team = gptr.teamid, seg = gptr.segid, unit = gptr.unitid;
  unsigned long long off = (unsigned long long)gptr.addr_or_offs.offset;
  switch (reason) {
  case DART__RESOLVE_BAD_TEAM:
    dart__log(DART__LOG_ERROR, func, "invalid team id %d in global pointer%s",
              team, team == DART_TEAM_NULL ? " (DART_GPTR_NULL?)" : "");
    break;
  case DART__RESOLVE_BAD_SEGMENT:
    dart__log(DART__LOG_ERROR, func,
              "unknown segment %d of team %d (freed or never allocated)", seg,
              team);
    break;
  case DART__RESOLVE_BAD_UNIT:
    dart__log(DART__LOG_ERROR, func,
              "unit %d out of range for team %d (size %d)", unit, team,
              dart__team_get(gptr.teamid)->size);
    break;
  default: {
    dart__segment_t *s = dart__segment_get(gptr.teamid, gptr.segid);
    dart__log(DART__LOG_ERROR, func,
              "access of %zu bytes at offset %llu exceeds the %llu-byte "
              "portion of unit %d in segment %d of team %d",
              nbytes, off, (unsigned long long)dart__segment_reach(s, unit),
              unit, seg, team);
  }
  }
  return DART_ERR_INVAL;
}

bool dart__segment_lazy_known(const dart__segment_t *seg, int u, uint64_t end)
{
  MPI_Aint d;
  uint64_t bound;
  if (u == seg->myid)
    return end <= __atomic_load_n(&seg->lazy_end, __ATOMIC_RELAXED);
  return dart__dispcache_find(seg->disp_serial, u, &d, &bound) && end <= bound;
}
