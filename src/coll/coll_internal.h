/*
 * Internal to src/coll: argument resolution, MPI count helpers, wait mode.
 *
 * The checks every call makes are inline and touch only tables (team table,
 * basic-type table); everything that logs or builds MPI objects is out of
 * line in coll_common.c, so a small collective costs little more than the
 * MPI call itself.
 */
#ifndef DART__COLL_INTERNAL_H
#define DART__COLL_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/dart_datatype.h"
#include "dart_mpi.h"
#include "dart_observe.h"
#include "dart_policy.h"
#include "team/dart_team.h"
#include "dart_watch.h"
#include "../types/types_internal.h"
#include "dart_coll_shm.h"
#include "transport/wait.h"

#define DART__LIKELY(x) __builtin_expect(!!(x), 1)
#define DART__UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Expression: logs one error line for func and yields DART_ERR_INVAL. */
#define DART__COLL_INVAL(func, ...)                                            \
  ((DART__LOG_ERROR <= dart__log_level                                         \
        ? dart__log(DART__LOG_ERROR, (func), __VA_ARGS__)                      \
        : (void)0),                                                            \
   DART_ERR_INVAL)

/* ---- out-of-line slow paths (coll_common.c) ---------------------------- */

/* Logs why (DART, team, root) were rejected and returns the code. */
DART__HIDDEN dart_ret_t dart__coll_fail_team(const char *func,
                                             dart_team_t teamid,
                                             const int32_t *root);
/* Logs why dtype was rejected and returns DART_ERR_INVAL. */
DART__HIDDEN dart_ret_t dart__coll_fail_type(const char *func,
                                             dart_datatype_t dtype,
                                             bool basic_only);
/* Logs a failed MPI call and returns DART_ERR_OTHER. */
DART__HIDDEN dart_ret_t dart__coll_fail_mpi(const char *func, const char *call,
                                            int rc);

/* ---- argument checks --------------------------------------------------- */

/*
 * DART initialised, team known, *root in 0..size-1 (root may be NULL).
 * These values are identical on all members, so all members fail alike.
 */
static inline dart_ret_t dart__coll_team(const char *func, dart_team_t teamid,
                                         const int32_t *root,
                                         dart__team_t **team)
{
  dart__team_t *t = dart__g.initialized ? dart__team_get(teamid) : NULL;
  *team = t;
  if (DART__UNLIKELY(t == NULL ||
                     (root != NULL && (*root < 0 || *root >= t->size))))
    return dart__coll_fail_team(func, teamid, root);
  return DART_OK;
}

/* dart__coll_team plus: dtype valid and contiguous (basic_only: basic). */
static inline dart_ret_t dart__coll_begin(const char *func, dart_team_t teamid,
                                          const int32_t *root,
                                          dart_datatype_t dtype,
                                          bool basic_only, dart__team_t **team,
                                          const dart__type_t **d)
{
  dart_ret_t ret = dart__coll_team(func, teamid, root, team);
  if (DART__UNLIKELY(ret != DART_OK)) return ret;
  const dart__type_t *t = dart__type_get(dtype);
  *d = t;
  if (DART__UNLIKELY(t == NULL || !dart__type_is_contiguous(t) ||
                     (basic_only && t->kind != DART__TYPE_BASIC)))
    return dart__coll_fail_type(func, dtype, basic_only);
  return DART_OK;
}

/* ---- element counts ---------------------------------------------------- */

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

/* Builds the span type for nelem > dart__coll_max_count (see below). */
DART__HIDDEN dart_ret_t dart__coll_span_large(const char *func,
                                              const dart__type_t *d,
                                              size_t nelem,
                                              dart__coll_span_t *s);
DART__HIDDEN void dart__coll_span_release(dart__coll_span_t *s);

/*
 * Describes nelem elements of the contiguous type d for one MPI call: the
 * plain (nelem, element type) when nelem <= dart__coll_max_count, else
 * count 1 of a committed derived type covering all nelem elements whose
 * extent is exactly nelem elements (so per-unit blocks of scatter/gather
 * land at the right place).
 */
