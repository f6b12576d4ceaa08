/* Shared helpers of the collectives: argument checks, large counts, waits. */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "coll_internal.h"

size_t dart__coll_max_count = INT_MAX;

dart_ret_t dart__coll_fail_team(const char *func, dart_team_t teamid,
                                const int32_t *root)
{
  if (!dart__g.initialized) {
    DART__LOG_ERROR_IN(func, "DART is not initialized (call dart_init first)");
    return DART_ERR_NOTINIT;
  }
  dart__team_t *team = dart__team_lookup(func, teamid);
  if (team == NULL) return DART_ERR_INVAL;
  return DART__COLL_INVAL(func,
                          "root %" PRId32 " out of range 0..%d of team %d",
                          root ? *root : -1, team->size - 1, (int)teamid);
}

dart_ret_t dart__coll_fail_type(const char *func, dart_datatype_t dtype,
                                bool basic_only)
{
  const dart__type_t *d = dart__type_lookup(func, dtype);
  if (d == NULL) return DART_ERR_INVAL;
  if (basic_only && d->kind != DART__TYPE_BASIC)
    return DART__COLL_INVAL(func, "datatype %" PRIdPTR " is not a basic type",
                            dtype);
  return DART__COLL_INVAL(func,
                          "datatype %" PRIdPTR " is not contiguous "
                          "(strided/indexed types are not allowed here)",
                          dtype);
}

dart_ret_t dart__coll_fail_mpi(const char *func, const char *call, int rc)
{
  dart__mpi_log_error(func, call, rc);
  return DART_ERR_OTHER;
}

int dart__coll_wait_mode = DART__COLL_WAIT_AUTO;

bool dart__coll_auto_block;

dart_ret_t dart__coll_init(const dart__policy_t *policy)
{
  dart__coll_auto_block = policy->coll_block;
  return DART_OK;
}

