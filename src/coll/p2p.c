/*
 * Two-sided communication: dart_send, dart_recv, dart_sendrecv.
 *
 * Always on DART's private duplicate of MPI_COMM_WORLD (dart__g.comm), so
 * DART messages never match the application's own MPI traffic; unit ids
 * are global. Matching is on (source, tag), MPI's non-overtaking rule gives
 * the required ordering. Waits follow dart__coll_blocking (yielding unless
 * the node has a core per unit). A count of zero still sends/receives an
 * empty message, so both sides stay matched.
 *
 * A bad argument on one side (docs/collectives.md, "Send and receive with a
 * bad argument"): when the partner can be addressed (DART initialised,
 * unit and tag valid) but the type, count or buffer is bad,
 *  - a sender sends a "notice" instead of its data: an empty synchronous
 *    message with the same tag on the point-to-point context of team ALL's
 *    communicator (ranks are global ids there, and DART sends nothing else
 *    on it). The receiver polls for it while its receive is pending,
 *    cancels the receive and returns DART_ERR_INVAL. The send is
 *    synchronous (except to the sender itself) so that the sender's next
 *    message, on dart__g.comm, cannot be matched by the receive the notice
 *    stands for; the bad sender therefore returns once the receiver has
 *    taken the notice;
 *  - a receiver takes (and drops) the message or notice its receive would
 *    have matched, so the sender does not wait forever and later messages
 *    stay in order; the sender returns DART_OK.
 * An unaddressable partner (unit out of range, bad tag) fails on the
 * caller only: nobody can be told, the partner waits (the DART_WATCHDOG
 * line names the wait).
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>

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

/* Can a message reach (unit, tag) at all? */
static dart_ret_t p2p_addr(const char *func, int tag, int32_t unit)
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
  return DART_OK;
}

