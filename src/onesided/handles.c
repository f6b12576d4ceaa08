/*
 * Completion of handle-based transfers: wait/test for one or many
 * handles, and dart_handle_free.
 *
 * A handle exists only for transfers on the MPI path (mapped targets
 * complete at once and give DART_HANDLE_NULL). Puts are always completed
 * remotely, by a flush of their target, also by the *_local calls: MPI may
 * keep a locally complete put queued until the origin enters MPI again
 * (seen with Open MPI's osc/ucx), while DASH's halo exchange waits for its
 * flag puts only locally and the receiver polls its own memory. Completing
 * earlier than required is allowed; the local and remote forms therefore
 * behave alike. A get is complete when its request is (or, for gets that
 * have no request, after MPI_Win_flush_local). Handles are freed and nulled
 * once complete; NULL entries count as complete.
 */
#include <pthread.h>
#include <stdlib.h>

#include "onesided/onesided.h"

static dart_ret_t wait_request(const char *func, MPI_Request *req)
{
  if (*req == MPI_REQUEST_NULL) return DART_OK;
  int rc = dart__mpi_wait(req);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "MPI_Wait", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/*
 * Completes one non-NULL handle (blocking). flush_put: false when the
 * caller already flushed the put's target after the put was issued.
 */
static dart_ret_t complete(const char *func, dart_handle_t h, bool flush_put)
{
  if (h->put) {
    dart_ret_t ret =
        flush_put ? dart__flush_target(func, h->win, h->unit) : DART_OK;
    DART__FENCE();
    /* the flush completed the operation: the request is done */
    return ret == DART_OK ? wait_request(func, &h->req) : ret;
  }
  if (h->by_flush) {
    int rc = MPI_Win_flush_local(h->unit, h->win);
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error(func, "MPI_Win_flush_local", rc);
      return DART_ERR_OTHER;
    }
    return DART_OK;
  }
  return wait_request(func, &h->req);
}

static dart_ret_t wait_one(const char *func, dart_handle_t *handle)
{
  if (handle == NULL || *handle == DART_HANDLE_NULL) return DART_OK;
  dart_ret_t ret = complete(func, *handle, true);
  if (ret != DART_OK) return ret;
  free(*handle);
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
    free(h);
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

/* Non-blocking check whether h's request is done (true for handles
 * without one). */
static dart_ret_t request_done(const char *func, dart_handle_t h, int *done)
{
  *done = 1;
  if (h->req == MPI_REQUEST_NULL) return DART_OK;
  int rc = MPI_Test(&h->req, done, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "MPI_Test", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

static dart_ret_t test_one(const char *func, dart_handle_t *handle,
                           int32_t *result)
{
  DART__CHECK_NOTNULL(result);
  *result = 0;
  if (handle == NULL || *handle == DART_HANDLE_NULL) {
    *result = 1;
    return DART_OK;
  }
  int done = 0;
  dart_ret_t ret = request_done(func, *handle, &done);
  if (ret != DART_OK || !done) return ret;
  ret = wait_one(func, handle);
  if (ret == DART_OK) *result = 1;
  return ret;
}

dart_ret_t dart_test_local(dart_handle_t *handle, int32_t *result)
{
  return test_one(__func__, handle, result);
}

dart_ret_t dart_test(dart_handle_t *handleptr, int32_t *is_finished)
{
  return test_one(__func__, handleptr, is_finished);
}

/*
 * All-or-nothing test: handles are only freed (and nulled) when every
 * request is done; otherwise no handle pointer is modified (a request
 * found done is released by MPI and counts as done later).
 */
static dart_ret_t test_all(const char *func, dart_handle_t *handles, size_t n,
                           int32_t *result)
{
  DART__CHECK_NOTNULL(result);
  *result = 0;
  for (size_t i = 0; handles != NULL && i < n; i++) {
    if (handles[i] == DART_HANDLE_NULL) continue;
    int done = 0;
    dart_ret_t ret = request_done(func, handles[i], &done);
    if (ret != DART_OK || !done) return ret;
  }
  dart_ret_t ret = wait_all(func, handles, n);
  if (ret == DART_OK) *result = 1;
  return ret;
}

dart_ret_t dart_testall_local(dart_handle_t handles[], size_t n,
                              int32_t *result)
{
  return test_all(__func__, handles, n, result);
}

dart_ret_t dart_testall(dart_handle_t handles[], size_t n, int32_t *is_finished)
{
  return test_all(__func__, handles, n, is_finished);
}

/*
 * Requests of released handles. MPI rejects MPI_Request_free on RMA
 * requests (MPICH and Open MPI), so they are kept here and reaped with
 * MPI_Test whenever the list is full, and waited for at dart_exit
 * (their operations are covered by flushes in the meantime).
 */
static MPI_Request *orphans;
static int norphans, cap_orphans;
static pthread_mutex_t orphan_mutex = PTHREAD_MUTEX_INITIALIZER;

/* Drops completed orphans (orphan_mutex held). */
static int reap_orphans(void)
{
  int k = 0, rc = MPI_SUCCESS;
  for (int i = 0; i < norphans; i++) {
    int done = 0;
    if (rc == MPI_SUCCESS) rc = MPI_Test(&orphans[i], &done, MPI_STATUS_IGNORE);
    if (!done) orphans[k++] = orphans[i];
  }
  norphans = k;
  return rc;
}

static dart_ret_t adopt_orphan(MPI_Request req)
{
  dart_ret_t ret = DART_OK;
  pthread_mutex_lock(&orphan_mutex);
  if (norphans == cap_orphans && norphans > 0) {
    int rc = reap_orphans();
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error("dart_handle_free", "MPI_Test", rc);
      ret = DART_ERR_OTHER;
    }
  }
  if (norphans == cap_orphans) {
    int cap = cap_orphans ? 2 * cap_orphans : 64;
    MPI_Request *o = realloc(orphans, (size_t)cap * sizeof *o);
    if (o != NULL) {
      orphans = o;
      cap_orphans = cap;
    }
  }
  if (norphans < cap_orphans)
    orphans[norphans++] = req;
  else
    ret = DART_ERR_NOMEM; /* request leaks; operation still completes */
  pthread_mutex_unlock(&orphan_mutex);
  return ret;
}

void dart__handles_fini(void)
{
  pthread_mutex_lock(&orphan_mutex);
  for (int i = 0; i < norphans; i++) {
    int rc = dart__mpi_wait(&orphans[i]);
    if (rc != MPI_SUCCESS) dart__mpi_log_error(__func__, "MPI_Wait", rc);
  }
  free(orphans);
  orphans = NULL;
  norphans = cap_orphans = 0;
  pthread_mutex_unlock(&orphan_mutex);
}

dart_ret_t dart_handle_free(dart_handle_t *handle)
{
  if (handle == NULL || *handle == DART_HANDLE_NULL) return DART_OK;
  dart_handle_t h = *handle;
  /* The operation still completes; later flushes cover it. */
  dart_ret_t ret = DART_OK;
  if (h->req != MPI_REQUEST_NULL) ret = adopt_orphan(h->req);
  free(h);
  *handle = DART_HANDLE_NULL;
  return ret;
}