static inline dart_ret_t dart__coll_span(const char *func,
                                         const dart__type_t *d, size_t nelem,
                                         dart__coll_span_t *s)
{
  s->bytes = nelem * d->base_size;
  s->owned = false;
  s->type = d->mpi_inst;
  s->count = (int)nelem;
  if (DART__LIKELY(nelem <= dart__coll_max_count)) return DART_OK;
  return dart__coll_span_large(func, d, nelem, s);
}

static inline void dart__coll_span_free(dart__coll_span_t *s)
{
  if (DART__UNLIKELY(s->owned)) dart__coll_span_release(s);
}

/*
 * dart__coll_begin for a contiguous dtype followed by dart__coll_span, for
 * the collectives that take counts beyond INT_MAX. With nelem == 0 only the
 * checks run (s describes nothing). The caller frees s.
 */
static inline dart_ret_t
dart__coll_begin_span(const char *func, dart_team_t teamid, const int32_t *root,
                      dart_datatype_t dtype, size_t nelem, dart__team_t **team,
                      dart__coll_span_t *s)
{
  const dart__type_t *d;
  s->owned = false;
  dart_ret_t ret = dart__coll_begin(func, teamid, root, dtype, false, team, &d);
  if (ret != DART_OK) return ret;
  return dart__coll_span(func, d, nelem, s);
}

/* Completes (or, never received, releases) the sends of p2p.c that
 * completed without their caller; from dart__coll_fini at dart_exit. */
DART__HIDDEN void dart__p2p_fini(void);

/* ---- completion -------------------------------------------------------- */

/*
 * How collectives and two-sided calls wait. YIELD: non-blocking MPI call +
 * yielding wait (dart__mpi_wait), so waiting units give their core away;
 * BLOCK: the blocking MPI call (MPI libraries run small collectives 2-4x
 * faster through it, but poll the CPU while they wait). AUTO follows the
 * runtime's policy (dart_policy.h, decided in runtime/policy.c from
 * DART_COLL_WAIT and, on oversubscribed nodes, a probe; one value for the
 * whole job). dart__coll_wait_mode (default AUTO) lets tests and
 * benchmarks force a mode.
 */
enum { DART__COLL_WAIT_AUTO = 0, DART__COLL_WAIT_YIELD, DART__COLL_WAIT_BLOCK };
extern int dart__coll_wait_mode DART__HIDDEN;

/* AUTO's decision: the policy's coll_block, kept by dart__coll_init. */
extern bool dart__coll_auto_block DART__HIDDEN;

static inline bool dart__coll_blocking(void)
{
  int mode = dart__coll_wait_mode;
  if (DART__LIKELY(mode == DART__COLL_WAIT_AUTO)) return dart__coll_auto_block;
  return mode == DART__COLL_WAIT_BLOCK;
}

/*
 * Completes a non-blocking MPI call started with return code rc: logs and
 * returns DART_ERR_OTHER if rc or the yielding wait fails.
 */
DART__HIDDEN dart_ret_t dart__coll_complete(const char *func, const char *call,
                                            int rc, MPI_Request *req);

/* Maps the return code of a blocking MPI call (logging failures). */
static inline dart_ret_t dart__coll_check(const char *func, const char *call,
                                          int rc)
{
  if (DART__LIKELY(rc == MPI_SUCCESS)) return DART_OK;
  return dart__coll_fail_mpi(func, call, rc);
}

/* Data collectives, for the stand-in and the bad-argument protocol. */
typedef enum {
  DART__COLL_BCAST,
  DART__COLL_SCATTER,
  DART__COLL_GATHER,
  DART__COLL_ALLGATHER,
  DART__COLL_ALLGATHERV,
  DART__COLL_ALLTOALL,
  DART__COLL_ALLREDUCE,
  DART__COLL_REDUCE
} dart__coll_kind_t;

/* ---- one unit's bad argument (bad.c) ----------------------------------- */

/*
 * Per team id, three words of this unit's memory that the team's other
 * units reach by RMA: [0] the flag a unit with a bad argument writes, [1]
 * the number of the team's collectives this unit has finished, [2] what
 * this unit sends in its current or last allgatherv (bad.c).
 */
