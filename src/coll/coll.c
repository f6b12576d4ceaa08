/*
 * Data-movement collectives: bcast, scatter, gather, allgather, allgatherv,
 * alltoall. Each maps to one MPI collective on the team's communicator:
 * non-blocking and completed by a yielding wait (dart__mpi_wait) when units
 * share cores, so waiting units give their core away instead of
 * busy-polling; the blocking MPI call when every unit has a core of its own
 * (see dart__coll_blocking in coll_internal.h).
 *
 * In-place forms (MPI_IN_PLACE):
 *  - allgather, allgatherv, alltoall: sendbuf NULL, sendbuf == recvbuf, or
 *    (allgather/allgatherv) sendbuf == the caller's own slot of recvbuf;
 *  - scatter at root: recvbuf == root's block of sendbuf;
 *  - gather at root: sendbuf == root's slot of recvbuf.
 * Any other overlap of send and receive buffers is rejected.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>

#include "coll_internal.h"

/* Do [a, a+na) and [b, b+nb) overlap? */
static bool overlaps(const void *a, size_t na, const void *b, size_t nb)
{
  uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
  return na > 0 && nb > 0 && x < y + nb && y < x + na;
}

/*
 * Classifies the send buffer of a gather-like call against the receive
 * buffer: returns MPI_IN_PLACE for the in-place forms (NULL if allowed,
 * recvbuf itself if allowed, or the caller's own slot), sendbuf if it does
 * not overlap recvbuf, NULL for a forbidden overlap.
 */
static const void *send_or_in_place(const void *sendbuf, size_t sbytes,
                                    const void *recvbuf, size_t rbytes,
                                    const void *own_slot, bool null_ok)
{
  if ((sendbuf == NULL && null_ok) || sendbuf == recvbuf || sendbuf == own_slot)
    return MPI_IN_PLACE;
  if (sendbuf == NULL || overlaps(sendbuf, sbytes, recvbuf, rbytes))
    return NULL;
  return sendbuf;
}

/* The counts and displacements of an allgatherv (int, as for MPI). */
typedef struct {
  const int *cnt, *dsp;
} vcounts_t;

/*
 * A bcast, allgather or allgatherv through shared memory (shm.c), watched
 * and observed as DART__COLL_RUN does for MPI's. buf/send NULL: the
 * stand-in of a unit with a bad buffer, which warns the units that depend
 * on it first (as dart__coll_standin does) and returns err. bytes: per
 * unit; for allgatherv (v != NULL) the element size.
 */
static dart_ret_t shm_run(const char *func, dart__team_t *team,
                          dart__coll_kind_t kind, const void *send, void *recv,
                          size_t bytes, int root, dart_ret_t err,
                          const vcounts_t *v)
{
  static const char *const what[] = {"shared-memory bcast",
                                     "shared-memory allgather",
                                     "shared-memory allgatherv"};
  int which = kind == DART__COLL_BCAST ? 0 : v == NULL ? 1 : 2;
  if (send == NULL) dart__coll_warn(func, team, kind, root);
  uint64_t t0 = DART__OBS_T0();
  dart__coll_watch(func, what[which], team, DART__WATCH_NONE);
  if (which == 0)
    dart__coll_shm_bcast(recv, bytes, root);
  else if (which == 1)
    dart__coll_shm_allgather(send, recv, bytes);
  else
    dart__coll_shm_allgatherv(send, (size_t)v->cnt[team->myid] * bytes, recv,
                              v->cnt, v->dsp, bytes);
  dart__watch_end();
  DART__OBS_END(t0, dart__obs_coll_kind(func), DART__OBS_NONE, -1, 0);
  return dart__coll_end(func, team, err);
}

dart_ret_t dart_bcast(void *buf, size_t nelem, dart_datatype_t dtype,
                      dart_team_unit_t root, dart_team_t teamid)
{
  dart__team_t *team;
  dart__coll_span_t s;
  dart_ret_t ret = dart__coll_begin_span(__func__, teamid, &root.id, dtype,
                                         nelem, &team, &s);
  if (ret != DART_OK || nelem == 0) return ret;
  bool shm = dart__coll_shm_fits(team, s.bytes);
  if (buf == NULL) {
    ret = DART__COLL_INVAL(__func__, "buf is NULL with %zu elements", nelem);
    ret =
        shm ? shm_run(__func__, team, DART__COLL_BCAST, NULL, NULL, s.bytes,
                      root.id, ret, NULL)
            : dart__coll_standin(__func__, ret, team, DART__COLL_BCAST, s.count,
                                 s.type, s.bytes, root.id, MPI_OP_NULL);
  } else if (shm) {
    ret = shm_run(__func__, team, DART__COLL_BCAST, buf, buf, s.bytes, root.id,
                  DART_OK, NULL);
  } else {
    DART__COLL_RUN(
        ret, __func__, team, DART__WATCH_NONE,
        MPI_Bcast(buf, s.count, s.type, root.id, team->comm),
        MPI_Ibcast(buf, s.count, s.type, root.id, team->comm, &dart__req));
    ret = dart__coll_end(__func__, team, ret);
  }
  dart__coll_span_free(&s);
  return ret;
}

