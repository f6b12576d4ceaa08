/*
 * Completion of handle-based transfers: wait/test (local and remote) for
 * one or many handles, and dart_handle_free.
 *
 * A handle exists only for transfers on the MPI path. Local completion is
 * the completion of its MPI request (or, for chunked transfers without a
 * request, MPI_Win_flush_local); remote completion of a put additionally
 * flushes its target. Handles are freed and nulled once complete; NULL
 * entries count as complete.
 */
#include <stdlib.h>

#include "onesided/onesided.h"

/* Local completion of one non-NULL handle (blocking). */
static dart_ret_t complete_local(const char *func, dart_handle_t h)
{
  if (h->by_flush) {
    int rc = MPI_Win_flush_local(h->unit, h->win);
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error(func, "MPI_Win_flush_local", rc);
      return DART_ERR_OTHER;
    }
    return DART_OK;
  }
  if (h->req == MPI_REQUEST_NULL) return DART_OK;
  int rc = dart__mpi_wait(&h->req);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "MPI_Wait", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* Remote completion after local completion: puts flush their target. */
static dart_ret_t complete_remote(const char *func, dart_handle_t h)
{
  if (!h->put) return DART_OK;
  dart_ret_t ret = dart__flush_target(func, h->win, h->unit);
  DART__FENCE();
  return ret;
}

static dart_ret_t wait_one(const char *func, dart_handle_t *handle, bool remote)
{
  if (handle == NULL || *handle == DART_HANDLE_NULL) return DART_OK;
  dart_handle_t h = *handle;
  dart_ret_t ret = complete_local(func, h);
  if (ret == DART_OK && remote) ret = complete_remote(func, h);
  if (ret != DART_OK) return ret;
  free(h);
  *handle = DART_HANDLE_NULL;
  return DART_OK;
}

dart_ret_t dart_wait(dart_handle_t *handle)
{
  return wait_one(__func__, handle, true);
}

dart_ret_t dart_wait_local(dart_handle_t *handle)
{
  return wait_one(__func__, handle, false);
}

/*
 * Waits for all handles: one yielding waitall over every request, then the
 * chunked (request-less) ones, then remote completion of puts, flushing
 * each (window, target) pair once when consecutive handles share it.
 */
static dart_ret_t wait_all(const char *func, dart_handle_t *handles, size_t n,
                           bool remote)
{
  if (handles == NULL || n == 0) return DART_OK;
  DART__CHECK(n <= INT_MAX, DART_ERR_INVAL, "%zu handles exceed INT_MAX", n);
  MPI_Request stack[64];
  MPI_Request *reqs = n <= 64 ? stack : malloc(n * sizeof *reqs);
  if (reqs == NULL) {
    dart__log(DART__LOG_ERROR, func, "out of memory for %zu requests", n);
    return DART_ERR_NOMEM;
  }
  int nreq = 0;
  for (size_t i = 0; i < n; i++)
    if (handles[i] != DART_HANDLE_NULL && handles[i]->req != MPI_REQUEST_NULL)
      reqs[nreq++] = handles[i]->req;
  int rc = dart__mpi_waitall(nreq, reqs);
  if (reqs != stack) free(reqs);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "MPI_Waitall", rc);
    return DART_ERR_OTHER;
  }
  dart_ret_t ret = DART_OK;
  MPI_Win last_win = MPI_WIN_NULL;
  int last_unit = -1;
  for (size_t i = 0; i < n; i++) {
    dart_handle_t h = handles[i];
    if (h == DART_HANDLE_NULL) continue;
    h->req = MPI_REQUEST_NULL; /* completed by the waitall above */
    dart_ret_t r = DART_OK;
    if (remote && h->put) {
      /* the flush also completes chunked puts locally */
      if (h->win != last_win || h->unit != last_unit)
        r = dart__flush_target(func, h->win, h->unit);
      last_win = h->win;
      last_unit = h->unit;
    } else if (h->by_flush) {
      r = complete_local(func, h);
    }
    if (r != DART_OK) {
      ret = r;
      continue;
    }
    free(h);
    handles[i] = DART_HANDLE_NULL;
  }
  if (remote) DART__FENCE();
  return ret;
}

