/*
 * dart_barrier: a barrier that also orders memory accesses.
 *
 * On DART_TEAM_ALL, when every unit is on one node and maps DART's page of
 * unit 0 (the dart_memalloc pool's, globmem/pool.c), the barrier is a
 * central counter in shared memory: each unit adds 1 to the arrival count;
 * the last one resets it and advances the generation word, which the
 * others poll. Measured against MPI_Barrier on one node (bench_coll,
 * docs/collectives.md): 2 units 0.21 against 0.55 us (Open MPI) and 1.49 us
 * (MPICH); 4 units on 2 cores 12.5 against 20 us (Open MPI) and 8.3 ms
 * (MPICH's polling barrier). Every arrival is an atomic on one cache
 * line, so the counter is used up to SHM_MAX units; larger nodes and every
 * other team take the MPI barrier, which waits the way the runtime's
 * policy says collectives wait (dart_policy.h): the blocking MPI_Barrier,
 * or MPI_Ibarrier and a yielding wait.
 *
 * A unit waiting in the counter barrier drives the MPI progress engine
 * now and then (a peer's RMA on this unit's memory may need it, as inside
 * MPI_Barrier) and yields its core after DART_SPIN_COUNT polls.
 */
#include <stdatomic.h>
#include <strings.h>

#include <dash/dart/if/dart_communication.h>

#include "dart_modules.h"
#include "dart_observe.h"
#include "globmem/dart_segment.h"
#include "team/dart_team.h"
#include "dart_watch.h"
#include "transport/cpu_barrier.h"
#include "transport/transport.h"
#include "transport/wait.h"

/* Most units of one node that share the counter (see above). */
#define SHM_MAX 64

/* The policy's wait mode (false until dart_init has decided it). */
static bool barrier_block;
/* Unit 0's count and generation words, or NULL: the MPI barrier. */
static _Atomic uint64_t *shm_words;

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
  shm_words = NULL;
  if (dart__g.size < 2) return DART_OK;
  uint64_t *w = dart__pool_sync_words();
  int ok = env_allows_shm() && w != NULL && dart__g.size <= SHM_MAX, all = 0;
  /* Every unit must take the same barrier. */
  DART__MPI(dart__mpi_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, dart__g.comm));
  if (all) shm_words = (_Atomic uint64_t *)w;
  DART_LOG_DEBUG("dart_barrier on DART_TEAM_ALL: %s",
                 all ? "shared-memory counter" : "MPI barrier");
  return DART_OK;
}

dart_ret_t dart__barrier_fini(void)
{
  shm_words = NULL; /* before the pool that holds the words goes */
  return DART_OK;
}

/* The counter barrier of n units on words (transport/cpu_barrier.h). */
static void shm_barrier(_Atomic uint64_t *words, uint64_t n)
{
  uint64_t gen;
  if (dart__cpu_barrier_arrive(words, n, &gen)) return;
  for (uint64_t it = 0; !dart__cpu_barrier_passed(words, gen); it++)
    dart__wait_poll_team(it);
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
  _Atomic uint64_t *words = teamid == DART_TEAM_ALL ? shm_words : NULL;
  const char *call = words != NULL   ? "shared-memory barrier"
                     : barrier_block ? "MPI_Barrier"
                                     : "MPI_Ibarrier";
  DART__WATCH(__func__, call, (int)teamid, DART__WATCH_NONE, DART__WATCH_NONE,
              ++t->coll_seq);
  int rc = MPI_SUCCESS;
  if (words != NULL) {
    shm_barrier(words, (uint64_t)t->size);
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
