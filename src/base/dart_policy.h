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

#endif /* DART__POLICY_H */
