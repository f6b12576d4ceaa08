/* dart_barrier: a yielding barrier that also orders memory accesses. */
#include <stdatomic.h>

#include <dash/dart/if/dart_communication.h>

#include "dart_team.h"

dart_ret_t dart_barrier(dart_team_t teamid)
{
  DART__TEAM_OR_RETURN(t, teamid);
  /* Local stores to shared windows become visible to node peers, and
   * their stores to us, across the barrier. */
  atomic_thread_fence(memory_order_seq_cst);
  MPI_Request req;
  DART__MPI(MPI_Ibarrier(t->comm, &req));
  DART__MPI(dart__mpi_wait(&req));
  atomic_thread_fence(memory_order_seq_cst);
  return DART_OK;
}