dart_ret_t dart_scatter(const void *sendbuf, void *recvbuf, size_t nelem,
                        dart_datatype_t dtype, dart_team_unit_t root,
                        dart_team_t teamid)
{
  dart__team_t *team;
  dart__coll_span_t s;
  dart_ret_t ret = dart__coll_begin_span(__func__, teamid, &root.id, dtype,
                                         nelem, &team, &s);
  if (ret != DART_OK || nelem == 0) return ret;
  bool is_root = team->myid == root.id;
  void *recv = recvbuf;
  if (is_root) {
    if (sendbuf == NULL)
      ret = DART__COLL_INVAL(__func__, "sendbuf is NULL with %zu elements",
                             nelem);
    else if (recvbuf == (const char *)sendbuf + (size_t)root.id * s.bytes)
      recv = MPI_IN_PLACE;
    else if (overlaps(sendbuf, s.bytes * (size_t)team->size, recvbuf, s.bytes))
      ret = DART__COLL_INVAL(__func__, "recvbuf overlaps sendbuf");
  }
  if (ret == DART_OK && recvbuf == NULL)
    ret =
        DART__COLL_INVAL(__func__, "recvbuf is NULL with %zu elements", nelem);
  if (ret != DART_OK) {
    ret = dart__coll_standin(__func__, ret, team, DART__COLL_SCATTER, s.count,
                             s.type, s.bytes, root.id, MPI_OP_NULL);
  } else {
    DART__COLL_RUN(ret, __func__, team, DART__WATCH_NONE,
                   MPI_Scatter(sendbuf, s.count, s.type, recv, s.count, s.type,
                               root.id, team->comm),
                   MPI_Iscatter(sendbuf, s.count, s.type, recv, s.count, s.type,
                                root.id, team->comm, &dart__req));
    ret = dart__coll_end(__func__, team, ret);
  }
  dart__coll_span_free(&s);
  return ret;
}

dart_ret_t dart_gather(const void *sendbuf, void *recvbuf, size_t nelem,
                       dart_datatype_t dtype, dart_team_unit_t root,
                       dart_team_t teamid)
{
  dart__team_t *team;
  dart__coll_span_t s;
  dart_ret_t ret = dart__coll_begin_span(__func__, teamid, &root.id, dtype,
                                         nelem, &team, &s);
  if (ret != DART_OK || nelem == 0) return ret;
  const void *send = sendbuf;
  if (team->myid == root.id) {
    if (recvbuf == NULL) {
      ret = DART__COLL_INVAL(__func__, "recvbuf is NULL with %zu elements",
                             nelem);
    } else {
      const char *own = (const char *)recvbuf + (size_t)root.id * s.bytes;
      send = send_or_in_place(sendbuf, s.bytes, recvbuf,
                              s.bytes * (size_t)team->size, own, false);
      if (send == NULL)
        ret = DART__COLL_INVAL(__func__, "sendbuf is NULL or overlaps recvbuf");
    }
  } else if (sendbuf == NULL) {
    ret =
        DART__COLL_INVAL(__func__, "sendbuf is NULL with %zu elements", nelem);
  }
  if (ret != DART_OK) {
    ret = dart__coll_standin(__func__, ret, team, DART__COLL_GATHER, s.count,
                             s.type, s.bytes, root.id, MPI_OP_NULL);
  } else {
    DART__COLL_RUN(ret, __func__, team, DART__WATCH_NONE,
                   MPI_Gather(send, s.count, s.type, recvbuf, s.count, s.type,
                              root.id, team->comm),
                   MPI_Igather(send, s.count, s.type, recvbuf, s.count, s.type,
                               root.id, team->comm, &dart__req));
    ret = dart__coll_end(__func__, team, ret);
  }
  dart__coll_span_free(&s);
  return ret;
}

