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
 *
 * The MPI part, dart__rma_complete, is also the completion step of the
 * rest of DART (handles, dart_lock_release, accumulates with local
 * completion, freeing memory): one place that publishes the wait, makes
 * the call and logs its failure.
 */
#include "onesided/onesided.h"

__thread int dart__shm_pending DART__TLS_MODEL;

/* MPI call of each kind of completion, for the watchdog and the log. */
static const char *const complete_call[] = {
    [DART__RMA_FLUSH] = "MPI_Win_flush",
    [DART__RMA_FLUSH_ALL] = "MPI_Win_flush_all",
    [DART__RMA_FLUSH_LOCAL] = "MPI_Win_flush_local",
    [DART__RMA_FLUSH_LOCAL_ALL] = "MPI_Win_flush_local_all"};

__attribute__((noinline)) dart_ret_t
dart__rma_complete(const char *func, const dart__segment_t *seg, int unit,
                   dart__rma_flush_t kind)
{
  const char *call = complete_call[kind];
  bool one = (kind == DART__RMA_FLUSH || kind == DART__RMA_FLUSH_LOCAL);
  DART__WATCH(func, call, (int)seg->team->id, seg->segid,
              one ? unit : DART__WATCH_NONE, -1);
  int rc;
  switch (kind) {
  case DART__RMA_FLUSH: rc = MPI_Win_flush(unit, seg->win); break;
  case DART__RMA_FLUSH_ALL: rc = MPI_Win_flush_all(seg->win); break;
  case DART__RMA_FLUSH_LOCAL: rc = MPI_Win_flush_local(unit, seg->win); break;
  default: rc = MPI_Win_flush_local_all(seg->win);
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
flush(const char *func, dart_gptr_t gptr, dart__rma_flush_t kind)
{
  dart__segment_t *seg = dart__segment_lookup(func, gptr);
  if (__builtin_expect(seg == NULL, 0)) return DART_ERR_INVAL;
  int u = gptr.unitid;
  bool one = (kind == DART__RMA_FLUSH || kind == DART__RMA_FLUSH_LOCAL);
  if (one && __builtin_expect((unsigned)u >= (unsigned)seg->nunits, 0))
    return dart__segment_resolve_error(func, gptr, 0, DART__RESOLVE_BAD_UNIT);
  if (__atomic_load_n(&seg->mpi_used, __ATOMIC_RELAXED))
    return dart__rma_complete(func, seg, u, kind);
  dart__shm_complete();
  return DART_OK;
}

dart_ret_t dart_flush(dart_gptr_t gptr)
{
  return flush(__func__, gptr, DART__RMA_FLUSH);
}

dart_ret_t dart_flush_all(dart_gptr_t gptr)
{
  return flush(__func__, gptr, DART__RMA_FLUSH_ALL);
}

dart_ret_t dart_flush_local(dart_gptr_t gptr)
{
  return flush(__func__, gptr, DART__RMA_FLUSH_LOCAL);
}

dart_ret_t dart_flush_local_all(dart_gptr_t gptr)
{
  return flush(__func__, gptr, DART__RMA_FLUSH_LOCAL_ALL);
}
