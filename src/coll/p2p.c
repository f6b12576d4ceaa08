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
 *  - a sender sends an empty message in place of its data, on dart__g.comm
 *    with the same tag, so that it takes its place in the order of the
 *    sender's messages. An empty message is ambiguous (a good send of zero
 *    elements is one too), so every empty message is preceded by a one-byte
 *    "mark" with the same tag on the point-to-point context of team ALL's
 *    communicator (ranks are global ids there, and DART sends nothing else
 *    on it): 0 for a good empty send, 1 for a bad one. The k-th empty
 *    message from (unit, tag) goes with the k-th mark from (unit, tag), both
 *    streams being ordered. Both sends of a bad sender are non-blocking and
 *    completed later (p2p_fire): it returns DART_ERR_INVAL without waiting
 *    for its receiver;
 *  - a receive that matched an empty message takes its mark; a mark of 1
 *    turns the receive into DART_ERR_INVAL (nothing received);
 *  - a receiver with bad arguments takes (and drops) the message its
 *    receive would have matched (and its mark if empty), so the sender does
 *    not wait forever and later messages stay in order; the sender returns
 *    DART_OK.
 * An unaddressable partner (unit out of range, bad tag) fails on the
 * caller only: nobody can be told, the partner waits (the DART_WATCHDOG
 * line names the wait).
 */
#include <inttypes.h>
#include <pthread.h>
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

/* Where marks travel: team ALL's communicator (p2p context unused). */
static MPI_Comm mark_comm(void)
{
  return dart__team_get(DART_TEAM_ALL)->comm;
}

/* What a mark says about the empty message it goes with (static: the
 * sends read them after the call returned). */
static const unsigned char p2p_good_mark = 0, p2p_bad_mark = 1;

/*
 * Sends the caller does not wait for (marks, a bad sender's empty
 * message): kept here and completed by later calls, at the latest in
 * dart_exit. Not freed while pending: MPICH 4 loses a message a process
 * sends to itself once the send's request is freed (one process; raw-MPI
 * reproducer in docs/collectives.md).
 */
static pthread_mutex_t fired_mtx = PTHREAD_MUTEX_INITIALIZER;
static MPI_Request *fired;
static int nfired, fired_cap;

/* Drops the completed ones (the caller holds fired_mtx). */
static int fired_reap(void)
{
  for (int i = 0; i < nfired;) {
    int done = 0;
    int rc = dart__mpi_test(&fired[i], &done);
    if (rc != MPI_SUCCESS) return rc;
    if (done)
      fired[i] = fired[--nfired];
    else
      i++;
  }
  return MPI_SUCCESS;
}

/* Starts a send that completes without the caller. */
static int p2p_fire(const void *buf, int n, int unit, int tag, MPI_Comm comm)
{
  MPI_Request req;
  int rc = MPI_Isend(buf, n, MPI_BYTE, unit, tag, comm, &req);
  if (rc != MPI_SUCCESS) return rc;
  pthread_mutex_lock(&fired_mtx);
  rc = fired_reap();
  if (nfired == fired_cap) {
    int cap = fired_cap ? 2 * fired_cap : 16;
    MPI_Request *grown = realloc(fired, (size_t)cap * sizeof *grown);
    if (grown != NULL) fired = grown, fired_cap = cap;
  }
  if (nfired < fired_cap)
    fired[nfired++] = req;
  else if (rc == MPI_SUCCESS)
    rc = MPI_Request_free(&req); /* out of memory: let MPI complete it */
  pthread_mutex_unlock(&fired_mtx);
  return rc;
}

void dart__p2p_fini(void)
{
  pthread_mutex_lock(&fired_mtx);
  int rc = fired_reap();
  if (rc != MPI_SUCCESS)
    dart__mpi_log_error("dart_exit", "completing point-to-point notices", rc);
  /* never received (the program ended without the receive): released */
  for (int i = 0; i < nfired; i++) MPI_Request_free(&fired[i]);
  free(fired);
  fired = NULL;
  nfired = fired_cap = 0;
  pthread_mutex_unlock(&fired_mtx);
}

/* The mark that precedes an empty message to (unit, tag). */
static int p2p_mark(int tag, int unit, const unsigned char *mark)
{
  return p2p_fire(mark, 1, unit, tag, mark_comm());
}

/* Sender with bad local arguments: its mark and empty message, not
 * waited for (it never waits for the receiver). */
static dart_ret_t p2p_notice(const char *func, int tag, int unit,
                             dart_ret_t ret)
{
  int rc = p2p_mark(tag, unit, &p2p_bad_mark);
  if (rc == MPI_SUCCESS) rc = p2p_fire(NULL, 0, unit, tag, dart__g.comm);
  if (rc != MPI_SUCCESS)
    dart__mpi_log_error(func, "telling the receiver about the bad argument",
                        rc);
  return ret;
}

/* Completes req in the transport's wait engine; the status in *st. */
static int p2p_wait(MPI_Request *req, MPI_Status *st)
{
  return dart__mpi_wait_status(req, st);
}

/*
 * The message from (unit, tag) matched with status st was empty: takes its
 * mark (already sent, or on its way). *bad: the sender was bad.
 */
static int p2p_take_mark(int unit, int tag, const MPI_Status *st, bool *bad)
{
  int bytes = 0;
  int rc = MPI_Get_count(st, MPI_BYTE, &bytes);
  *bad = false;
  if (rc != MPI_SUCCESS || bytes != 0) return rc;
  unsigned char mark = 0;
  MPI_Request req;
  MPI_Status mst;
  rc = MPI_Irecv(&mark, 1, MPI_BYTE, unit, tag, mark_comm(), &req);
  if (rc == MPI_SUCCESS) rc = p2p_wait(&req, &mst);
  *bad = mark == p2p_bad_mark;
  return rc;
}

