/*
 * dart_put / dart_get in their non-blocking, blocking and handle forms.
 * Every public function is a thin wrapper over one static inline core per
 * direction, specialised by the completion mode at compile time.
 */
#include <stdlib.h>

#include "onesided/onesided.h"

typedef enum {
  MODE_NONBLOCKING, /* complete at the next flush                  */
  MODE_BLOCKING,    /* complete at both ends on return             */
  MODE_HANDLE       /* complete through the handle (or NULL handle) */
} mode_t_;

/* Issues the MPI part of a handle-based transfer. */
static dart_ret_t handle_xfer(const char *func, bool put, void *buf,
                              const dart__target_t *t, const dart__xfer_t *x,
                              dart_handle_t *handle)
{
  dart_handle_t h = malloc(sizeof *h);
  if (h == NULL) {
    dart__log(DART__LOG_ERROR, func, "out of memory for a handle");
    return DART_ERR_NOMEM;
  }
  h->win = t->seg->win;
  h->unit = t->unit;
  h->put = put;
  dart_ret_t ret = dart__mpi_xfer(func, put, buf, t, x, &h->req);
  if (ret != DART_OK) {
    free(h);
    return ret;
  }
  h->by_flush = (h->req == MPI_REQUEST_NULL);
  *handle = h;
  return DART_OK;
}

/*
 * Core of every put (put == true: buf is the source, the target layout is
 * dst_type) and get (buf is the destination, the target layout is
 * src_type): check, resolve, then a direct copy for mapped memory or MPI.
 * Inlined into each public function with constant put and mode.
 */
static inline __attribute__((always_inline)) dart_ret_t
xfer_core(const char *func, bool put, void *buf, dart_gptr_t gptr, size_t nelem,
          dart_datatype_t st, dart_datatype_t dt, mode_t_ mode,
          dart_handle_t *handle)
{
  if (__builtin_expect(nelem == 0, 0)) return DART_OK;
  dart__xfer_t x;
  dart_ret_t ret = dart__rma_check(func, buf, nelem, st, dt, &x);
  if (__builtin_expect(ret != DART_OK, 0)) return ret;
  dart__target_t t;
  size_t span = dart__type_span(put ? x.dst : x.src, nelem);
  ret = dart__segment_resolve(func, gptr, span, &t);
  if (__builtin_expect(ret != DART_OK, 0)) return ret;
  if (t.local != NULL) {
    /* blocking/handle: the fence orders the copy with the owner's later
     * loads (put) or the copy after earlier remote writes (get) */
    if (!put && mode != MODE_NONBLOCKING) DART__FENCE();
    if (put)
      dart__local_copy(t.local, buf, &x);
    else
      dart__local_copy(buf, t.local, &x);
    if (put && mode != MODE_NONBLOCKING) DART__FENCE();
    return DART_OK;
  }
  dart__segment_mark_mpi(t.seg);
  if (mode == MODE_HANDLE) return handle_xfer(func, put, buf, &t, &x, handle);
  ret = dart__mpi_xfer(func, put, buf, &t, &x, NULL);
  if (mode == MODE_BLOCKING && ret == DART_OK)
    ret = dart__flush_target(func, t.seg->win, t.unit);
  return ret;
}

dart_ret_t dart_put(dart_gptr_t gptr, const void *src, size_t nelem,
                    dart_datatype_t src_type, dart_datatype_t dst_type)
{
  return xfer_core(__func__, true, (void *)src, gptr, nelem, src_type, dst_type,
                   MODE_NONBLOCKING, NULL);
}

dart_ret_t dart_get(void *dest, dart_gptr_t gptr, size_t nelem,
                    dart_datatype_t src_type, dart_datatype_t dst_type)
{
  return xfer_core(__func__, false, dest, gptr, nelem, src_type, dst_type,
                   MODE_NONBLOCKING, NULL);
}

dart_ret_t dart_put_blocking(dart_gptr_t gptr, const void *src, size_t nelem,
                             dart_datatype_t src_type, dart_datatype_t dst_type)
{
  return xfer_core(__func__, true, (void *)src, gptr, nelem, src_type, dst_type,
                   MODE_BLOCKING, NULL);
}

dart_ret_t dart_get_blocking(void *dest, dart_gptr_t gptr, size_t nelem,
                             dart_datatype_t src_type, dart_datatype_t dst_type)
{
  return xfer_core(__func__, false, dest, gptr, nelem, src_type, dst_type,
                   MODE_BLOCKING, NULL);
}

dart_ret_t dart_put_handle(dart_gptr_t gptr, const void *src, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type,
                           dart_handle_t *handle)
{
  DART__CHECK_NOTNULL(handle);
  *handle = DART_HANDLE_NULL;
  return xfer_core(__func__, true, (void *)src, gptr, nelem, src_type, dst_type,
                   MODE_HANDLE, handle);
}

dart_ret_t dart_get_handle(void *dest, dart_gptr_t gptr, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type,
                           dart_handle_t *handle)
{
  DART__CHECK_NOTNULL(handle);
  *handle = DART_HANDLE_NULL;
  return xfer_core(__func__, false, dest, gptr, nelem, src_type, dst_type,
                   MODE_HANDLE, handle);
}
