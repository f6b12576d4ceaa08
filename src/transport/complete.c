/*
 * Completion of MPI RMA, in one place: dart__rma_complete is the
 * completion step of all of DART (the public flushes, handles,
 * dart_lock_release, accumulates with local completion, freeing memory).
 * It publishes the wait for the watchdog and the wait word, makes the
 * MPI_Win_flush* call, fences pending accesses to mapped memory and logs a
 * failure under the public function's name.
 */
#include "transport/transport.h"

__thread int dart__shm_pending DART__TLS_MODEL;

/* MPI call of each kind of completion, for the watchdog and the log. */
static const char *const complete_call[] = {
    [DART__RMA_FLUSH] = "MPI_Win_flush",
    [DART__RMA_FLUSH_ALL] = "MPI_Win_flush_all",
    [DART__RMA_FLUSH_LOCAL] = "MPI_Win_flush_local",
    [DART__RMA_FLUSH_LOCAL_ALL] = "MPI_Win_flush_local_all"};

__attribute__((noinline)) dart_ret_t
dart__rma_complete(const char *func, const dart__rma_target_t *w, int unit,
                   dart__rma_flush_t kind)
{
  const char *call = complete_call[kind];
  bool one = (kind == DART__RMA_FLUSH || kind == DART__RMA_FLUSH_LOCAL);
  DART__WATCH(func, call, (int)w->team, w->segid, one ? unit : DART__WATCH_NONE,
              -1);
  int rc;
  switch (kind) {
  case DART__RMA_FLUSH: rc = MPI_Win_flush(unit, w->win); break;
  case DART__RMA_FLUSH_ALL: rc = MPI_Win_flush_all(w->win); break;
  case DART__RMA_FLUSH_LOCAL: rc = MPI_Win_flush_local(unit, w->win); break;
  default: rc = MPI_Win_flush_local_all(w->win);
  }
  dart__watch_end();
  dart__shm_complete();
  if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
    dart__mpi_log_error(func, call, rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}