dart_ret_t dart__coll_complete(const char *func, const char *call, int rc,
                               MPI_Request *req)
{
  if (rc == MPI_SUCCESS) rc = dart__mpi_wait(req);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, call, rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* Starts the stand-in's MPI call of kind k (non-blocking form). */
static int standin_start(dart__coll_kind_t k, char *a, char *b, int n,
                         MPI_Datatype t, int root, MPI_Op op, MPI_Comm c,
                         MPI_Request *req)
{
  switch (k) {
  case DART__COLL_BCAST: return MPI_Ibcast(a, n, t, root, c, req);
  case DART__COLL_SCATTER: return MPI_Iscatter(a, n, t, b, n, t, root, c, req);
  case DART__COLL_GATHER: return MPI_Igather(a, n, t, b, n, t, root, c, req);
  case DART__COLL_ALLGATHER: return MPI_Iallgather(a, n, t, b, n, t, c, req);
  case DART__COLL_ALLTOALL: return MPI_Ialltoall(a, n, t, b, n, t, c, req);
  case DART__COLL_ALLREDUCE: return MPI_Iallreduce(a, b, n, t, op, c, req);
  default: return MPI_Ireduce(a, b, n, t, op, root, c, req);
  }
}

/* The same, blocking. */
static int standin_block(dart__coll_kind_t k, char *a, char *b, int n,
                         MPI_Datatype t, int root, MPI_Op op, MPI_Comm c)
{
  switch (k) {
  case DART__COLL_BCAST: return MPI_Bcast(a, n, t, root, c);
  case DART__COLL_SCATTER: return MPI_Scatter(a, n, t, b, n, t, root, c);
  case DART__COLL_GATHER: return MPI_Gather(a, n, t, b, n, t, root, c);
  case DART__COLL_ALLGATHER: return MPI_Allgather(a, n, t, b, n, t, c);
  case DART__COLL_ALLTOALL: return MPI_Alltoall(a, n, t, b, n, t, c);
  case DART__COLL_ALLREDUCE: return MPI_Allreduce(a, b, n, t, op, c);
  default: return MPI_Reduce(a, b, n, t, op, root, c);
  }
}

dart_ret_t dart__coll_standin(const char *func, dart_ret_t err,
                              dart__team_t *team, dart__coll_kind_t kind,
                              int count, MPI_Datatype type, size_t block_bytes,
                              int root, MPI_Op op)
{
  /* Every form fits in two buffers of one block per unit. */
  size_t span = block_bytes * (size_t)team->size;
  char *a = calloc(2, span > 0 ? span : 1);
  if (a == NULL) {
    DART__LOG_ERROR_IN(func, "out of memory for the stand-in buffers of a "
                             "failed call: the other units may wait");
    return err;
  }
  dart__coll_warn(func, team, kind, root);
  int rc;
  dart__coll_watch(func, "stand-in collective", team, DART__WATCH_NONE);
  if (dart__coll_blocking()) {
    rc = standin_block(kind, a, a + span, count, type, root, op, team->comm);
  } else {
    MPI_Request req;
    rc = standin_start(kind, a, a + span, count, type, root, op, team->comm,
                       &req);
    if (rc == MPI_SUCCESS) rc = dart__mpi_wait(&req);
  }
  dart__watch_end();
  if (rc != MPI_SUCCESS) dart__mpi_log_error(func, "stand-in collective", rc);
  free(a);
  return dart__coll_end(func, team, err);
}

/*
 * Builds the derived type of a large span: q chunks of C elements plus r
 * remaining elements, resized to an extent of exactly nelem elements.
 */
static int span_build(MPI_Datatype elem, size_t esize, size_t nelem,
                      MPI_Datatype *out)
{
  size_t c = dart__coll_max_count, q = nelem / c, r = nelem % c;
  MPI_Datatype chunk = MPI_DATATYPE_NULL, body = MPI_DATATYPE_NULL,
               rest = MPI_DATATYPE_NULL, whole = MPI_DATATYPE_NULL;
  int rc = MPI_Type_contiguous((int)c, elem, &chunk);
  if (rc == MPI_SUCCESS) rc = MPI_Type_contiguous((int)q, chunk, &body);
  if (rc == MPI_SUCCESS && r > 0) {
    rc = MPI_Type_contiguous((int)r, elem, &rest);
    int lens[2] = {1, 1};
    MPI_Aint displs[2] = {0, (MPI_Aint)(q * c * esize)};
    MPI_Datatype parts[2] = {body, rest};
    if (rc == MPI_SUCCESS)
      rc = MPI_Type_create_struct(2, lens, displs, parts, &whole);
  } else if (rc == MPI_SUCCESS) {
    rc = MPI_Type_dup(body, &whole);
  }
  if (rc == MPI_SUCCESS)
    rc = MPI_Type_create_resized(whole, 0, (MPI_Aint)(nelem * esize), out);
  if (rc == MPI_SUCCESS) rc = MPI_Type_commit(out);
  MPI_Datatype *tmp[4] = {&chunk, &body, &rest, &whole};
  for (int i = 0; i < 4; i++)
    if (*tmp[i] != MPI_DATATYPE_NULL) MPI_Type_free(tmp[i]);
  return rc;
}

dart_ret_t dart__coll_span_large(const char *func, const dart__type_t *d,
                                 size_t nelem, dart__coll_span_t *s)
{
  if (nelem / dart__coll_max_count > INT_MAX ||
      nelem > (size_t)PTRDIFF_MAX / d->base_size) {
    DART__LOG_ERROR_IN(func, "nelem %zu too large", nelem);
    return DART_ERR_INVAL;
  }
  MPI_Datatype t = MPI_DATATYPE_NULL;
  int rc = span_build(d->mpi_inst, d->base_size, nelem, &t);
  if (rc != MPI_SUCCESS) {
    if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
    dart__mpi_log_error(func, "building the large-count MPI type", rc);
    return DART_ERR_OTHER;
  }
  s->type = t;
  s->count = 1;
  s->owned = true;
  return DART_OK;
}

void dart__coll_span_release(dart__coll_span_t *s)
{
  if (s->owned && s->type != MPI_DATATYPE_NULL) MPI_Type_free(&s->type);
  s->owned = false;
}
