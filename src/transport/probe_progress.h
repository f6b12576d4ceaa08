/*
 * Internal: the progress probe of the capability probe
 * (transport/probe_progress.c). Collective over comm, returns 1 when the
 * MPI behaves as DART's default paths assume and 0 when DART must route
 * around it; the caller agrees the answer with the others.
 */
#ifndef DART__TRANSPORT_PROBE_PROGRESS_H
#define DART__TRANSPORT_PROBE_PROGRESS_H

#include <mpi.h>
#include <stdint.h>

#include "dart_log.h"

/* Words (int64) of the get probe's window. The memory layer makes the
 * window (over mem, in a lock_all epoch: globmem/probe_windows.c); the
 * transport issues and judges the calls. */
#define DART__PROBE_GET_WORDS 8192 /* 64 KiB: osc/ucx leaves it unmoved */

/* Whether an MPI_Rget's data lands while its origin waits in a collective
 * without calling MPI on the get's request. */
DART__HIDDEN int dart__probe_get_moves(MPI_Win w, int64_t *mem, MPI_Comm comm,
                                       int size, int rank);

#endif /* DART__TRANSPORT_PROBE_PROGRESS_H */
