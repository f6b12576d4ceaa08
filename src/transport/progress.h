/* Internal: state of the DART progress thread (progress.c). */
#ifndef DART__ONESIDED_PROGRESS_H
#define DART__ONESIDED_PROGRESS_H

#include <stdbool.h>

#include "dart_log.h"

/* True while the progress thread runs (tests and diagnostics). */
DART__HIDDEN bool dart__progress_active(void);

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

#endif /* DART__ONESIDED_PROGRESS_H */
