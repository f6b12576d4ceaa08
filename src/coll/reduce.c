/*
 * Reductions: dart_allreduce and dart_reduce.
 *
 * Predefined ops map to MPI's (arithmetic on every basic type, bitwise and
 * logical ops on the integer types), DART_OP_MINMAX to one MPI user op over
 * (min,max) pair types, and user ops to their own MPI op and datatype
 * duplicate (src/types/ops.c); MPI applies non-commutative ops in rank
 * order, which is DART's "increasing unit order".
 *
 * In place: sendbuf NULL or sendbuf == recvbuf means the caller's
 * contribution is in recvbuf (MPI_IN_PLACE; at a non-root unit of
 * dart_reduce it is simply sent from recvbuf).
 */
#include <inttypes.h>
#include <stdint.h>

#include "coll_internal.h"

/* A reduction resolved to MPI terms. */
typedef struct {
  MPI_Op op;
  MPI_Datatype type;
  int count;
  size_t bytes; /* size of the whole send/receive buffer: count elements
                   of type back to back (user ops need a contiguous type) */
} dart__red_t;

/* User op: dtype must be the op's datatype (checked without a lookup, so
 * an op created with dtype_is_tmp keeps working). */
static dart_ret_t red_user(const char *func, size_t nelem,
                           dart_datatype_t dtype, dart_operation_t op,
                           dart__red_t *r)
{
  const dart__user_op_t *u = dart__op_user(op);
  if (u == NULL)
    return DART__COLL_INVAL(
        func, "invalid op %" PRIuPTR " (destroyed or never created)", op);
  if (dtype != u->dtype)
    return DART__COLL_INVAL(func,
                            "datatype %" PRIdPTR " differs from the "
                            "datatype %" PRIdPTR " of user op %" PRIuPTR,
                            dtype, u->dtype, op);
  r->op = u->mpi_op;
  r->type = u->mpi_type;
  r->count = (int)nelem;
  r->bytes = nelem * u->elem_size;
  return DART_OK;
}

/* Predefined op on a basic type, including MINMAX. */
static dart_ret_t red_predefined(const char *func, size_t nelem,
                                 dart_datatype_t dtype, dart_operation_t op,
                                 dart__red_t *r)
{
  const dart__type_t *d = dart__type_get(dtype);
  if (DART__UNLIKELY(d == NULL)) return dart__coll_fail_type(func, dtype, true);
  if (d->kind != DART__TYPE_BASIC)
    return DART__COLL_INVAL(func,
                            "datatype %" PRIdPTR " is not a basic type "
                            "(predefined ops need one)",
                            dtype);
  r->bytes = nelem * d->base_size;
  if (op == DART_OP_MINMAX) {
    if (nelem % 2 != 0)
      return DART__COLL_INVAL(func,
                              "DART_OP_MINMAX needs an even nelem, "
                              "got %zu",
                              nelem);
    r->op = dart__op_minmax(dtype, &r->type);
    r->count = (int)(nelem / 2);
  } else {
    r->op = dart__op_mpi(op, dtype);
    r->type = d->mpi_elem;
    r->count = (int)nelem;
    if (op == DART_OP_REPLACE || op == DART_OP_NO_OP) r->op = MPI_OP_NULL;
  }
  if (r->op == MPI_OP_NULL)
    return DART__COLL_INVAL(func,
                            "op %" PRIuPTR " is not a reduction on "
                            "datatype %" PRIdPTR,
                            op, dtype);
  return DART_OK;
}

/*
 * Checks everything that is identical on all members (team, root, type,
 * op, nelem), so that a bad call fails on every member alike.
 */
static dart_ret_t red_begin(const char *func, dart_team_t teamid,
                            const int32_t *root, size_t nelem,
                            dart_datatype_t dtype, dart_operation_t op,
                            dart__team_t **team, dart__red_t *r)
{
  dart_ret_t ret = dart__coll_team(func, teamid, root, team);
  if (ret != DART_OK) return ret;
  if (nelem > INT_MAX)
    return DART__COLL_INVAL(func, "nelem %zu exceeds INT_MAX", nelem);
  if (op > DART_OP_LAST) return red_user(func, nelem, dtype, op, r);
  return red_predefined(func, nelem, dtype, op, r);
}

/* Do [a, a+n) and [b, b+n) overlap (without being identical)? */
static bool red_overlap(const void *a, const void *b, size_t n)
{
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return x != y && x < y + n && y < x + n;
}

/* The allreduce through shared memory (shm.c), watched and observed as
 * DART__COLL_RUN does for MPI's. */