dart_ret_t dart_allgather(const void *sendbuf, void *recvbuf, size_t nelem,
                          dart_datatype_t dtype, dart_team_t teamid)
{
  dart__team_t *team;
  dart__coll_span_t s;
  dart_ret_t ret =
      dart__coll_begin_span(__func__, teamid, NULL, dtype, nelem, &team, &s);
  if (ret != DART_OK || nelem == 0) return ret;
  const char *own = recvbuf == NULL
                        ? NULL
                        : (const char *)recvbuf + (size_t)team->myid * s.bytes;
  const void *send = send_or_in_place(sendbuf, s.bytes, recvbuf,
                                      s.bytes * (size_t)team->size, own, true);
  bool shm = dart__coll_shm_fits(team, s.bytes);
  if (recvbuf == NULL || send == NULL) {
    ret = recvbuf == NULL
              ? DART__COLL_INVAL(__func__, "recvbuf is NULL with %zu elements",
                                 nelem)
              : DART__COLL_INVAL(__func__, "sendbuf overlaps recvbuf");
    ret = shm ? shm_run(__func__, team, DART__COLL_ALLGATHER, NULL, NULL,
                        s.bytes, -1, ret, NULL)
              : dart__coll_standin(__func__, ret, team, DART__COLL_ALLGATHER,
                                   s.count, s.type, s.bytes, -1, MPI_OP_NULL);
  } else if (shm) {
    ret = shm_run(__func__, team, DART__COLL_ALLGATHER,
                  send == MPI_IN_PLACE ? own : send, recvbuf, s.bytes, -1,
                  DART_OK, NULL);
  } else {
    DART__COLL_RUN(ret, __func__, team, DART__WATCH_NONE,
                   MPI_Allgather(send, s.count, s.type, recvbuf, s.count,
                                 s.type, team->comm),
                   MPI_Iallgather(send, s.count, s.type, recvbuf, s.count,
                                  s.type, team->comm, &dart__req));
    ret = dart__coll_end(__func__, team, ret);
  }
  dart__coll_span_free(&s);
  return ret;
}

/*
 * Converts the allgatherv count/displacement arrays (identical on all
 * members) to int, rejecting values > INT_MAX. *total receives the number
 * of elements spanned by recvbuf (max displ + count).
 */
static dart_ret_t allgatherv_ints(int n, const size_t *cnt, const size_t *dsp,
                                  int *icnt, int *idsp, size_t *total)
{
  *total = 0;
  for (int i = 0; i < n; i++) {
    if (cnt[i] > INT_MAX || dsp[i] > INT_MAX) {
      DART__LOG_ERROR_IN("dart_allgatherv",
                         "nrecvelem[%d] = %zu or "
                         "recvdispls[%d] = %zu exceeds INT_MAX",
                         i, cnt[i], i, dsp[i]);
      return DART_ERR_INVAL;
    }
    icnt[i] = (int)cnt[i];
    idsp[i] = (int)dsp[i];
    if (cnt[i] > 0 && cnt[i] + dsp[i] > *total) *total = cnt[i] + dsp[i];
  }
  return DART_OK;
}

/* Local checks of allgatherv's buffers; picks the send buffer. */
static dart_ret_t allgatherv_bufs(const dart__team_t *team, size_t esize,
                                  const void *sendbuf, size_t nsend,
                                  void *recvbuf, const int *icnt,
                                  const int *idsp, size_t total,
                                  const void **send)
{
  const char *func = "dart_allgatherv";
  if (nsend != (size_t)icnt[team->myid]) {
    DART__LOG_ERROR_IN(func, "nsendelem %zu differs from nrecvelem[%d] = %d",
                       nsend, team->myid, icnt[team->myid]);
    return DART_ERR_INVAL;
  }
  if (total > 0 && recvbuf == NULL)
    return DART__COLL_INVAL(func, "recvbuf is NULL with %zu elements", total);
  const char *own = (const char *)recvbuf + (size_t)idsp[team->myid] * esize;
  *send = send_or_in_place(sendbuf, nsend * esize, recvbuf, total * esize,
                           nsend > 0 ? own : NULL, true);
  if (*send == NULL) return DART__COLL_INVAL(func, "sendbuf overlaps recvbuf");
  return DART_OK;
}

