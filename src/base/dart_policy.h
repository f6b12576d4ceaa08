/*
 * Internal: the runtime's policy, decided once by dart_init and handed to
 * the modules as they start (runtime/policy.c, dart_modules.h). A module
 * keeps what it needs in its own state; no module reads another module's
 * settings. A value that selects which MPI call a collective makes is
 * agreed over all units (calls of different kinds never match).
 */
#ifndef DART__POLICY_H
#define DART__POLICY_H

#include <stdbool.h>

/* DART_PROGRESS: when the progress thread runs (transport/progress.c). */
typedef enum {
  DART__PROGRESS_AUTO = 0, /* from the first segment reached through MPI */
  DART__PROGRESS_THREAD,   /* from dart_init on */
  DART__PROGRESS_NONE      /* never */
} dart__progress_mode_t;

typedef struct dart__policy {
  /* How collectives and DART's internal agreements wait: true = the
   * blocking MPI call, false = the non-blocking call and a yielding wait
   * (DART_COLL_WAIT, probed on oversubscribed nodes). */
  bool coll_block;
  dart__progress_mode_t progress; /* DART_PROGRESS */
  long progress_interval_us;      /* DART_PROGRESS_INTERVAL_US, >= 1 */
} dart__policy_t;

/*
 * DART_COLL_WAIT=auto on an oversubscribed node: given the agreed best
 * times per 8-byte allreduce of the blocking call and of the non-blocking
 * call with the yielding wait, whether to block. The yielding wait only
 * where it wins by more than 2x: the blocking call is the MPI's own path,
 * and a probe on an oversubscribed node is noisy. Measured at 4 units on
 * 2 cores (idle and with 2 busy loops beside): Open MPI's blocking call at
 * 0.5-0.8x the yielding wait idle and up to 1.4x under load (a 1.25x
 * threshold flipped some runs to the wait that then cost 2x per small
 * collective); MPICH's at 3.5-27x (it polls).
 */
static inline bool dart__coll_wait_prefers_block(double blocking,
                                                 double yielding)
{
  return blocking <= 2.0 * yielding;
}

#endif /* DART__POLICY_H */