static dart_ret_t red_shm(const char *func, dart__team_t *team,
                          const void *send, void *recv, const dart__red_t *r)
{
  uint64_t t0 = DART__OBS_T0();
  dart__coll_watch(func, "shared-memory allreduce", team, DART__WATCH_NONE);
  int rc =
      dart__coll_shm_allreduce(send, recv, r->bytes, r->count, r->type, r->op);
  dart__watch_end();
  DART__OBS_END(t0, dart__obs_coll_kind(func), DART__OBS_NONE, -1, 0);
  return rc == MPI_SUCCESS ? DART_OK
                           : dart__coll_fail_mpi(func, "MPI_Reduce_local", rc);
}

/* A unit with bad buffers in a shared-memory allreduce: warns the others,
 * takes part with zeros (dart__coll_standin's role), returns err. */
static dart_ret_t red_shm_standin(const char *func, dart_ret_t err,
                                  dart__team_t *team, const dart__red_t *r)
{
  _Alignas(64) char zeros[DART__COLL_SHM_SLOT] = {0}; /* as a slot is */
  dart__coll_warn(func, team, DART__COLL_ALLREDUCE, -1);
  (void)red_shm(func, team, zeros, zeros, r);
  return dart__coll_end(func, team, err);
}

dart_ret_t dart_allreduce(const void *sendbuf, void *recvbuf, size_t nelem,
                          dart_datatype_t dtype, dart_operation_t op,
                          dart_team_t teamid)
{
  dart__team_t *team;
  dart__red_t r;
  dart_ret_t ret =
      red_begin(__func__, teamid, NULL, nelem, dtype, op, &team, &r);
  if (ret != DART_OK || nelem == 0) return ret;
  if (recvbuf == NULL)
    ret =
        DART__COLL_INVAL(__func__, "recvbuf is NULL with %zu elements", nelem);
  else if (sendbuf != NULL && red_overlap(sendbuf, recvbuf, r.bytes))
    ret = DART__COLL_INVAL(__func__, "sendbuf overlaps recvbuf");
  bool shm = dart__coll_shm_fits(team, r.bytes);
  if (ret != DART_OK)
    return shm ? red_shm_standin(__func__, ret, team, &r)
               : dart__coll_standin(__func__, ret, team, DART__COLL_ALLREDUCE,
                                    r.count, r.type, r.bytes, -1, r.op);
  if (shm) {
    ret = red_shm(__func__, team, sendbuf != NULL ? sendbuf : recvbuf, recvbuf,
                  &r);
    return dart__coll_end(__func__, team, ret);
  }
  const void *send =
      (sendbuf == NULL || sendbuf == recvbuf) ? MPI_IN_PLACE : sendbuf;
  DART__COLL_RUN(
      ret, __func__, team, DART__WATCH_NONE,
      MPI_Allreduce(send, recvbuf, r.count, r.type, r.op, team->comm),
      MPI_Iallreduce(send, recvbuf, r.count, r.type, r.op, team->comm,
                     &dart__req));
  ret = dart__coll_end(__func__, team, ret);
  return ret;
}

dart_ret_t dart_reduce(const void *sendbuf, void *recvbuf, size_t nelem,
                       dart_datatype_t dtype, dart_operation_t op,
                       dart_team_unit_t root, dart_team_t teamid)
{
  dart__team_t *team;
  dart__red_t r;
  dart_ret_t ret =
      red_begin(__func__, teamid, &root.id, nelem, dtype, op, &team, &r);
  if (ret != DART_OK || nelem == 0) return ret;
  bool is_root = team->myid == root.id;
  bool in_place = sendbuf == NULL || sendbuf == recvbuf;
  const void *send = sendbuf;
  void *recv = recvbuf;
  if (is_root) {
    if (recvbuf == NULL)
      ret = DART__COLL_INVAL(__func__,
                             "recvbuf is NULL at root with %zu "
                             "elements",
                             nelem);
    else if (!in_place && red_overlap(sendbuf, recvbuf, r.bytes))
      ret = DART__COLL_INVAL(__func__, "sendbuf overlaps recvbuf");
    if (in_place) send = MPI_IN_PLACE;
  } else {
    if (in_place) send = recvbuf; /* contribution is in recvbuf */
    if (send == NULL)
      ret = DART__COLL_INVAL(__func__,
                             "sendbuf and recvbuf are NULL with "
                             "%zu elements",
                             nelem);
    recv = NULL; /* not significant at non-root units */
  }
  if (ret != DART_OK)
    return dart__coll_standin(__func__, ret, team, DART__COLL_REDUCE, r.count,
                              r.type, r.bytes, root.id, r.op);
  DART__COLL_RUN(
      ret, __func__, team, DART__WATCH_NONE,
      MPI_Reduce(send, recv, r.count, r.type, r.op, root.id, team->comm),
      MPI_Ireduce(send, recv, r.count, r.type, r.op, root.id, team->comm,
                  &dart__req));
  ret = dart__coll_end(__func__, team, ret);
  return ret;
}