enum { DART__COLL_WORDS = 3 };
extern _Atomic uint64_t *dart__coll_words DART__HIDDEN;

/* Word [2]'s count for an allgatherv that ended without MPI on this unit
 * (all counts zero, or counts rejected: alike on every unit). */
#define DART__COLL_NOMPI UINT32_MAX
/* Set in word [2]'s count (at most INT_MAX) when the allgatherv goes
 * through shared memory (shm.c) instead of MPI. */
#define DART__COLL_SHMBIT UINT32_C(0x80000000)

/*
 * Publishes, before an allgatherv (the team's next collective) reaches MPI
 * or ends without it, the number of elements this unit sends in it (or
 * DART__COLL_NOMPI): (sequence number mod 2^32) << 32 | count. A unit that
 * lacks the count arrays reads these words (dart__coll_counts).
 */
static inline void dart__coll_publish(const dart__team_t *team, uint32_t count)
{
  _Atomic uint64_t *w = dart__coll_words + DART__COLL_WORDS * (size_t)team->id;
  uint64_t seq = atomic_load_explicit(&w[1], memory_order_relaxed) + 1;
  atomic_store_explicit(&w[2], (seq << 32) | count, memory_order_release);
}

/*
 * For an allgatherv whose count arrays this unit lacks: reads the count
 * every other unit of the team published for this call (waiting until it
 * has) into icnt[unit]. *mpi becomes false if the call ended without MPI
 * on the others (then icnt is incomplete and nothing must be sent); *shm
 * true if they take shared memory (DART__COLL_SHMBIT).
 * Returns DART_OK, or DART_ERR_NOMEM / DART_ERR_OTHER (logged).
 */
DART__HIDDEN dart_ret_t dart__coll_counts(const char *func,
                                          const dart__team_t *team, int *icnt,
                                          bool *mpi, bool *shm);

/* The flag word was set: returns DART_ERR_INVAL (logged) if it names
 * collective seq, else ret. */
DART__HIDDEN dart_ret_t dart__coll_flagged(const char *func,
                                           const dart__team_t *team,
                                           uint64_t flag, uint64_t seq,
                                           dart_ret_t ret);

/*
 * Ends every data collective that reached MPI, on every unit, bad or not:
 * counts it, and turns ret into DART_ERR_INVAL if a unit whose data this
 * unit received had a bad argument. One local load and one store.
 */
static inline dart_ret_t
dart__coll_end(const char *func, const dart__team_t *team, dart_ret_t ret)
{
  _Atomic uint64_t *w = dart__coll_words + DART__COLL_WORDS * (size_t)team->id;
  uint64_t seq = atomic_load_explicit(&w[1], memory_order_relaxed) + 1;
  uint64_t flag = atomic_load_explicit(&w[0], memory_order_acquire);
  if (DART__UNLIKELY(flag != 0))
    ret = dart__coll_flagged(func, team, flag, seq, ret);
  atomic_store_explicit(&w[1], seq, memory_order_release);
  return ret;
}

/*
 * Called by a unit whose buffers failed its local checks, before it joins
 * the collective: flags the error in the memory of every unit whose result
 * depends on this unit's data (root: the root of gather/reduce; all units:
 * the root of bcast/scatter and every unit of the unrooted collectives).
 */
DART__HIDDEN void dart__coll_warn(const char *func, const dart__team_t *team,
                                  dart__coll_kind_t kind, int root);

/*
 * A unit whose buffers failed its local checks (NULL, overlapping) warns
 * its dependents (dart__coll_warn), then takes part in the team's
 * collective with zero-filled scratch buffers (count elements of type per
 * block, block_bytes bytes each), so that no peer waits for it forever,
 * and ends it (dart__coll_end). Returns err, the local error. Arguments
 * that are equal on all units by contract (team, root, type, count, op)
 * fail alike everywhere and need no stand-in. Not for allgatherv (its own
 * stand-in is in coll.c).
 */
DART__HIDDEN dart_ret_t dart__coll_standin(const char *func, dart_ret_t err,
                                           dart__team_t *team,
                                           dart__coll_kind_t kind, int count,
                                           MPI_Datatype type,
                                           size_t block_bytes, int root,
                                           MPI_Op op);

