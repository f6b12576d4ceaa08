/*
 * DART_TEAM_ALL's barrier and small allreduce through shared memory on one
 * node (dart_coll_shm.h).
 *
 * Barrier: a central counter in unit 0's pool page (transport/
 * cpu_barrier.h). A waiting unit drives MPI's progress engine every 64th
 * poll (a peer's RMA on this unit's memory may need it, as inside
 * MPI_Barrier) and yields its core after DART_SPIN_COUNT polls.
 *
 * Allreduce of at most DART__COLL_SHM_SLOT bytes: every unit copies its
 * contribution into its own slot, passes a counter barrier (a second
 * counter, so that a program calling dart_barrier on some units and
 * dart_allreduce on others waits, and the watchdog names both, as with
 * MPI), and reduces
 * all slots into its receive buffer in unit order, x0 op (x1 op (...
 * op x(n-1))), with MPI_Reduce_local: every unit computes the same
 * result with the same operations (floating point included), and a
 * non-commutative op sees increasing unit order, as MPI_Allreduce gives.
 * Two slots per unit, used alternately: a unit writes slot k % 2 of round
 * k only after the barrier of round k - 1, which nobody reaches before it
 * has read every slot of round k - 2, so one barrier per call suffices.
 * The barrier's acquire-release chain (each arrival's add, the last
 * one's store of the generation, the waiters' loads) orders every slot
 * write before every read.
 */
#include <string.h>

#include "coll_internal.h"
#include "dart_coll_shm.h"
#include "transport/cpu_barrier.h"

static _Atomic uint64_t *shm_words;
static char *shm_slot[DART__COLL_SHM_MAX];
static int shm_n;
static uint64_t shm_round; /* allreduce calls through the slots so far */

void dart__coll_shm_set(_Atomic uint64_t *words, char *const *slots, int n)
{
  shm_words = NULL;
  shm_n = 0;
  if (words == NULL || slots == NULL || n < 2 || n > DART__COLL_SHM_MAX) return;
  memcpy(shm_slot, slots, (size_t)n * sizeof *slots);
  shm_n = n;
  shm_round = 0;
  shm_words = words;
}

bool dart__coll_shm_on(void)
{
  return shm_words != NULL;
}

static void counter_barrier(_Atomic uint64_t *words)
{
  uint64_t gen;
  if (dart__cpu_barrier_arrive(words, (uint64_t)shm_n, &gen)) return;
  for (uint64_t it = 0; !dart__cpu_barrier_passed(words, gen); it++)
    dart__wait_poll_team(it);
}

void dart__coll_shm_barrier(void)
{
  counter_barrier(shm_words);
}

bool dart__coll_shm_allreduce_fits(const dart__team_t *team, size_t bytes)
{
  return shm_words != NULL && team->id == DART_TEAM_ALL &&
         bytes <= DART__COLL_SHM_SLOT;
}

int dart__coll_shm_allreduce(const void *send, void *recv, size_t bytes,
                             int count, MPI_Datatype type, MPI_Op op)
{
  size_t at = (size_t)(shm_round++ & 1) * DART__COLL_SHM_SLOT;
  memcpy(shm_slot[dart__g.myid] + at, send, bytes);
  counter_barrier(shm_words + 2);
  int last = shm_n - 1;
  memcpy(recv, shm_slot[last] + at, bytes);
  int rc = MPI_SUCCESS;
  for (int u = last - 1; u >= 0 && rc == MPI_SUCCESS; u--)
    rc = MPI_Reduce_local(shm_slot[u] + at, recv, count, type, op);
  return rc;
}
