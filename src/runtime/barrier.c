/*
 * dart_barrier: a barrier that also orders memory accesses; and the
 * decision, at dart_init, whether DART_TEAM_ALL's barrier and small
 * allreduce, allgather and bcast go through shared memory (coll/shm.c).
 *
 * They do when every unit is on one node and maps every other unit's
 * dart_memalloc pool (the counters live in DART's page of unit 0, the
 * collectives' slots in front of each unit's page, globmem/pool.c), for at
 * most DART__COLL_SHM_MAX units, unless DART_BARRIER=mpi. Measured
 * against MPI_Barrier on one node (bench_coll, docs/collectives.md):
 * 2 units 0.21 against 0.55 us (Open MPI) and 1.49 us (MPICH); 4 units on
 * 2 cores 12.5 against 20 us (Open MPI) and 8.3 ms (MPICH's polling
 * barrier). Larger nodes and every other team take the MPI barrier, which
 * waits the way the runtime's policy says collectives wait
 * (dart_policy.h): the blocking MPI_Barrier, or MPI_Ibarrier and a
 * yielding wait.
 */
#include <stdatomic.h>
#include <strings.h>

#include <dash/dart/if/dart_communication.h>

#include "coll/dart_coll_shm.h"
#include "dart_modules.h"
#include "dart_observe.h"
#include "globmem/dart_segment.h"
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

/* Whether DART_BARRIER lets DART_TEAM_ALL use the counter. */
static bool env_allows_shm(void)
{
  const char *m = dart__env.barrier;
  if (m != NULL && strcasecmp(m, "mpi") == 0) return false;
  if (m != NULL && strcasecmp(m, "auto") != 0)
    DART_LOG_WARN("DART_BARRIER=%s is not auto or mpi; using auto", m);
  return true;
}

dart_ret_t dart__barrier_init(void)
{
  dart__coll_shm_set(NULL, NULL, 0);
  int n = dart__g.size;
  if (n < 2) return DART_OK;
  char *slots[DART__COLL_SHM_MAX];
  size_t room = 0;
  uint64_t *w = dart__pool_sync_words();
  int ok = env_allows_shm() && w != NULL && n <= DART__COLL_SHM_MAX &&
           dart__pool_coll_slots(slots, n, &room) &&
           room >= DART__COLL_SHM_ROOM,
      all = 0;
  /* The bcast words start at zero before anybody can read them. */
  if (ok) dart__coll_shm_clear(slots[dart__g.myid]);
  /* Every unit must take the same path. */
  DART__MPI(dart__mpi_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, dart__g.comm));
  if (all) dart__coll_shm_set((_Atomic uint64_t *)w, slots, n);
  DART_LOG_DEBUG(
      "DART_TEAM_ALL's barrier and small allreduce, allgather and bcast: %s",
      all ? "shared memory" : "MPI");
  return DART_OK;
}

dart_ret_t dart__barrier_fini(void)
{
  /* before the pool that holds the words and slots goes */
  dart__coll_shm_set(NULL, NULL, 0);
  return DART_OK;
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
  bool shm = teamid == DART_TEAM_ALL && dart__coll_shm_on();
  const char *call = shm             ? "shared-memory barrier"
                     : barrier_block ? "MPI_Barrier"
                                     : "MPI_Ibarrier";
  DART__WATCH(__func__, call, (int)teamid, DART__WATCH_NONE, DART__WATCH_NONE,
              ++t->coll_seq);
  int rc = MPI_SUCCESS;
  if (shm) {
    dart__coll_shm_barrier();
  } else if (barrier_block) {
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
