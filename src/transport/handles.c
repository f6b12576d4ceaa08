/*
 * Completion of handle-based transfers: wait/test for one or many
 * handles, and dart_handle_free.
 *
 * A handle exists only for transfers on the MPI path (mapped targets
 * complete at once and give DART_HANDLE_NULL). A get is complete when its
 * request is (or, for gets that have no request, after
 * MPI_Win_flush_local). A put is locally complete when its request is and
 * remotely complete after MPI_Win_flush of its target. Handles are freed
 * and nulled once complete; NULL entries count as complete.
 *
 * Waits block. They complete puts remotely, also dart_wait_local and
 * dart_waitall_local: MPI may keep a locally complete put queued until the
 * origin enters MPI again (seen with Open MPI's osc/ucx), while DASH's
 * halo exchange waits for its flag puts only locally and the receiver
 * polls its own memory. Completing earlier than required is allowed.
 *
 * Tests never block. MPI_Win_flush does: with an MPI whose RMA is served
 * by the target's progress engine (MPICH's active messages, Open MPI's
 * osc/pt2pt), it waits as long as the target computes outside MPI, and
 * MPI-3 has no flush to test. So the tests only flush once the target is
 * known to have come by: dart_test_local takes the transfer's request
 * alone (the origin buffer is then free; the put itself completes at a
 * later flush, lock release or free of its memory), and where a flush is
 * needed (dart_test on a put, any test on a get without request) a test
 * first issues a 1-byte MPI_Rget from the transfer's target location, the
 * probe, and tests it at each call. Once the probe is back, the target has
 * answered it and with it, in practice, the transfer issued before, so the
 * flush that follows returns at once; the flush, not the probe, is what
 * guarantees completion. A test loop therefore finishes as soon as the
 * target makes progress, and no single call waits for it.
 *
 * Pending handles, the user's and those released by dart_handle_free, are
 * on one list. Freeing a segment (dart_team_memfree, deregistration,
 * allocator or team destruction, dart_exit) completes the handles on it
 * first, so a later dart_wait on such a handle returns at once instead of
 * calling MPI on a freed window, and released requests never outlive their
 * window.
 */
#include <pthread.h>
#include <stdlib.h>

#include "transport/probe.h"
#include "transport/transport.h"

static void release(dart_handle_t h);

