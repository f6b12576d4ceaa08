/*
 * The runtime's policy (dart_policy.h): read from the environment, probed
 * where the environment leaves the choice open, agreed over all units, and
 * handed to the modules by the module table (modules.c).
 */
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

#include "dart_modules.h"
#include "dart_mpi.h"
#include "dart_policy.h"
#include "transport/wait.h"

static dart__progress_mode_t parse_progress(const char *s)
{
  if (s == NULL || *s == '\0' || strcasecmp(s, "auto") == 0)
    return DART__PROGRESS_AUTO;
  if (strcasecmp(s, "thread") == 0) return DART__PROGRESS_THREAD;
  if (strcasecmp(s, "none") == 0) return DART__PROGRESS_NONE;
  DART_LOG_WARN("DART_PROGRESS=%s is not auto, thread or none; using auto", s);
  return DART__PROGRESS_AUTO;
}

bool dart__policy_progress_wanted(void)
{
  return parse_progress(getenv("DART_PROGRESS")) != DART__PROGRESS_NONE;
}

/*
 * Does this node run at most as many units of the job as it has online
 * CPUs? The real node counts (simulated nodes share its CPUs); unknown
 * counts as oversubscribed.
 */
static bool node_dedicated(void)
{
  long cpus = sysconf(_SC_NPROCESSORS_ONLN), units = dart__g.real_node_units;
  return cpus > 0 && units > 0 && units <= cpus;
}

typedef enum { WAIT_AUTO, WAIT_YIELD, WAIT_BLOCK } wait_env_t;

static wait_env_t wait_env_mode(void)
{
  const char *m = dart__env.coll_wait;
  if (m != NULL && strcasecmp(m, "block") == 0) return WAIT_BLOCK;
  if (m != NULL && strcasecmp(m, "yield") == 0) return WAIT_YIELD;
  if (m != NULL && strcasecmp(m, "auto") != 0)
    DART_LOG_WARN("DART_COLL_WAIT=%s is not auto, yield or block; using auto",
                  m);
  return WAIT_AUTO;
}

/* One timed batch of 8-byte allreduces: blocking or non-blocking + DART's
 * yielding wait. Returns the MPI error code. */
static int probe_batch(bool blocking, int iters, double *secs)
{
  double v = 1.0, r = 0.0, t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) {
    int rc;
    if (blocking) {
      rc = MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_SUM, dart__g.comm);
    } else {
      MPI_Request req;
      rc = MPI_Iallreduce(&v, &r, 1, MPI_DOUBLE, MPI_SUM, dart__g.comm, &req);
      if (rc == MPI_SUCCESS) rc = dart__mpi_wait(&req);
    }
    if (rc != MPI_SUCCESS) return rc;
  }
  *secs = MPI_Wtime() - t0;
  return MPI_SUCCESS;
}

/*
 * On a node running more units than CPUs, which wait is faster with this
 * MPI: its own blocking collective (Open MPI yields inside it when it
 * sees the node oversubscribed; MPICH polls and starves the units it
 * waits for: 134 us against 4 us for an 8-byte broadcast at 4 units on 2
 * cores) or the non-blocking call with DART's yielding wait (Open MPI's
 * non-blocking collectives cost 1.2-2.8x its blocking ones there)?
 * Measured, not guessed: alternating batches of 8-byte allreduces, best
 * batch of each kind, the slowest unit's times agreed by an allreduce so
 * that every unit picks the same; one short round when it is clear-cut.
 * Milliseconds, once, and only where some node is oversubscribed.
 */
static dart_ret_t probe_block(bool *block)
{
  /* round 0: 2 calls of each kind (MPICH's polled ones take milliseconds
   * each on a loaded node); rounds 1-3 only if that was not clear-cut */
  enum { ROUNDS = 4, QUICK = 2, ITERS = 8 };
  double best[2] = {1e30, 1e30}, agreed[2];
  for (int round = 0; round < ROUNDS; round++) {
    int iters = round == 0 ? QUICK : ITERS;
    /* units arrive out of step: absorb that in a yielding barrier, not in
     * a polled call (k = 1, yielding, runs first for the same reason) */
    MPI_Request req;
    int rc = MPI_Ibarrier(dart__g.comm, &req);
    if (rc == MPI_SUCCESS) rc = dart__mpi_wait(&req);
    for (int k = 1; k >= 0 && rc == MPI_SUCCESS; k--) {
      double t = 0.0;
      rc = probe_batch(k == 0, iters, &t);
      if (t / iters < best[k]) best[k] = t / iters;
    }
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error("dart_init", "probing the collective wait", rc);
      return DART_ERR_OTHER;
    }
    if (round > 0 && round < ROUNDS - 1) continue;
    DART__MPI(dart__mpi_allreduce(best, agreed, 2, MPI_DOUBLE, MPI_MAX,
                                  dart__g.comm));
    if (agreed[0] > 4 * agreed[1] || agreed[1] > 4 * agreed[0]) break;
  }
  *block = dart__coll_wait_prefers_block(agreed[0], agreed[1]);
  DART_LOG_DEBUG("collective wait probe: blocking %.2f us, yielding %.2f us "
                 "per 8-byte allreduce",
                 agreed[0] * 1e6, agreed[1] * 1e6);
  return DART_OK;
}

/*
 * The wait mode changes which MPI call a collective makes (MPI_Bcast or
 * MPI_Ibcast, ...), and calls of both kinds never match on one
 * communicator, so every unit must choose the same. DART_COLL_WAIT itself
 * is agreed in dart_init (unit 0's value, docs/env.md): block and yield are
 * then the same everywhere. auto depends on each node (uneven placement,
 * mixed nodes) and is agreed here: blocking if every unit's node has a CPU
 * per unit, otherwise the faster wait as probed. Sub-teams inherit it.
 */
static dart_ret_t decide_coll_wait(bool *block)
{
  wait_env_t mode = wait_env_mode();
  *block = mode == WAIT_BLOCK;
  if (mode == WAIT_AUTO) {
    int v = node_dedicated();
    DART__MPI(dart__mpi_allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN,
                                  dart__g.comm));
    *block = v != 0;
    if (!*block && dart__g.size > 1) {
      dart_ret_t ret = probe_block(block);
      if (ret != DART_OK) return ret;
    }
  }
  DART_LOG_DEBUG("collectives wait by %s (agreed by all units)",
                 *block ? "blocking MPI calls" : "yielding waits");
  return DART_OK;
}

dart_ret_t dart__policy_decide(dart__policy_t *policy)
{
  /* local: DART_SPIN_COUNT=-1 spins only where units have CPUs of their own */
  dart__wait_set_node(node_dedicated());
  policy->progress = parse_progress(dart__env.progress);
  policy->progress_interval_us =
      dart__env.progress_interval_us > 0 ? dart__env.progress_interval_us : 1;
  return decide_coll_wait(&policy->coll_block);
}