/*
 * Publishes a collective (team != NULL: numbered by its sequence on the
 * team) or a send/receive with unit for the watchdog; returns the wait's
 * sequence number.
 */
static inline void dart__coll_watch(const char *func, const char *what,
                                    dart__team_t *team, int unit)
{
  long seq = -1;
  if (team != NULL) seq = ++team->coll_seq;
  DART__WATCH(func, what, team != NULL ? (int)team->id : DART__WATCH_NONE,
              DART__WATCH_NONE, unit, seq);
}

/*
 * Runs one MPI operation as the blocking call or as the non-blocking call
 * completed by a yielding wait (see dart__coll_blocking). The non-blocking
 * call must store its request in `dart__req`. Sets ret to DART_OK or to
 * DART_ERR_OTHER (logged with the call's text). team (or NULL for
 * send/receive, then unit names the peer) describes the wait to the
 * watchdog.
 */
#define DART__COLL_RUN(ret, func, team, unit, blocking, nonblocking)           \
  do {                                                                         \
    uint64_t dart__t0 = DART__OBS_T0();                                        \
    if (dart__coll_blocking()) {                                               \
      dart__coll_watch((func), #blocking, (team), (unit));                     \
      (ret) = dart__coll_check((func), #blocking, (blocking));                 \
    } else {                                                                   \
      MPI_Request dart__req;                                                   \
      dart__coll_watch((func), #nonblocking, (team), (unit));                  \
      (ret) = dart__coll_complete((func), #nonblocking, (nonblocking),         \
                                  &dart__req);                                 \
    }                                                                          \
    dart__watch_end();                                                         \
    DART__OBS_END(dart__t0, dart__obs_coll_kind(func), DART__OBS_NONE,         \
                  (unit) == DART__WATCH_NONE ? -1 : (unit), 0);                \
  } while (0)

/* ---- DART_TEAM_ALL through shared memory (shm.c) ----------------------- */

/* Whether a data collective moving bytes per unit on team goes through
 * the slots: the same answer on every unit for the same call. */
DART__HIDDEN bool dart__coll_shm_fits(const dart__team_t *team, size_t bytes);
/* The allreduce of count elements of type (bytes in all, contiguous)
 * from send (may be recv) into recv with op; an MPI error code (from
 * MPI_Reduce_local, after every unit has passed the barrier). */
DART__HIDDEN int dart__coll_shm_allreduce(const void *send, void *recv,
                                          size_t bytes, int count,
                                          MPI_Datatype type, MPI_Op op);
/* The bcast of bytes at buf from DART_TEAM_ALL's unit root. buf NULL:
 * a stand-in (a unit with a bad buffer); a root stand-in sends zeros. */
DART__HIDDEN void dart__coll_shm_bcast(void *buf, size_t bytes, int root);
/* The allgather of bytes per unit from send into recv (n blocks of bytes;
 * send may be the caller's own block). send NULL: a stand-in, which
 * contributes zeros and receives nothing. */
DART__HIDDEN void dart__coll_shm_allgather(const void *send, void *recv,
                                           size_t bytes);
/* The allgatherv of sbytes from send into recv: unit u's icnt[u] elements
 * of esize bytes (at most a slot) land at element idsp[u] (send may be the
 * caller's own block). send NULL: a stand-in, as above. */
DART__HIDDEN void dart__coll_shm_allgatherv(const void *send, size_t sbytes,
                                            void *recv, const int *icnt,
                                            const int *idsp, size_t esize);

/* Module hooks (runtime/modules.c): the policy's collective wait mode
 * (coll_common.c); the window of the collectives' bad-argument flags
 * (bad.c, module "collflags": made after global memory, freed at exit;
 * team_fini clears a released team's flag words). */
DART__HIDDEN dart_ret_t dart__coll_init(const dart__policy_t *policy);
DART__HIDDEN dart_ret_t dart__coll_flags_init(void);
DART__HIDDEN dart_ret_t dart__coll_fini(void);
DART__HIDDEN dart_ret_t dart__coll_team_fini(const char *func,
                                             dart__team_t *team);

#endif /* DART__COLL_INTERNAL_H */