/* The local arguments of one side: type, count, buffer; *d the type. */
static dart_ret_t p2p_local(const char *func, const char *bufname,
                            const void *buf, size_t nelem,
                            dart_datatype_t dtype, const dart__type_t **d)
{
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

/* Where notices travel: team ALL's communicator (p2p context unused). */
static MPI_Comm notice_comm(void)
{
  return dart__team_get(DART_TEAM_ALL)->comm;
}

/* Starts the notice of a sender with bad local arguments: synchronous,
 * except to itself (ordered by p2p_own_notice instead). */
static int p2p_notice_start(int tag, int unit, MPI_Request *req)
{
  if (unit == dart__g.myid)
    return MPI_Isend(NULL, 0, MPI_BYTE, unit, tag, notice_comm(), req);
  return MPI_Issend(NULL, 0, MPI_BYTE, unit, tag, notice_comm(), req);
}

/* Sender with bad local arguments: sends the notice and waits for it. */
static void p2p_notice(const char *func, int tag, int unit)
{
  MPI_Request req;
  dart__coll_watch(func, "telling the receiver about the bad argument", NULL,
                   unit);
  int rc = p2p_notice_start(tag, unit, &req);
  /* to itself: the receive comes later from this very caller, and a send
   * to oneself may not complete before (MPICH, 1 process): let it go */
  if (rc == MPI_SUCCESS && unit == dart__g.myid)
    rc = MPI_Request_free(&req);
  else if (rc == MPI_SUCCESS)
    rc = dart__mpi_wait(&req);
  dart__watch_end();
  if (rc != MPI_SUCCESS)
    dart__mpi_log_error(func, "telling the receiver about the bad argument",
                        rc);
}

/*
 * Receives and drops the message from (unit, tag) on comm that a probe
 * found (st). MPI_Iprobe + MPI_Recv, not the matched probe: MPICH 4.0's
 * MPI_Mrecv crashed on a message a process sent to itself. No other
 * receive of this unit takes messages of (unit, tag) meanwhile, unless
 * two of its threads receive from the same unit and tag at once (then MPI
 * does not order them either).
 */
static int p2p_drop(MPI_Comm comm, int unit, int tag, MPI_Status *st)
{
  int bytes = 0;
  int rc = MPI_Get_count(st, MPI_BYTE, &bytes);
  if (rc != MPI_SUCCESS) return rc;
  char one, *scratch = bytes > 1 ? malloc((size_t)bytes) : &one;
  if (scratch == NULL) {
    /* a receive of 0 bytes still takes the message (and fails with
     * MPI_ERR_TRUNCATE, which does not matter here) */
    MPI_Recv(&one, 0, MPI_BYTE, unit, tag, comm, MPI_STATUS_IGNORE);
    return MPI_SUCCESS;
  }
  rc = MPI_Recv(scratch, bytes, MPI_BYTE, unit, tag, comm, MPI_STATUS_IGNORE);
  if (scratch != &one) free(scratch);
  return rc;
}

/* Receiver with bad local arguments: takes and drops the message or
 * notice from (unit, tag), whichever comes. */
static void p2p_drain(const char *func, int tag, int unit)
{
  MPI_Comm comms[2] = {dart__g.comm, notice_comm()};
  MPI_Status st;
  int c = 0;
  dart__coll_watch(func, "dropping the message for the bad receive", NULL,
                   unit);
  int rc = dart__mpi_probe_wait(unit, tag, comms, 2, &c, &st);
  if (rc == MPI_SUCCESS) rc = p2p_drop(comms[c], unit, tag, &st);
  dart__watch_end();
  if (rc != MPI_SUCCESS)
    dart__mpi_log_error(func, "dropping the message for the bad receive", rc);
}

/* Takes the (empty) notice from (unit, tag). */
static int p2p_take_notice(int unit, int tag)
{
  char one;
  return MPI_Recv(&one, 0, MPI_BYTE, unit, tag, notice_comm(),
                  MPI_STATUS_IGNORE);
}

/*
 * Completes the receive req from (unit, tag), watching for the sender's
 * notice meanwhile: DART_OK, DART_ERR_INVAL (notice: receive cancelled,
 * logged) or DART_ERR_OTHER (logged).
 */
static dart_ret_t p2p_recv_wait(const char *func, MPI_Request *req, int tag,
                                int unit)
{
  int notice = 0;
  int rc = dart__mpi_wait_or_probe(req, unit, tag, notice_comm(), &notice);
  if (rc == MPI_SUCCESS && notice) {
    /* the sender sent nothing else (it waits for this notice): the
     * receive is still unmatched and cancels */
    rc = dart__mpi_cancel(req);
    if (rc == MPI_SUCCESS) rc = p2p_take_notice(unit, tag);
    if (rc == MPI_SUCCESS)
      return DART__COLL_INVAL(func,
                              "unit %d passed a bad argument to its send "
                              "with tag %d (see its log): nothing received",
                              unit, tag);
  }
  if (rc != MPI_SUCCESS) return dart__coll_fail_mpi(func, "MPI_Irecv", rc);
  return DART_OK;
}

/* The caller's own notice is not synchronous: a receive from itself takes
 * it before its MPI receive could match a later message. 1: taken. */
static int p2p_own_notice(int tag, int *rc)
{
  int notice = 0;
  *rc = dart__mpi_probe_once(dart__g.myid, tag, notice_comm(), &notice);
  if (*rc == MPI_SUCCESS && notice) *rc = p2p_take_notice(dart__g.myid, tag);
  return *rc == MPI_SUCCESS && notice;
}

/* One receive (unit, tag valid; buffer, type and count checked). */
static dart_ret_t p2p_recv(const char *func, void *buf, int n, MPI_Datatype t,
                           int tag, int unit)
{
  uint64_t t0 = DART__OBS_T0();
  MPI_Request req;
  dart_ret_t ret;
  dart__coll_watch(func, "MPI_Irecv", NULL, unit);
  int rc = MPI_SUCCESS;
  if (unit == dart__g.myid && p2p_own_notice(tag, &rc))
    ret = DART__COLL_INVAL(func,
                           "unit %d passed a bad argument to its send with "
                           "tag %d (see its log): nothing received",
                           unit, tag);
  else if (rc == MPI_SUCCESS &&
           (rc = MPI_Irecv(buf, n, t, unit, tag, dart__g.comm, &req)) ==
               MPI_SUCCESS)
    ret = p2p_recv_wait(func, &req, tag, unit);
  else
    ret = dart__coll_fail_mpi(func, "MPI_Irecv", rc);
  dart__watch_end();
  DART__OBS_END(t0, dart__obs_coll_kind(func), DART__OBS_NONE, unit, 0);
  return ret;
}

dart_ret_t dart_send(const void *sendbuf, size_t nelem, dart_datatype_t dtype,
                     int tag, dart_global_unit_t unit)
{
  const dart__type_t *d;
  dart_ret_t ret = p2p_addr(__func__, tag, unit.id);
  if (ret != DART_OK) return ret;
  ret = p2p_local(__func__, "sendbuf", sendbuf, nelem, dtype, &d);
  if (ret != DART_OK) {
    p2p_notice(__func__, tag, unit.id);
    return ret;
  }
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
  dart_ret_t ret = p2p_addr(__func__, tag, unit.id);
  if (ret != DART_OK) return ret;
  ret = p2p_local(__func__, "recvbuf", recvbuf, nelem, dtype, &d);
  if (ret != DART_OK) {
    p2p_drain(__func__, tag, unit.id);
    return ret;
  }
  return p2p_recv(__func__, recvbuf, (int)nelem, d->mpi_inst, tag, unit.id);
}

dart_ret_t dart_sendrecv(const void *sendbuf, size_t send_nelem,
                         dart_datatype_t send_dtype, int send_tag,
                         dart_global_unit_t dest, void *recvbuf,
                         size_t recv_nelem, dart_datatype_t recv_dtype,
                         int recv_tag, dart_global_unit_t src)
{
  const char *func = __func__;
  const dart__type_t *sd, *rd;
  dart_ret_t ret = p2p_addr(func, send_tag, dest.id);
  if (ret == DART_OK) ret = p2p_addr(func, recv_tag, src.id);
  if (ret != DART_OK) return ret;
  dart_ret_t sret =
      p2p_local(func, "sendbuf", sendbuf, send_nelem, send_dtype, &sd);
  dart_ret_t rret =
      p2p_local(func, "recvbuf", recvbuf, recv_nelem, recv_dtype, &rd);
  /* The send is started first and completed last: a bad side is replaced
   * by its notice / drain, as in dart_send / dart_recv. */
  MPI_Request sreq = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  if (sret == DART_OK)
    rc = MPI_Isend(sendbuf, (int)send_nelem, sd->mpi_inst, dest.id, send_tag,
                   dart__g.comm, &sreq);
  else
    rc = p2p_notice_start(send_tag, dest.id, &sreq);
  if (rc != MPI_SUCCESS) return dart__coll_fail_mpi(func, "MPI_Isend", rc);
  if (rret == DART_OK)
    rret = p2p_recv(func, recvbuf, (int)recv_nelem, rd->mpi_inst, recv_tag,
                    src.id);
  else
    p2p_drain(func, recv_tag, src.id);
  dart__coll_watch(func, "MPI_Isend", NULL, dest.id);
  rc = dart__mpi_wait(&sreq);
  dart__watch_end();
  if (rc != MPI_SUCCESS) return dart__coll_fail_mpi(func, "MPI_Isend", rc);
  return sret != DART_OK ? sret : rret;
}
