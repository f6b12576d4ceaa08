/*
 * Internal (base): the process-wide state dart__g (defined in base/state.c,
 * filled by the runtime's dart_init) and MPI error checking. Waits are the
 * transport's (transport/wait.h), the MPI-object budget the memory layer's
 * (globmem/dart_segment.h), the node topology the runtime's.
 */
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

/* Refuse calls before dart_init / after dart_exit. */
#define DART__CHECK_INIT()                                                     \
  DART__CHECK(dart__g.initialized, DART_ERR_NOTINIT,                           \
              "DART is not initialized (call dart_init first)")

#endif /* DART__MPI_H */