dart_ret_t dart_waitall(dart_handle_t handles[], size_t n)
{
  return wait_all(__func__, handles, n, true);
}

dart_ret_t dart_waitall_local(dart_handle_t handles[], size_t n)
{
  return wait_all(__func__, handles, n, false);
}

/* Non-blocking local-completion test of one non-NULL handle. */
static dart_ret_t test_local_one(const char *func, dart_handle_t h, int *done)
{
  *done = 1;
  if (h->by_flush) return complete_local(func, h); /* chunked: now */
  if (h->req == MPI_REQUEST_NULL) return DART_OK;
  int rc = MPI_Test(&h->req, done, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error(func, "MPI_Test", rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

static dart_ret_t test_one(const char *func, dart_handle_t *handle,
                           int32_t *result, bool remote)
{
  DART__CHECK_NOTNULL(result);
  *result = 0;
  if (handle == NULL || *handle == DART_HANDLE_NULL) {
    *result = 1;
    return DART_OK;
  }
  int done = 0;
  dart_ret_t ret = test_local_one(func, *handle, &done);
  if (ret != DART_OK || !done) return ret;
  if (remote) ret = complete_remote(func, *handle);
  if (ret != DART_OK) return ret;
  free(*handle);
  *handle = DART_HANDLE_NULL;
  *result = 1;
  return DART_OK;
}

dart_ret_t dart_test_local(dart_handle_t *handle, int32_t *result)
{
  return test_one(__func__, handle, result, false);
}

dart_ret_t dart_test(dart_handle_t *handleptr, int32_t *is_finished)
{
  return test_one(__func__, handleptr, is_finished, true);
}

/*
 * All-or-nothing test: handles are only freed (and nulled) when every one
 * is locally complete; otherwise none is modified.
 */
static dart_ret_t test_all(const char *func, dart_handle_t *handles, size_t n,
                           int32_t *result, bool remote)
{
  DART__CHECK_NOTNULL(result);
  *result = 0;
  if (handles == NULL || n == 0) {
    *result = 1;
    return DART_OK;
  }
  DART__CHECK(n <= INT_MAX, DART_ERR_INVAL, "%zu handles exceed INT_MAX", n);
  for (size_t i = 0; i < n; i++) {
    if (handles[i] == DART_HANDLE_NULL || handles[i]->req == MPI_REQUEST_NULL)
      continue;
    /* MPI_Test frees a completed request and nulls it: the handle then
     * counts as complete for later calls. */
    int done = 0;
    int rc = MPI_Test(&handles[i]->req, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error(func, "MPI_Test", rc);
      return DART_ERR_OTHER;
    }
    if (!done) return DART_OK;
  }
  /* Every request is complete: finish (flush_local the chunked ones, flush
   * puts for remote completion), free and null all. */
  dart_ret_t ret = wait_all(func, handles, n, remote);
  if (ret == DART_OK) *result = 1;
  return ret;
}

dart_ret_t dart_testall_local(dart_handle_t handles[], size_t n,
                              int32_t *result)
{
  return test_all(__func__, handles, n, result, false);
}

dart_ret_t dart_testall(dart_handle_t handles[], size_t n,
                        int32_t *is_finished)
{
  return test_all(__func__, handles, n, is_finished, true);
}

dart_ret_t dart_handle_free(dart_handle_t *handle)
{
  if (handle == NULL || *handle == DART_HANDLE_NULL) return DART_OK;
  dart_handle_t h = *handle;
  /* The operation still completes; later flushes cover it. */
  if (h->req != MPI_REQUEST_NULL) {
    int rc = MPI_Request_free(&h->req);
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error(__func__, "MPI_Request_free", rc);
      return DART_ERR_OTHER;
    }
  }
  free(h);
  *handle = DART_HANDLE_NULL;
  return DART_OK;
}
