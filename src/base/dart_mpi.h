/* Internal: process-wide state, MPI error checking and yielding waits. */
#ifndef DART__MPI_H
#define DART__MPI_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "dart_env.h"
#include "dart_log.h"

/* Process-wide runtime state. */
typedef struct {
  bool initialized;   /* between successful dart_init* and dart_exit       */
  bool mpi_owned;     /* DART called MPI_Init and must finalize it          */
  int thread_level;   /* MPI thread level actually provided                 */
  bool multithreaded; /* DART_THREAD_MULTIPLE granted to the user           */
  int myid;           /* global unit id                                     */
  int size;           /* number of units in DART_TEAM_ALL                   */
  MPI_Comm comm;      /* private duplicate of MPI_COMM_WORLD                */
  /* Node topology, honouring DART_SIM_NODE_SIZE: this unit's node index
   * (nodes numbered in order of their lowest global unit) and the number
   * of nodes. No unit keeps the node of every other unit. */
  int my_node;
  int num_nodes;
  int real_node_units; /* units on this unit's node as MPI sees it (shared
                          memory), whatever DART_SIM_NODE_SIZE says       */
} dart__global_t;

extern dart__global_t dart__g DART__HIDDEN;

/* Logs one line for a failed MPI call: function, call text, MPI message. */
DART__HIDDEN void dart__mpi_log_error(const char *func, const char *call,
                                      int rc);

/* Evaluate an MPI call; on failure log it and return DART_ERR_OTHER. */
#define DART__MPI(call)                                                        \
  do {                                                                         \
    int dart_mpi_rc_ = (call);                                                 \
    if (__builtin_expect(dart_mpi_rc_ != MPI_SUCCESS, 0)) {                    \
      dart__mpi_log_error(__func__, #call, dart_mpi_rc_);                      \
      return DART_ERR_OTHER;                                                   \
    }                                                                          \
  } while (0)

/* For cleanup paths that must go on: log a failed MPI call, continue. */
#define DART__MPI_LOG(call)                                                    \
  do {                                                                         \
    int dart_mpi_rc_ = (call);                                                 \
    if (__builtin_expect(dart_mpi_rc_ != MPI_SUCCESS, 0)) {                    \
      dart__mpi_log_error(__func__, #call, dart_mpi_rc_);                      \
    }                                                                          \
  } while (0)

/* Same, but jumps to a cleanup label after setting ret = DART_ERR_OTHER. */
#define DART__MPI_GOTO(call, ret, label)                                       \
  do {                                                                         \
    int dart_mpi_rc_ = (call);                                                 \
    if (__builtin_expect(dart_mpi_rc_ != MPI_SUCCESS, 0)) {                    \
      dart__mpi_log_error(__func__, #call, dart_mpi_rc_);                      \
      (ret) = DART_ERR_OTHER;                                                  \
      goto label;                                                              \
    }                                                                          \
  } while (0)

/*
 * Budget of MPI windows and communicators (DART_MAX_MPI_OBJECTS): MPICH
 * aborts when a process runs out of its 2048 context ids, so DART counts
 * what it creates and refuses to go past the budget. Left of the budget
 * on this unit; callers agree on the minimum over the team before a
 * collective creation. dart__mpi_objects_add counts created (n > 0) and
 * freed (n < 0) objects. dart__mpi_objects_refuse logs the refusal.
 */
DART__HIDDEN int dart__mpi_objects_left(void);
DART__HIDDEN void dart__mpi_objects_add(int n);
DART__HIDDEN dart_ret_t dart__mpi_objects_refuse(const char *func, int need);

/* Refuse calls before dart_init / after dart_exit. */
#define DART__CHECK_INIT()                                                     \
  DART__CHECK(dart__g.initialized, DART_ERR_NOTINIT,                           \
              "DART is not initialized (call dart_init first)")

/*
 * MPI_Test(req, done, MPI_STATUS_IGNORE) whose failure always comes back
 * as an error code, also under Open MPI, which reports failed non-blocking
 * collectives through MPI_COMM_WORLD's handler (mpi_errors.c).
 */
DART__HIDDEN int dart__mpi_test(MPI_Request *req, int *done);

/*
 * Waits for an MPI request without monopolising a core: polls
 * DART_SPIN_COUNT times, then yields the CPU between polls, then sleeps a
 * few microseconds between polls. Returns an MPI error code.
 */
DART__HIDDEN int dart__mpi_wait(MPI_Request *req);
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
 * counter. Spins for the first DART_SPIN_COUNT iterations, then yields,
 * then sleeps briefly.
 */
DART__HIDDEN void dart__backoff(uint64_t iteration);

/*
 * Step of a loop that polls memory (a lock word, an MCS flag) while it
 * waits for another unit: drives the MPI progress engine, then backs off.
 * The unit waited for may need this unit's MPI engine to finish what it
 * does (a get from this unit's memory, an atomic on it), and polling
 * shared memory never enters MPI by itself.
 */
DART__HIDDEN void dart__wait_poll(uint64_t iteration);

/* Drives the MPI progress engine once (also used by the progress thread
 * and by owners accessing memory that peers reach through MPI). */
DART__HIDDEN void dart__progress_drive(void);

/* Open MPI 4.x: shared-memory backing files named per process instead of
 * per communicator id (ompi_shm_names.c; call before any window exists). */
DART__HIDDEN void dart__ompi_unique_shm_names(void);

/* Node topology (topology.c): fills my_node / num_nodes. */
DART__HIDDEN dart_ret_t dart__topology_init(void);
DART__HIDDEN void dart__topology_fini(void);

#endif /* DART__MPI_H */