/*
 * allgatherv on a unit whose buffers failed the checks (err): warns its
 * peers and takes part with zero-filled scratch buffers (the counts are
 * equal on all units, so it sends nrecvelem[me] elements).
 */
static dart_ret_t allgatherv_standin(dart__team_t *team, const dart__type_t *d,
                                     const int *icnt, const int *idsp,
                                     size_t total, dart_ret_t err)
{
  const char *func = "dart_allgatherv";
  size_t rbytes = total * d->base_size;
  char *a = calloc(1, rbytes + (size_t)icnt[team->myid] * d->base_size + 1);
  if (a == NULL) {
    DART__LOG_ERROR_IN(func, "out of memory for the stand-in buffers of a "
                             "failed call: the other units may wait");
    return err;
  }
  dart__coll_warn(func, team, DART__COLL_ALLGATHERV, -1);
  MPI_Datatype t = d->mpi_inst;
  int rc, ns = icnt[team->myid];
  dart__coll_watch(func, "stand-in collective", team, DART__WATCH_NONE);
  if (dart__coll_blocking()) {
    rc = MPI_Allgatherv(a + rbytes, ns, t, a, icnt, idsp, t, team->comm);
  } else {
    MPI_Request req;
    rc = MPI_Iallgatherv(a + rbytes, ns, t, a, icnt, idsp, t, team->comm, &req);
    if (rc == MPI_SUCCESS) rc = dart__mpi_wait(&req);
  }
  dart__watch_end();
  if (rc != MPI_SUCCESS) dart__mpi_log_error(func, "stand-in collective", rc);
  free(a);
  return dart__coll_end(func, team, err);
}

/*
 * allgatherv on a unit without count or displacement arrays (which): it
 * reads the counts the others published for this call (bad.c) and stands
 * in with them, sending nsend elements (what the others expect if the
 * caller's nsendelem is right); if the call ends without MPI elsewhere, it
 * ends here too. Returns DART_ERR_INVAL (or the reading's error).
 */
static dart_ret_t allgatherv_blind(dart__team_t *team, const dart__type_t *d,
                                   size_t nsend, int *icnt, int *idsp,
                                   const char *which)
{
  const char *func = "dart_allgatherv";
  dart_ret_t err = DART__COLL_INVAL(func, "%s is NULL", which);
  int me = team->myid;
  icnt[me] = nsend > INT_MAX ? INT_MAX : (int)nsend;
  dart__coll_publish(team, (uint32_t)icnt[me]);
  bool mpi = true, shm = false;
  dart_ret_t ret = dart__coll_counts(func, team, icnt, &mpi, &shm);
  if (ret != DART_OK) return ret; /* logged; the others may wait */
  size_t total = 0;
  for (int u = 0; u < team->size; u++) {
    idsp[u] = (int)total;
    total += (size_t)icnt[u];
  }
  if (team->size == 1 || !mpi) return dart__coll_end(func, team, err);
  if (shm) {
    vcounts_t v = {icnt, idsp};
    return shm_run(func, team, DART__COLL_ALLGATHERV, NULL, NULL, d->base_size,
                   -1, err, &v);
  }
  if (total > INT_MAX) {
    DART__LOG_ERROR_IN(func,
                       "the counts sum to %zu, above INT_MAX: cannot "
                       "stand in, the other units may wait",
                       total);
    return err;
  }
  return allgatherv_standin(team, d, icnt, idsp, total, err);
}

/* Whether an allgatherv with these counts goes through shared memory:
 * decided from the count arrays, equal on all units. */
static bool allgatherv_shm(const dart__team_t *team, const int *icnt,
                           size_t esize)
{
  if (!dart__coll_shm_fits(team, 0)) return false;
  int most = 0;
  for (int u = 0; u < team->size; u++)
    if (icnt[u] > most) most = icnt[u];
  return dart__coll_shm_fits(team, (size_t)most * esize);
}

