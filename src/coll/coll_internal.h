/* Internal to src/coll: argument resolution and MPI count helpers. */
#ifndef DART__COLL_INTERNAL_H
#define DART__COLL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "../dart_datatype.h"
#include "../dart_mpi.h"
#include "../dart_team.h"
#include "../types/types_internal.h"

/*
 * Largest element count passed to MPI in one piece (INT_MAX). Larger
 * transfers are described by one derived "span" type. Tests lower it to
 * exercise that path with small buffers.
 */
extern size_t dart__coll_max_count DART__HIDDEN;

/* `nelem` elements of a contiguous type as an MPI (count, type) pair. */
typedef struct {
  int count;
  MPI_Datatype type;
  bool owned;   /* type was built for this call: free with span_free */
  size_t bytes; /* nelem * element size                           */
} dart__coll_span_t;

/*
 * Describes nelem elements of the contiguous type d for one MPI call: the
 * plain (nelem, element type) when nelem <= dart__coll_max_count, else
 * count 1 of a committed derived type covering all nelem elements whose
 * extent is exactly nelem elements (so per-unit blocks of scatter/gather
 * land at the right place).
 */
DART__HIDDEN dart_ret_t dart__coll_span(const char *func, const dart__type_t *d,
                                        size_t nelem, dart__coll_span_t *s);
DART__HIDDEN void dart__coll_span_free(dart__coll_span_t *s);

/*
 * dart__coll_begin for a contiguous dtype followed by dart__coll_span, for
 * the collectives that take counts beyond INT_MAX. With nelem == 0 only the
 * checks run (s describes nothing). The caller frees s.
 */
DART__HIDDEN dart_ret_t dart__coll_begin_span(const char *func,
                                              dart_team_t teamid,
                                              const int32_t *root,
                                              dart_datatype_t dtype,
                                              size_t nelem, dart__team_t **team,
                                              dart__coll_span_t *s);

/*
 * DART initialised, team known, *root in 0..size-1 (root may be NULL).
 * Logs one line naming func and the bad value on failure.
 */
DART__HIDDEN dart_ret_t dart__coll_team(const char *func, dart_team_t teamid,
                                        const int32_t *root,
                                        dart__team_t **team);

/*
 * Common argument checks of a collective, all on values that are identical
 * on every member (so all members fail together): DART initialised, team
 * known, *root in 0..size-1 (root may be NULL: no root), dtype a valid
 * contiguous type (basic_only: a basic type). Each failure logs one line
 * naming func and the bad value.
 */
DART__HIDDEN dart_ret_t dart__coll_begin(const char *func, dart_team_t teamid,
                                         const int32_t *root,
                                         dart_datatype_t dtype, bool basic_only,
                                         dart__team_t **team,
                                         const dart__type_t **d);

/*
 * Completes a non-blocking MPI call started with return code rc: logs and
 * returns DART_ERR_OTHER if rc or the yielding wait fails.
 */
DART__HIDDEN dart_ret_t dart__coll_complete(const char *func, const char *call,
                                            int rc, MPI_Request *req);
/* Maps the return code of a blocking MPI call (logging failures). */
DART__HIDDEN dart_ret_t dart__coll_check(const char *func, const char *call,
                                         int rc);

/*
 * How collectives and two-sided calls wait. YIELD: non-blocking MPI call +
 * yielding wait (dart__mpi_wait), so waiting units give their core away;
 * BLOCK: the blocking MPI call (MPI libraries run small collectives 2-4x
 * faster through it, but poll the CPU while they wait). AUTO defers to
 * DART_COLL_WAIT, whose own "auto" means BLOCK when this node runs no more
 * units of the job than it has online CPUs and nodes are not simulated,
 * else YIELD. dart__coll_wait_mode (default AUTO) lets tests and benchmarks
 * force a mode.
 */
enum { DART__COLL_WAIT_AUTO = 0, DART__COLL_WAIT_YIELD, DART__COLL_WAIT_BLOCK };
extern int dart__coll_wait_mode DART__HIDDEN;
DART__HIDDEN bool dart__coll_blocking(void);

/*
 * Runs one MPI operation as the blocking call or as the non-blocking call
 * completed by a yielding wait (see dart__coll_blocking). The non-blocking
 * call must store its request in `dart__req`. Sets ret to DART_OK or to
 * DART_ERR_OTHER (logged with the call's text).
 */
#define DART__COLL_RUN(ret, func, blocking, nonblocking)                       \
  do {                                                                         \
    if (dart__coll_blocking()) {                                               \
      (ret) = dart__coll_check((func), #blocking, (blocking));                 \
    } else {                                                                   \
      MPI_Request dart__req;                                                   \
      (ret) = dart__coll_complete((func), #nonblocking, (nonblocking),         \
                                  &dart__req);                                 \
    }                                                                          \
  } while (0)

/* Expression: logs one error line for func and yields DART_ERR_INVAL. */
#define DART__COLL_INVAL(func, ...)                                            \
  ((DART__LOG_ERROR <= dart__log_level                                         \
        ? dart__log(DART__LOG_ERROR, (func), __VA_ARGS__)                      \
        : (void)0),                                                            \
   DART_ERR_INVAL)

#endif /* DART__COLL_INTERNAL_H */