static dart_ret_t wait_request(const char *func, MPI_Request *req)
{
  if (*req == MPI_REQUEST_NULL) return DART_OK;
  DART__WATCH(func, "the request of a handle", DART__WATCH_NONE,
              DART__WATCH_NONE, DART__WATCH_NONE, -1);
  int rc = dart__mpi_wait(req);
  dart__watch_end();
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "MPI_Wait", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* Non-blocking: *done tells whether *req is done (MPI_REQUEST_NULL is). */
static dart_ret_t test_request(const char *func, MPI_Request *req, int *done)
{
  *done = 1;
  if (*req == MPI_REQUEST_NULL) return DART_OK;
  int rc = MPI_Test(req, done, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "MPI_Test", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* The flush h needs: remote for a put, local for a get without request. */
static dart_ret_t flush_handle(const char *func, dart_handle_t h)
{
  dart__rma_target_t w = {.win = h->win, .team = h->team, .segid = h->segid};
  dart_ret_t ret =
      h->put ? dart__flush_target(func, h->win, h->unit)
             : dart__rma_complete(func, &w, h->unit, DART__RMA_FLUSH_LOCAL);
  if (ret == DART_OK) h->flushed = true;
  return ret;
}

/*
 * Completes one non-NULL handle (blocking). flush_put: false when the
 * caller already flushed the put's target after the put was issued.
 */
static dart_ret_t complete(const char *func, dart_handle_t h, bool flush_put)
{
  if (h->win == MPI_WIN_NULL) return DART_OK; /* done when its segment went */
  /* a test's probe never outlives its handle */
  dart_ret_t ret = wait_request(func, &h->probe);
  if (ret != DART_OK) return ret;
  if (h->put) {
    if (flush_put && !h->flushed) ret = flush_handle(func, h);
    DART__FENCE();
    /* the flush completed the operation: the request is done */
    return ret == DART_OK ? wait_request(func, &h->req) : ret;
  }
  /* h->win is still its segment's window (a free completes h first) */
  if (h->by_flush) return h->flushed ? DART_OK : flush_handle(func, h);
  return wait_request(func, &h->req);
}

static dart_ret_t wait_one(const char *func, dart_handle_t *handle)
{
  if (handle == NULL || *handle == DART_HANDLE_NULL) return DART_OK;
  dart_ret_t ret = complete(func, *handle, true);
  if (ret != DART_OK) return ret;
  release(*handle);
  *handle = DART_HANDLE_NULL;
  return DART_OK;
}

dart_ret_t dart_wait(dart_handle_t *handle)
{
  return wait_one(__func__, handle);
}

dart_ret_t dart_wait_local(dart_handle_t *handle)
{
  return wait_one(__func__, handle);
}

/*
 * Completes all handles in order; consecutive puts to the same (window,
 * target) share one flush.
 */
static dart_ret_t wait_all(const char *func, dart_handle_t *handles, size_t n)
{
  if (handles == NULL || n == 0) return DART_OK;
  dart_ret_t ret = DART_OK;
  MPI_Win last_win = MPI_WIN_NULL;
  int last_unit = -1;
  for (size_t i = 0; i < n; i++) {
    dart_handle_t h = handles[i];
    if (h == DART_HANDLE_NULL) continue;
    bool fresh = !h->put || h->win != last_win || h->unit != last_unit;
    dart_ret_t r = complete(func, h, fresh);
    if (h->put) {
      last_win = h->win;
      last_unit = h->unit;
    }
    if (r != DART_OK) {
      ret = r;
      continue;
    }
    release(h);
    handles[i] = DART_HANDLE_NULL;
  }
  return ret;
}

dart_ret_t dart_waitall(dart_handle_t handles[], size_t n)
{
  return wait_all(__func__, handles, n);
}

dart_ret_t dart_waitall_local(dart_handle_t handles[], size_t n)
{
  return wait_all(__func__, handles, n);
}

/* Issues the probe of h: one byte of its target location, read back. */
static dart_ret_t issue_probe(const char *func, dart_handle_t h)
{
  int rc = MPI_Rget(&h->probe_buf, 1, MPI_BYTE, h->unit, h->disp, 1, MPI_BYTE,
                    h->win, &h->probe);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "MPI_Rget", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/*
 * One non-blocking step towards completing the non-NULL handle h, locally
 * or (remote) also remotely; *done tells whether h is complete so. Its
 * state (request, probe, flush) persists from call to call.
 */
static dart_ret_t advance(const char *func, dart_handle_t h, bool remote,
                          int *done)
{
  *done = 1;
  if (h->win == MPI_WIN_NULL) return DART_OK; /* done when its segment went */
  dart_ret_t ret = test_request(func, &h->req, done);
  bool needs_flush = h->by_flush || (remote && h->put);
  if (ret != DART_OK || !*done || !needs_flush || h->flushed) return ret;
  if (!h->probed) {
    if (h->probe == MPI_REQUEST_NULL) {
      ret = issue_probe(func, h);
      if (ret != DART_OK) return ret;
    }
    ret = test_request(func, &h->probe, done);
    if (ret != DART_OK || !*done) return ret;
    h->probed = true;
  }
  ret = flush_handle(func, h);
  if (h->put) DART__FENCE();
  return ret;
}

static dart_ret_t test_one(const char *func, dart_handle_t *handle, bool remote,
                           int32_t *result)
{
  DART__CHECK_NOTNULL(result);
  *result = 0;
  if (handle == NULL || *handle == DART_HANDLE_NULL) {
    *result = 1;
    return DART_OK;
  }
  int done = 0;
  dart_ret_t ret = advance(func, *handle, remote, &done);
  if (ret != DART_OK || !done) return ret;
  release(*handle);
  *handle = DART_HANDLE_NULL;
  *result = 1;
  return DART_OK;
}

dart_ret_t dart_test_local(dart_handle_t *handle, int32_t *result)
{
  return test_one(__func__, handle, false, result);
}

dart_ret_t dart_test(dart_handle_t *handleptr, int32_t *is_finished)
{
  return test_one(__func__, handleptr, true, is_finished);
}

/*
 * All-or-nothing test: every handle is advanced, but handles are only
 * freed (and nulled) when all of them are complete; otherwise no handle
 * pointer is modified (the progress made is kept in the handles).
 */
static dart_ret_t test_all(const char *func, dart_handle_t *handles, size_t n,
                           bool remote, int32_t *result)
{
  DART__CHECK_NOTNULL(result);
  *result = 0;
  bool all = true;
  for (size_t i = 0; handles != NULL && i < n; i++) {
    if (handles[i] == DART_HANDLE_NULL) continue;
    int done = 0;
    dart_ret_t ret = advance(func, handles[i], remote, &done);
    if (ret != DART_OK) return ret;
    if (!done) all = false;
  }
  if (!all) return DART_OK;
  for (size_t i = 0; handles != NULL && i < n; i++) {
    if (handles[i] == DART_HANDLE_NULL) continue;
    release(handles[i]);
    handles[i] = DART_HANDLE_NULL;
  }
  *result = 1;
  return DART_OK;
}

dart_ret_t dart_testall_local(dart_handle_t handles[], size_t n,
                              int32_t *result)
{
  return test_all(__func__, handles, n, false, result);
}

dart_ret_t dart_testall(dart_handle_t handles[], size_t n, int32_t *is_finished)
{
  return test_all(__func__, handles, n, true, is_finished);
}

/*
 * The list of pending handles. Its mutex is only taken when the user
 * asked for DART_THREAD_MULTIPLE; handles exist only on the MPI path,
 * where a list update is small next to the MPI call.
 */
static struct dart_handle_struct *pending;
static int norphans;
static pthread_mutex_t pending_mutex = PTHREAD_MUTEX_INITIALIZER;

static void list_lock(void)
{
  if (dart__g.multithreaded) pthread_mutex_lock(&pending_mutex);
}

static void list_unlock(void)
{
  if (dart__g.multithreaded) pthread_mutex_unlock(&pending_mutex);
}

/* Removes h from the list (lock held). */
static void unlink_handle(dart_handle_t h)
{
  if (!h->linked) return;
  if (h->prev != NULL)
    h->prev->next = h->next;
  else
    pending = h->next;
  if (h->next != NULL) h->next->prev = h->prev;
  h->linked = false;
  if (h->orphan) norphans--;
}

void dart__handles_track(dart_handle_t h)
{
  h->orphan = false;
  list_lock();
  h->prev = NULL;
  h->next = pending;
  if (pending != NULL) pending->prev = h;
  pending = h;
  h->linked = true;
  list_unlock();
}

static void release(dart_handle_t h)
{
  list_lock();
  unlink_handle(h);
  list_unlock();
  free(h);
}

/* Frees released handles whose requests are done (lock held). */
static int reap_orphans(void)
{
  int rc = MPI_SUCCESS;
  for (dart_handle_t h = pending, next; h != NULL; h = next) {
    next = h->next;
    if (!h->orphan) continue;
    int done = 0, probed = 0;
    if (rc == MPI_SUCCESS) rc = MPI_Test(&h->req, &done, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && done)
      rc = MPI_Test(&h->probe, &probed, MPI_STATUS_IGNORE);
    if (done && probed) {
      unlink_handle(h);
      free(h);
    }
  }
  return rc;
}

/* Completes every listed handle for which match(h, arg) holds: released
 * handles are freed, the user's marked complete (lock held). */
static void complete_matching(const char *func,
                              bool (*match)(dart_handle_t, const void *),
                              const void *arg)
{
  for (dart_handle_t h = pending, next; h != NULL; h = next) {
    next = h->next;
    if (!match(h, arg)) continue;
    unlink_handle(h);
    if (complete(func, h, true) != DART_OK)
      DART_LOG_WARN("a pending transfer failed while its memory was freed");
    if (h->orphan) {
      free(h);
    } else {
      h->req = MPI_REQUEST_NULL;
      h->probe = MPI_REQUEST_NULL;
      h->win = MPI_WIN_NULL;
    }
  }
}

static bool on_segment(dart_handle_t h, const void *seg)
{
  return h->seg == seg;
}

static bool any_handle(dart_handle_t h, const void *arg)
{
  (void)h;
  (void)arg;
  return true;
}

void dart__handles_segment_freed(const char *func, const void *seg)
{
  list_lock();
  if (pending != NULL) complete_matching(func, on_segment, seg);
  list_unlock();
}

struct settle_key {
  int team;
};

static bool team_get(dart_handle_t h, const void *arg)
{
  const struct settle_key *k = arg;
  return !h->put && h->team == k->team && h->req != MPI_REQUEST_NULL;
}

void dart__handles_settle_gets(const char *func, int team)
{
  if (dart__caps.cap[DART__CAP_GET_MOVES] || pending == NULL) return;
  struct settle_key k = {team};
  list_lock();
  complete_matching(func, team_get, &k);
  list_unlock();
}

void dart__handles_fini(void)
{
  list_lock();
  complete_matching("dart_exit", any_handle, NULL);
  norphans = 0;
  list_unlock();
}

dart_ret_t dart_handle_free(dart_handle_t *handle)
{
  if (handle == NULL || *handle == DART_HANDLE_NULL) return DART_OK;
  dart_handle_t h = *handle;
  *handle = DART_HANDLE_NULL;
  /* A transfer without request is covered by later flushes and by the
   * free of its window; one with a request (or a probe of a test) stays
   * listed until done. */
  if ((h->req == MPI_REQUEST_NULL && h->probe == MPI_REQUEST_NULL) ||
      !h->linked) {
    release(h);
    return DART_OK;
  }
  dart_ret_t ret = DART_OK;
  list_lock();
  h->orphan = true;
  /* Reap now and then, so the list stays short. */
  if (++norphans >= 64) {
    int rc = reap_orphans();
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error(__func__, "MPI_Test", rc);
      ret = DART_ERR_OTHER;
    }
  }
  list_unlock();
  return ret;
}
