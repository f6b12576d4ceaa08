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
 * The MPI part is dart__rma_complete in the transport
 * (transport/complete.c).
 */
#include "onesided/onesided.h"

/* Target of a flush for statistics and trace (-1: all), evaluated only
 * when observing. */
#define OBS_TARGET (one ? seg->team->l2g[u] : -1)

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
  if (__atomic_load_n(&seg->mpi_used, __ATOMIC_RELAXED)) {
    uint64_t t0 = DART__OBS_T0();
    dart__rma_target_t w;
    dart__segment_rma_win(seg, &w);
    dart_ret_t ret = dart__rma_complete(func, &w, u, kind);
    DART__OBS_END(t0, DART__OBS_FLUSH, DART__OBS_MPI, OBS_TARGET, 0);
    return ret;
  }
  dart__shm_complete();
  DART__OBS_OP(DART__OBS_FLUSH, DART__OBS_SHM, OBS_TARGET, 0);
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
