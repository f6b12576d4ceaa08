/* dart_barrier: a yielding barrier that also orders memory accesses. */
#include <stdatomic.h>

#include <dash/dart/if/dart_communication.h>

#include "dart_observe.h"
#include "dart_team.h"
#include "dart_watch.h"

dart_ret_t dart_barrier(dart_team_t teamid)
{
  DART__TEAM_OR_RETURN(t, teamid);
  /* Local stores to shared windows become visible to node peers, and
   * their stores to us, across the barrier. */
  atomic_thread_fence(memory_order_seq_cst);
  uint64_t t0 = DART__OBS_T0();
  DART__WATCH(__func__, "MPI_Ibarrier", (int)teamid, DART__WATCH_NONE,
              DART__WATCH_NONE, ++t->coll_seq);
  MPI_Request req;
  int rc = MPI_Ibarrier(t->comm, &req);
  if (rc == MPI_SUCCESS) rc = dart__mpi_wait(&req);
  dart__watch_end();
  DART__OBS_END(t0, DART__OBS_BARRIER, DART__OBS_NONE, -1, 0);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(__func__, "MPI_Ibarrier", rc);
    return DART_ERR_OTHER;
  }
  atomic_thread_fence(memory_order_seq_cst);
  return DART_OK;
}
