/*
 * Internal: the transport's wait engine (transport/wait.c, request.c).
 * Every DART loop that waits for another unit goes through here: a
 * request by dart__mpi_wait (MPI_Test drives progress), polled memory by
 * dart__wait_poll, and every blocking collective of DART by its
 * non-blocking form and a yielding wait. Below the memory layer, the
 * operations and the runtime; above base and the teams.
 */
#ifndef DART__TRANSPORT_WAIT_H
#define DART__TRANSPORT_WAIT_H

#include <stdint.h>

#include "dart_mpi.h"

/*
 * MPI_Test(req, done, MPI_STATUS_IGNORE) whose failure always comes back
 * as an error code, also under Open MPI, which reports failed non-blocking
 * collectives through MPI_COMM_WORLD's handler (request.c).
 */
DART__HIDDEN int dart__mpi_test(MPI_Request *req, int *done);

/*
 * Waits for an MPI request without monopolising a core: polls
 * DART_SPIN_COUNT times, then yields the CPU between polls, then sleeps a
 * few microseconds between polls. Returns an MPI error code.
 */
DART__HIDDEN int dart__mpi_wait(MPI_Request *req);
/* dart__mpi_wait of a point-to-point request whose status is wanted. */
DART__HIDDEN int dart__mpi_wait_status(MPI_Request *req, MPI_Status *st);
DART__HIDDEN int dart__mpi_waitall(int n, MPI_Request *reqs);

/*
 * Yielding rendezvous (MPI_Ibarrier + dart__mpi_wait). Called before a
 * blocking MPI collective that has no non-blocking form (communicator and
 * window creation) so that units wait here, politely, instead of inside
 * MPI's busy-polling loop when ranks outnumber cores.
 */
DART__HIDDEN int dart__mpi_rendezvous(MPI_Comm comm);

/* Non-blocking MPI_Allreduce / MPI_Allgather / MPI_Exscan followed by a
 * yielding wait. */
DART__HIDDEN int dart__mpi_allreduce(const void *send, void *recv, int count,
                                     MPI_Datatype type, MPI_Op op,
                                     MPI_Comm comm);
DART__HIDDEN int dart__mpi_allgather(const void *send, int count,
                                     MPI_Datatype type, void *recv,
                                     MPI_Comm comm);
DART__HIDDEN int dart__mpi_exscan(const void *send, void *recv, int count,
                                  MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/*
 * Backoff step for any DART wait loop: call with an increasing iteration
 * counter. Spins for the first dart__wait_spins() iterations, then yields,
 * then sleeps briefly.
 */
DART__HIDDEN void dart__backoff(uint64_t iteration);

/* The polls before a wait yields: DART_SPIN_COUNT, or for -1 (auto) what
 * dart__wait_set_node set (200 until then). */
DART__HIDDEN uint64_t dart__wait_spins(void);

/* Whether this unit's node has a CPU per unit of the job: decides the
 * spins of DART_SPIN_COUNT=-1 (runtime/policy.c, at dart_init). */
DART__HIDDEN void dart__wait_set_node(bool dedicated);

/*
 * Step of a loop that polls memory (a lock word, an MCS flag) while it
 * waits for another unit: drives the MPI progress engine, then backs off.
 * The unit waited for may need this unit's MPI engine to finish what it
 * does (a get from this unit's memory, an atomic on it), and polling
 * shared memory never enters MPI by itself.
 */
DART__HIDDEN void dart__wait_poll(uint64_t iteration);

/*
 * Step of a loop in which a whole team polls shared memory (dart_barrier's
 * counter): drives the MPI progress engine every 64th step only, spins
 * DART_SPIN_COUNT steps, then yields for many more steps than
 * dart__wait_poll before it sleeps, because a barrier's latency is the
 * wake-up of its waiters.
 */
DART__HIDDEN void dart__wait_poll_team(uint64_t iteration);

/* Drives the MPI progress engine once (also used by the progress thread
 * and by owners accessing memory that peers reach through MPI). */
DART__HIDDEN void dart__progress_drive(void);

/* Open MPI 4.x: shared-memory backing files named per process instead of
 * per communicator id (ompi_shm_names.c; call before any window exists). */
DART__HIDDEN void dart__ompi_unique_shm_names(void);

/* The same, before a window over existing memory or of MPI's own is made
 * on a communicator of comm_size processes: only where fewer than the
 * job's (a disjoint communicator may share its context id). */
DART__HIDDEN void dart__ompi_shm_names_before_window(int comm_size);

/*
 * The point-to-point waits of the collectives (coll/p2p.c), in the engine
 * like every other wait: dart__mpi_probe_wait waits until a message
 * (src, tag) is on one of comms[0..n-1]; *which and *st say where and
 * what. Returns an MPI error code.
 */
DART__HIDDEN int dart__mpi_probe_wait(int src, int tag, const MPI_Comm *comms,
                                      int n, int *which, MPI_Status *st);

#endif /* DART__TRANSPORT_WAIT_H */