/* allgatherv with valid count arrays and total > 0 elements. */
static dart_ret_t allgatherv_run(dart__team_t *team, const dart__type_t *d,
                                 const void *sendbuf, size_t nsendelem,
                                 void *recvbuf, const int *icnt,
                                 const int *idsp, size_t total)
{
  const char *func = "dart_allgatherv";
  const void *send = NULL;
  bool shm = allgatherv_shm(team, icnt, d->base_size);
  dart__coll_publish(team, (uint32_t)icnt[team->myid] |
                               (shm ? DART__COLL_SHMBIT : 0));
  dart_ret_t ret = allgatherv_bufs(team, d->base_size, sendbuf, nsendelem,
                                   recvbuf, icnt, idsp, total, &send);
  if (shm) {
    vcounts_t v = {icnt, idsp};
    if (ret == DART_OK && send == MPI_IN_PLACE) /* the own block */
      send = (const char *)recvbuf + (size_t)idsp[team->myid] * d->base_size;
    return shm_run(func, team, DART__COLL_ALLGATHERV,
                   ret == DART_OK ? send : NULL, recvbuf, d->base_size, -1, ret,
                   &v);
  }
  if (ret != DART_OK)
    return allgatherv_standin(team, d, icnt, idsp, total, ret);
  int ns = (int)nsendelem;
  MPI_Datatype t = d->mpi_inst;
  DART__COLL_RUN(
      ret, func, team, DART__WATCH_NONE,
      MPI_Allgatherv(send, ns, t, recvbuf, icnt, idsp, t, team->comm),
      MPI_Iallgatherv(send, ns, t, recvbuf, icnt, idsp, t, team->comm,
                      &dart__req));
  return dart__coll_end(func, team, ret);
}

dart_ret_t dart_allgatherv(const void *sendbuf, size_t nsendelem,
                           dart_datatype_t dtype, void *recvbuf,
                           const size_t *nrecvelem, const size_t *recvdispls,
                           dart_team_t teamid)
{
  dart__team_t *team;
  const dart__type_t *d;
  dart_ret_t ret =
      dart__coll_begin(__func__, teamid, NULL, dtype, false, &team, &d);
  if (ret != DART_OK) return ret;
  int n = team->size, small[2 * 64];
  int *icnt = n <= 64 ? small : malloc(2 * (size_t)n * sizeof(int));
  DART__CHECK(icnt != NULL, DART_ERR_NOMEM, "out of memory (team size %d)", n);
  int *idsp = icnt + n;
  size_t total = 0;
  if (nrecvelem == NULL || recvdispls == NULL) {
    ret = allgatherv_blind(team, d, nsendelem, icnt, idsp,
                           nrecvelem == NULL ? "nrecvelem" : "recvdispls");
    if (icnt != small) free(icnt);
    return ret;
  }
  ret = allgatherv_ints(n, nrecvelem, recvdispls, icnt, idsp, &total);
  if (ret != DART_OK || total == 0) {
    /* the arrays are equal on all units: all end here alike, counted, so
     * that a unit without arrays learns of it (allgatherv_blind) */
    dart__coll_publish(team, DART__COLL_NOMPI);
    ret = dart__coll_end(__func__, team, ret);
  } else {
    ret =
        allgatherv_run(team, d, sendbuf, nsendelem, recvbuf, icnt, idsp, total);
  }
  if (icnt != small) free(icnt);
  return ret;
}

dart_ret_t dart_alltoall(const void *sendbuf, void *recvbuf, size_t nelem,
                         dart_datatype_t dtype, dart_team_t teamid)
{
  dart__team_t *team;
  const dart__type_t *d;
  dart_ret_t ret =
      dart__coll_begin(__func__, teamid, NULL, dtype, true, &team, &d);
  if (ret != DART_OK || nelem == 0) return ret;
  DART__CHECK_ARG(nelem <= INT_MAX, "nelem %zu exceeds INT_MAX", nelem);
  int n = (int)nelem;
  MPI_Datatype t = d->mpi_inst;
  size_t block = nelem * d->base_size, bytes = block * (size_t)team->size;
  if (recvbuf == NULL)
    return dart__coll_standin(
        __func__,
        DART__COLL_INVAL(__func__, "recvbuf is NULL with %zu elements", nelem),
        team, DART__COLL_ALLTOALL, n, t, block, -1, MPI_OP_NULL);
  const void *send =
      send_or_in_place(sendbuf, bytes, recvbuf, bytes, recvbuf, true);
  if (send == NULL)
    return dart__coll_standin(
        __func__, DART__COLL_INVAL(__func__, "sendbuf overlaps recvbuf"), team,
        DART__COLL_ALLTOALL, n, t, block, -1, MPI_OP_NULL);
  DART__COLL_RUN(
      ret, __func__, team, DART__WATCH_NONE,
      MPI_Alltoall(send, n, t, recvbuf, n, t, team->comm),
      MPI_Ialltoall(send, n, t, recvbuf, n, t, team->comm, &dart__req));
  ret = dart__coll_end(__func__, team, ret);
  return ret;
}
