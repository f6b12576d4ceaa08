/*
 * dart_flush, dart_flush_all, dart_flush_local, dart_flush_local_all.
 *
 * Operations on mapped memory are complete when issued; a flush then only
 * needs a full fence so the owner's later loads (after a barrier or a flag)
 * see the data, and only if the calling thread issued plain loads/stores
 * since its last fence (dart__shm_pending; on x86-64 atomics are locked
 * instructions, and blocking calls fence themselves). MPI is flushed only for
 * segments on which an MPI RMA operation was ever issued (the sticky mpi_used
 * mark), so segments used purely through shared memory never enter MPI
 * here.
 */
#include "onesided/onesided.h"

__thread int dart__shm_pending DART__TLS_MODEL;

typedef enum { FLUSH_ONE, FLUSH_ALL, FLUSH_LOCAL, FLUSH_LOCAL_ALL } flush_t;

static __attribute__((noinline)) dart_ret_t
flush_mpi(const char *func, dart__segment_t *seg, int u, flush_t kind)
{
  int rc;
  const char *call;
  DART__WATCH(func, "MPI_Win_flush", (int)seg->team->id, seg->segid,
              kind == FLUSH_ONE || kind == FLUSH_LOCAL ? u : DART__WATCH_NONE,
              -1);
  switch (kind) {
  case FLUSH_ONE:
    call = "MPI_Win_flush";
    rc = MPI_Win_flush(u, seg->win);
    break;
  case FLUSH_ALL:
    call = "MPI_Win_flush_all";
    rc = MPI_Win_flush_all(seg->win);
    break;
  case FLUSH_LOCAL:
    call = "MPI_Win_flush_local";
    rc = MPI_Win_flush_local(u, seg->win);
    break;
  default:
    call = "MPI_Win_flush_local_all";
    rc = MPI_Win_flush_local_all(seg->win);
  }
  dart__watch_end();
  dart__shm_complete();
  if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
    dart__mpi_log_error(func, call, rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* Inlined into each public function with a constant kind. */
static inline __attribute__((always_inline)) dart_ret_t
flush(const char *func, dart_gptr_t gptr, flush_t kind)
{
  dart__segment_t *seg = dart__segment_lookup(func, gptr);
  if (__builtin_expect(seg == NULL, 0)) return DART_ERR_INVAL;
  int u = gptr.unitid;
  bool one = (kind == FLUSH_ONE || kind == FLUSH_LOCAL);
  if (one && __builtin_expect((unsigned)u >= (unsigned)seg->nunits, 0))
    return dart__segment_resolve_error(func, gptr, 0, DART__RESOLVE_BAD_UNIT);
  if (__atomic_load_n(&seg->mpi_used, __ATOMIC_RELAXED))
    return flush_mpi(func, seg, u, kind);
  dart__shm_complete();
  return DART_OK;
}

dart_ret_t dart_flush(dart_gptr_t gptr)
{
  return flush(__func__, gptr, FLUSH_ONE);
}

dart_ret_t dart_flush_all(dart_gptr_t gptr)
{
  return flush(__func__, gptr, FLUSH_ALL);
}

dart_ret_t dart_flush_local(dart_gptr_t gptr)
{
  return flush(__func__, gptr, FLUSH_LOCAL);
}

dart_ret_t dart_flush_local_all(dart_gptr_t gptr)
{
  return flush(__func__, gptr, FLUSH_LOCAL_ALL);
}
