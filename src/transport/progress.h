/* Internal: state of the DART progress thread (progress.c). */
#ifndef DART__TRANSPORT_PROGRESS_H
#define DART__TRANSPORT_PROGRESS_H

#include <stdbool.h>

#include "dart_log.h"
#include "dart_policy.h"

/* Module hooks (runtime/modules.c): starts the progress machinery in the
 * policy's mode; stops it. */
DART__HIDDEN dart_ret_t dart__progress_init(const dart__policy_t *policy);
DART__HIDDEN void dart__progress_fini(void);

/*
 * Drives the MPI progress engine from the calling thread (every 8th call):
 * the owner of memory that peers reach through MPI calls it when it
 * accesses that memory itself, so that a unit polling its own memory
 * (a flag set by a peer's put) lets the peer's operation complete even
 * without a progress thread (MPI below MPI_THREAD_MULTIPLE, or
 * DART_PROGRESS=none).
 */
DART__HIDDEN void dart__progress_poke(void);

/*
 * A segment whose memory some unit reaches through MPI exists: starts the
 * progress thread unless it runs, DART_PROGRESS=none, or MPI lacks
 * MPI_THREAD_MULTIPLE. Local (no communication); why is logged.
 */
DART__HIDDEN void dart__progress_require(const char *why);

#endif /* DART__TRANSPORT_PROGRESS_H */
