/*
 * Two-sided communication: dart_send, dart_recv, dart_sendrecv.
 *
 * Always on DART's private duplicate of MPI_COMM_WORLD (dart__g.comm), so
 * DART messages never match the application's own MPI traffic; unit ids
 * are global. Matching is on (source, tag), MPI's non-overtaking rule gives
 * the required ordering. Waits follow dart__coll_blocking (yielding unless
 * the node has a core per unit). A count of zero still sends/receives an
 * empty message, so both sides stay matched.
 */
#include <inttypes.h>
#include <stdatomic.h>

#include "coll_internal.h"

/* Largest tag MPI accepts on dart__g.comm (queried once). */
static int p2p_tag_ub(void)
{
  static _Atomic int cached;
  int ub = atomic_load_explicit(&cached, memory_order_relaxed);
  if (ub > 0) return ub;
  int *val = NULL, flag = 0;
  if (MPI_Comm_get_attr(dart__g.comm, MPI_TAG_UB, &val, &flag) == MPI_SUCCESS &&
      flag && val != NULL)
    ub = *val;
  else
    ub = 32767; /* the minimum MPI guarantees */
  atomic_store_explicit(&cached, ub, memory_order_relaxed);
  return ub;
}

/* Validates one side of a two-sided transfer; *d receives the type. */
static dart_ret_t p2p_check(const char *func, const char *bufname,
                            const void *buf, size_t nelem,
                            dart_datatype_t dtype, int tag, int32_t unit,
                            const dart__type_t **d)
{
  if (!dart__g.initialized) {
    DART__LOG_ERROR_IN(func, "DART is not initialized (call dart_init first)");
    return DART_ERR_NOTINIT;
  }
  if (unit < 0 || unit >= dart__g.size)
    return DART__COLL_INVAL(func, "unit %" PRId32 " out of range 0..%d", unit,
                            dart__g.size - 1);
  if (tag < 0 || tag > p2p_tag_ub())
    return DART__COLL_INVAL(func, "tag %d out of range 0..%d", tag,
                            p2p_tag_ub());
  *d = dart__type_get(dtype);
  if (DART__UNLIKELY(*d == NULL || !dart__type_is_contiguous(*d)))
    return dart__coll_fail_type(func, dtype, false);
  if (nelem > INT_MAX)
    return DART__COLL_INVAL(func, "nelem %zu exceeds INT_MAX", nelem);
  if (buf == NULL && nelem > 0)
    return DART__COLL_INVAL(func, "%s is NULL with %zu elements", bufname,
                            nelem);
  return DART_OK;
}

dart_ret_t dart_send(const void *sendbuf, size_t nelem, dart_datatype_t dtype,
                     int tag, dart_global_unit_t unit)
{
  const dart__type_t *d;
  dart_ret_t ret =
      p2p_check(__func__, "sendbuf", sendbuf, nelem, dtype, tag, unit.id, &d);
  if (ret != DART_OK) return ret;
  int n = (int)nelem;
  DART__COLL_RUN(ret, __func__, NULL, unit.id,
                 MPI_Send(sendbuf, n, d->mpi_inst, unit.id, tag, dart__g.comm),
                 MPI_Isend(sendbuf, n, d->mpi_inst, unit.id, tag, dart__g.comm,
                           &dart__req));
  return ret;
}

dart_ret_t dart_recv(void *recvbuf, size_t nelem, dart_datatype_t dtype,
                     int tag, dart_global_unit_t unit)
{
  const dart__type_t *d;
  dart_ret_t ret =
      p2p_check(__func__, "recvbuf", recvbuf, nelem, dtype, tag, unit.id, &d);
  if (ret != DART_OK) return ret;
  int n = (int)nelem;
  DART__COLL_RUN(ret, __func__, NULL, unit.id,
                 MPI_Recv(recvbuf, n, d->mpi_inst, unit.id, tag, dart__g.comm,
                          MPI_STATUS_IGNORE),
                 MPI_Irecv(recvbuf, n, d->mpi_inst, unit.id, tag, dart__g.comm,
                           &dart__req));
  return ret;
}

dart_ret_t dart_sendrecv(const void *sendbuf, size_t send_nelem,
                         dart_datatype_t send_dtype, int send_tag,
                         dart_global_unit_t dest, void *recvbuf,
                         size_t recv_nelem, dart_datatype_t recv_dtype,
                         int recv_tag, dart_global_unit_t src)
{
  const dart__type_t *sd, *rd;
  dart_ret_t ret = p2p_check(__func__, "sendbuf", sendbuf, send_nelem,
                             send_dtype, send_tag, dest.id, &sd);
  if (ret == DART_OK)
    ret = p2p_check(__func__, "recvbuf", recvbuf, recv_nelem, recv_dtype,
                    recv_tag, src.id, &rd);
  if (ret != DART_OK) return ret;
  if (dart__coll_blocking())
    return dart__coll_check(
        __func__, "MPI_Sendrecv",
        MPI_Sendrecv(sendbuf, (int)send_nelem, sd->mpi_inst, dest.id, send_tag,
                     recvbuf, (int)recv_nelem, rd->mpi_inst, src.id, recv_tag,
                     dart__g.comm, MPI_STATUS_IGNORE));
  /* Receive first: the partner's send then finds a posted receive. */
  MPI_Request req[2];
  int rc = MPI_Irecv(recvbuf, (int)recv_nelem, rd->mpi_inst, src.id, recv_tag,
                     dart__g.comm, &req[0]);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(__func__, "MPI_Irecv", rc);
    return DART_ERR_OTHER;
  }
  rc = MPI_Isend(sendbuf, (int)send_nelem, sd->mpi_inst, dest.id, send_tag,
                 dart__g.comm, &req[1]);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(__func__, "MPI_Isend", rc);
    MPI_Cancel(&req[0]);
    MPI_Request_free(&req[0]);
    return DART_ERR_OTHER;
  }
  rc = dart__mpi_waitall(2, req);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(__func__, "waiting for MPI_Irecv/MPI_Isend", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}