/*
 * Receives and drops the message from (unit, tag) that a probe found (st),
 * and its mark if empty. MPI_Iprobe + MPI_Recv, not the matched probe:
 * MPICH 4.0's MPI_Mrecv crashed on a message a process sent to itself. No
 * other receive of this unit takes messages of (unit, tag) meanwhile,
 * unless two of its threads receive from the same unit and tag at once
 * (then MPI does not order them either).
 */
static int p2p_drop(int unit, int tag, MPI_Status *st)
{
  int bytes = 0;
  int rc = MPI_Get_count(st, MPI_BYTE, &bytes);
  if (rc != MPI_SUCCESS) return rc;
  char one, *scratch = bytes > 1 ? malloc((size_t)bytes) : &one;
  MPI_Status rst;
  if (scratch == NULL) {
    /* a receive of 0 bytes still takes the message (and fails with
     * MPI_ERR_TRUNCATE, which does not matter here) */
    MPI_Recv(&one, 0, MPI_BYTE, unit, tag, dart__g.comm, MPI_STATUS_IGNORE);
    return MPI_SUCCESS;
  }
  rc = MPI_Recv(scratch, bytes, MPI_BYTE, unit, tag, dart__g.comm, &rst);
  if (scratch != &one) free(scratch);
  bool bad;
  if (rc == MPI_SUCCESS) rc = p2p_take_mark(unit, tag, &rst, &bad);
  return rc;
}

/* Receiver with bad local arguments: takes and drops the next message
 * from (unit, tag). */
static void p2p_drain(const char *func, int tag, int unit)
{
  MPI_Status st;
  MPI_Comm comm = dart__g.comm;
  int c = 0;
  dart__coll_watch(func, "dropping the message for the bad receive", NULL,
                   unit);
  int rc = dart__mpi_probe_wait(unit, tag, &comm, 1, &c, &st);
  if (rc == MPI_SUCCESS) rc = p2p_drop(unit, tag, &st);
  dart__watch_end();
  if (rc != MPI_SUCCESS)
    dart__mpi_log_error(func, "dropping the message for the bad receive", rc);
}

/* One receive (unit, tag valid; buffer, type and count checked). */
static dart_ret_t p2p_recv(const char *func, void *buf, int n, MPI_Datatype t,
                           int tag, int unit)
{
  uint64_t t0 = DART__OBS_T0();
  MPI_Status st;
  int rc;
  bool bad = false;
  dart_ret_t ret = DART_OK;
  if (dart__coll_blocking()) {
    dart__coll_watch(func, "MPI_Recv", NULL, unit);
    rc = MPI_Recv(buf, n, t, unit, tag, dart__g.comm, &st);
  } else {
    MPI_Request req;
    dart__coll_watch(func, "MPI_Irecv", NULL, unit);
    rc = MPI_Irecv(buf, n, t, unit, tag, dart__g.comm, &req);
    if (rc == MPI_SUCCESS) rc = p2p_wait(&req, &st);
  }
  if (rc == MPI_SUCCESS) rc = p2p_take_mark(unit, tag, &st, &bad);
  dart__watch_end();
  if (rc != MPI_SUCCESS)
    ret = dart__coll_fail_mpi(func, "MPI_Irecv", rc);
  else if (bad)
    ret = DART__COLL_INVAL(func,
                           "unit %d passed a bad argument to its send with "
                           "tag %d (see its log): nothing received",
                           unit, tag);
  DART__OBS_END(t0, dart__obs_coll_kind(func), DART__OBS_NONE, unit, 0);
  return ret;
}

/* A good send of nelem elements; an empty one is preceded by its mark. */
static dart_ret_t p2p_send(const char *func, const void *buf, int n,
                           MPI_Datatype t, int tag, int unit)
{
  dart_ret_t ret;
  if (n == 0) {
    int rc = p2p_mark(tag, unit, &p2p_good_mark);
    if (rc != MPI_SUCCESS) return dart__coll_fail_mpi(func, "MPI_Isend", rc);
  }
  DART__COLL_RUN(ret, func, NULL, unit,
                 MPI_Send(buf, n, t, unit, tag, dart__g.comm),
                 MPI_Isend(buf, n, t, unit, tag, dart__g.comm, &dart__req));
  return ret;
}

dart_ret_t dart_send(const void *sendbuf, size_t nelem, dart_datatype_t dtype,
                     int tag, dart_global_unit_t unit)
{
  const dart__type_t *d;
  dart_ret_t ret = p2p_addr(__func__, tag, unit.id);
  if (ret != DART_OK) return ret;
  ret = p2p_local(__func__, "sendbuf", sendbuf, nelem, dtype, &d);
  if (ret != DART_OK) return p2p_notice(__func__, tag, unit.id, ret);
  return p2p_send(__func__, sendbuf, (int)nelem, d->mpi_inst, tag, unit.id);
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
  if (sret != DART_OK) {
    p2p_notice(func, send_tag, dest.id, sret);
  } else {
    if (send_nelem == 0) rc = p2p_mark(send_tag, dest.id, &p2p_good_mark);
    if (rc == MPI_SUCCESS)
      rc = MPI_Isend(sendbuf, (int)send_nelem, sd->mpi_inst, dest.id, send_tag,
                     dart__g.comm, &sreq);
  }
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
