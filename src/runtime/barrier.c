/*
 * dart_barrier: a barrier that also orders memory accesses. It waits the
 * way the runtime's policy says collectives wait (dart_policy.h): the
 * blocking MPI_Barrier, or MPI_Ibarrier and a yielding wait; on an
 * oversubscribed node with Open MPI the yielding form cost 1.3-2.2x
 * MPI_Barrier (bench_coll --small, 2-4 units on 2 cores).
 */
#include <stdatomic.h>

#include <dash/dart/if/dart_communication.h>

#include "dart_modules.h"
#include "dart_observe.h"
#include "team/dart_team.h"
#include "dart_watch.h"
#include "transport/transport.h"
#include "transport/wait.h"

/* The policy's wait mode (false until dart_init has decided it). */
static bool barrier_block;

void dart__barrier_set_policy(const dart__policy_t *policy)
{
  barrier_block = policy->coll_block;
}

dart_ret_t dart_barrier(dart_team_t teamid)
{
  DART__TEAM_OR_RETURN(t, teamid);
  /* Where gets move only inside calls on their requests (probe), the
   * caller's gets on the team's memory land before the barrier: every
   * target is on its way into it (DASH reads halos after a barrier). */
  dart__handles_settle_gets(__func__, (int)teamid);
  /* Local stores to shared windows become visible to node peers, and
   * their stores to us, across the barrier. */
  atomic_thread_fence(memory_order_seq_cst);
  uint64_t t0 = DART__OBS_T0();
  const char *call = barrier_block ? "MPI_Barrier" : "MPI_Ibarrier";
  DART__WATCH(__func__, call, (int)teamid, DART__WATCH_NONE, DART__WATCH_NONE,
              ++t->coll_seq);
  int rc;
  if (barrier_block) {
    rc = MPI_Barrier(t->comm);
  } else {
    MPI_Request req;
    rc = MPI_Ibarrier(t->comm, &req);
    if (rc == MPI_SUCCESS) rc = dart__mpi_wait(&req);
  }
  dart__watch_end();
  DART__OBS_END(t0, DART__OBS_BARRIER, DART__OBS_NONE, -1, 0);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(__func__, call, rc);
    return DART_ERR_OTHER;
  }
  atomic_thread_fence(memory_order_seq_cst);
  return DART_OK;
}
