/*
 * dart_put / dart_get in their non-blocking, blocking and handle forms.
 *
 * Each public function first tries the common case inline: one basic type
 * on both sides, a buffer, a valid target. Mapped targets are copied right
 * there (no stack frame, no further checks); unmapped ones go to MPI with
 * the work already done. Everything else (derived types, bad arguments,
 * zero counts) takes the general path, which checks fully and logs.
 */
#include <stdlib.h>

#include "onesided/onesided.h"
#include "transport/progress.h"

typedef enum {
  MODE_NONBLOCKING, /* complete at the next flush                  */
  MODE_BLOCKING,    /* complete at both ends on return             */
  MODE_HANDLE       /* complete through the handle (or NULL handle) */
} xfer_mode_t;

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
  h->disp = t->disp;
  h->put = put;
  h->probe = MPI_REQUEST_NULL;
  h->probed = false;
  h->flushed = false;
  dart__rma_target_t rt;
  dart__rma_xfer_t rx;
  dart__segment_rma_target(t, &rt);
  dart__xfer_rma(x, &rx);
  dart_ret_t ret = dart__mpi_xfer(func, put, buf, &rt, &rx, &h->req);
  if (ret != DART_OK) {
    free(h);
    return ret;
  }
  h->by_flush = (h->req == MPI_REQUEST_NULL);
  h->seg = t->seg;
  h->team = rt.team;
  h->segid = rt.segid;
  dart__handles_track(h);
  *handle = h;
  return DART_OK;
}

/* Bytes of a transfer (statistics and trace). */
#define OBS_BYTES(x) ((x)->nelem * (x)->src->base_size)

/* MPI part of a transfer to a target that is not mapped. */
static void copy_mapped_x(bool put, void *buf, char *target,
                          const dart__xfer_t *x, xfer_mode_t mode);

static dart_ret_t xfer_mpi(const char *func, bool put, void *buf,
                           const dart__target_t *t, const dart__xfer_t *x,
                           xfer_mode_t mode, dart_handle_t *handle)
{
  const dart__segment_t *seg = t->seg;
  /* The caller's own portion of memory that peers reach through MPI
   * (seg->own_base): a local copy after driving MPI progress, so that a
   * unit polling its own memory lets its peers' operations complete. */
  int kind = put ? DART__OBS_PUT : DART__OBS_GET;
  if (t->unit == seg->myid && seg->own_base != NULL) {
    dart__progress_poke();
    MPI_Aint pad = dart__segment_disp(seg, t->unit, 0);
    copy_mapped_x(put, buf, seg->own_base + (t->disp - pad), x, mode);
    DART__OBS_OP(kind, DART__OBS_SHM, seg->team->l2g[t->unit], OBS_BYTES(x));
    return DART_OK;
  }
  uint64_t t0 = DART__OBS_T0_DATA();
  dart__segment_mark_mpi(t->seg);
  dart_ret_t ret;
  if (mode == MODE_HANDLE) {
    ret = handle_xfer(func, put, buf, t, x, handle);
  } else {
    dart__rma_target_t rt;
    dart__rma_xfer_t rx;
    dart__segment_rma_target(t, &rt);
    dart__xfer_rma(x, &rx);
    ret = dart__mpi_xfer(func, put, buf, &rt, &rx, NULL);
    if (mode == MODE_BLOCKING && ret == DART_OK)
      ret = dart__flush_target(func, t->seg->win, t->unit);
  }
  DART__OBS_END(t0, kind, DART__OBS_MPI, seg->team->l2g[t->unit], OBS_BYTES(x));
  return ret;
}

/* Copy to/from a mapped target with the fences of the completion mode:
 * blocking and handle calls fence (a put before the owner's later loads,
 * a get after earlier remote writes); non-blocking ones leave the fence
 * to the next flush (dart__shm_pending). x == NULL (a constant in the
 * inline common case): contiguous bytes; else the layouts of x.
 * copy_mapped_pre: the fence before the copy. */
static inline __attribute__((always_inline)) void
copy_mapped_pre(bool put, xfer_mode_t mode)
{
  if (mode != MODE_NONBLOCKING) {
    if (put)
      DART__WEAK_FENCE(); /* earlier loads/stores before the copy */
    else
      DART__FENCE();
  }
}

/* The copy and what follows it (copy_mapped without copy_mapped_pre). */
static inline __attribute__((always_inline)) void
copy_mapped_post(bool put, void *buf, char *target, size_t bytes,
                 const dart__xfer_t *x, xfer_mode_t mode)
{
  char *dst = put ? target : buf;
  const char *src = put ? buf : target;
  if (x != NULL)
    dart__local_copy(dst, src, x);
  else
    dart__copy_bytes(dst, src, bytes);
  if (mode != MODE_NONBLOCKING) {
    if (put)
      DART__FENCE();
    else
      DART__WEAK_FENCE(); /* the copy's loads before later accesses */
  }
  if (mode == MODE_NONBLOCKING) dart__shm_mark_pending();
}

static inline __attribute__((always_inline)) void
copy_mapped(bool put, void *buf, char *target, size_t bytes,
            const dart__xfer_t *x, xfer_mode_t mode)
{
  copy_mapped_pre(put, mode);
  copy_mapped_post(put, buf, target, bytes, x, mode);
}

static void copy_mapped_x(bool put, void *buf, char *target,
                          const dart__xfer_t *x, xfer_mode_t mode)
{
  copy_mapped(put, buf, target, 0, x, mode);
}

/*
 * Path of every put (put == true: buf is the source, the target layout is
 * dst_type) and get (buf is the destination, the target layout is
 * src_type) that is not a mapped common case: checks (fully, with logging,
 * unless the types are one basic type), resolution, then MPI or a copy.
 */
static inline __attribute__((always_inline)) dart_ret_t
xfer_slow(const char *func, bool put, void *buf, dart_gptr_t gptr, size_t nelem,
          dart_datatype_t st, dart_datatype_t dt, xfer_mode_t mode,
          dart_handle_t *handle)
{
  dart__xfer_t x;
  size_t span;
  if (__builtin_expect(dart__rma_basic_fast(buf, nelem, st, dt), 1)) {
    x.src = x.dst = &dart__basic_types[st];
    x.nelem = nelem;
    span = nelem * x.src->base_size;
  } else {
    if (nelem == 0) return DART_OK;
    dart_ret_t ret = dart__rma_check(func, buf, nelem, st, dt, &x);
    if (ret != DART_OK) return ret;
    span = dart__type_span(put ? x.dst : x.src, nelem);
  }
  dart__target_t t;
  dart_ret_t ret = dart__segment_resolve(func, gptr, span, &t);
  if (ret != DART_OK) return ret;
  if (t.local == NULL) return xfer_mpi(func, put, buf, &t, &x, mode, handle);
  copy_mapped(put, buf, t.local, 0, &x, mode);
  DART__OBS_OP(put ? DART__OBS_PUT : DART__OBS_GET, DART__OBS_SHM,
               t.seg->team->l2g[t.unit], OBS_BYTES(&x));
  return DART_OK;
}

/* The mapped common case while observing, when the table lookup missed:
 * the copy (its first fence done) and the out-of-line count, one function
 * per direction and mode. So the inline path makes no call it must come
 * back from with values alive (that register pressure would cost even
 * when off). */
#define MAPPED_OBSERVED(name, put, mode)                                       \
  static __attribute__((noinline)) void name(void *buf, char *target,          \
                                             size_t bytes, int gunit)          \
  {                                                                            \
    copy_mapped_post(put, buf, target, bytes, NULL, mode);                     \
    dart__obs_record(put ? DART__OBS_PUT : DART__OBS_GET, DART__OBS_SHM,       \
                     gunit, bytes, 0);                                         \
  }
MAPPED_OBSERVED(obs_put_nb, true, MODE_NONBLOCKING)
MAPPED_OBSERVED(obs_get_nb, false, MODE_NONBLOCKING)
MAPPED_OBSERVED(obs_put_bl, true, MODE_BLOCKING)
MAPPED_OBSERVED(obs_get_bl, false, MODE_BLOCKING)
MAPPED_OBSERVED(obs_put_h, true, MODE_HANDLE)
MAPPED_OBSERVED(obs_get_h, false, MODE_HANDLE)
#undef MAPPED_OBSERVED

static inline __attribute__((always_inline)) void
mapped_observed(bool put, void *buf, char *target, size_t bytes,
                xfer_mode_t mode, int gunit)
{
  switch (mode) {
  case MODE_NONBLOCKING:
    (put ? obs_put_nb : obs_get_nb)(buf, target, bytes, gunit);
    break;
  case MODE_BLOCKING:
    (put ? obs_put_bl : obs_get_bl)(buf, target, bytes, gunit);
    break;
  default: (put ? obs_put_h : obs_get_h)(buf, target, bytes, gunit);
  }
}

/*
 * The common case, inline in every public function: one basic type on
 * both sides, a buffer, a valid target mapped by the caller. Returns false
 * (nothing done) otherwise, with *segp set to the target's segment if the
 * case is common but the target not mapped (dart__segment_fast_unchecked:
 * the caller asks dart__segment_lazy_known before the MPI path).
 */
static inline __attribute__((always_inline)) bool
try_mapped(bool put, void *buf, dart_gptr_t gptr, size_t nelem,
           dart_datatype_t st, dart_datatype_t dt, xfer_mode_t mode,
           dart__segment_t **segp)
{
  *segp = NULL;
  if (__builtin_expect(!dart__rma_basic_fast(buf, nelem, st, dt), 0))
    return false;
  size_t bytes = nelem * dart__basic_types[st].base_size;
  char *p = dart__segment_fast_unchecked(gptr, bytes, segp);
  if (__builtin_expect(p == NULL, 0)) return false;
  /* Counted after the first fence (a get's full fence would otherwise wait
   * for the counter stores) and before the copy (see mapped_observed). */
  int obs = DART__OBS_ON();
  int gunit = obs ? DART__OBS_GUNIT(gptr.teamid, *segp, gptr.unitid) : 0;
  copy_mapped_pre(put, mode);
  if (obs && !dart__obs_hit(put ? DART__OBS_PUT : DART__OBS_GET, DART__OBS_SHM,
                            gunit, bytes)) {
    mapped_observed(put, buf, p, bytes, mode, gunit);
    return true;
  }
  copy_mapped_post(put, buf, p, bytes, NULL, mode);
  return true;
}

/* The common case on the MPI path: checked and resolved already. A peer's
 * memory, at most dart__rma_max_count elements, not observed: straight to
 * the transport's one MPI call (and the flush of a blocking call). The
 * rest (the caller's own portion, chunking, statistics and trace) takes
 * xfer_mpi, which does the same with the general records. */
static inline __attribute__((always_inline)) dart_ret_t
xfer_rma(const char *func, bool put, void *buf, dart_gptr_t gptr, size_t nelem,
         dart_datatype_t type, dart__segment_t *seg, xfer_mode_t mode)
{
  int u = gptr.unitid;
  MPI_Aint disp = dart__segment_disp(seg, u, gptr.addr_or_offs.offset);
  if (__builtin_expect((u == seg->myid && seg->own_base != NULL) ||
                           nelem > dart__rma_max_count || DART__OBS_ON(),
                       0)) {
    dart__target_t t = {.seg = seg, .unit = u, .disp = disp, .local = NULL};
    dart__xfer_t x = {&dart__basic_types[type], &dart__basic_types[type],
                      nelem};
    return xfer_mpi(func, put, buf, &t, &x, mode, NULL);
  }
  dart__segment_mark_mpi(seg);
  dart_ret_t ret =
      dart__mpi_xfer_basic(func, put, buf, (int)nelem,
                           dart__basic_types[type].mpi_elem, u, disp, seg->win);
  if (mode == MODE_BLOCKING && ret == DART_OK)
    ret = dart__flush_target(func, seg->win, u);
  return ret;
}

/* Out-of-line parts of each public function: the general path (same
 * arguments, so that reaching it is a jump) and, for the non-handle
 * calls, the MPI common case (arguments in registers). */
#define SLOW_PATH(name, put, mode)                                             \
  static __attribute__((noinline)) dart_ret_t name##_slow(                     \
      dart_gptr_t g, void *buf, size_t n, dart_datatype_t st,                  \
      dart_datatype_t dt, dart_handle_t *h)                                    \
  {                                                                            \
    return xfer_slow(#name, put, buf, g, n, st, dt, mode, h);                  \
  }
#define RMA_PATH(name, put, mode)                                              \
  static __attribute__((noinline))                                             \
  dart_ret_t name##_rma(dart_gptr_t g, void *buf, size_t n,                    \
                        dart_datatype_t type, dart__segment_t *seg)            \
  {                                                                            \
    if (__builtin_expect(seg->disp_serial != 0, 0) &&                          \
        !dart__segment_lazy_known(seg, g.unitid,                               \
                                  g.addr_or_offs.offset +                      \
                                      n * dart__basic_types[type].base_size))  \
      return name##_slow(g, buf, n, type, type, NULL);                         \
    return xfer_rma(#name, put, buf, g, n, type, seg, mode);                   \
  }
SLOW_PATH(dart_put, true, MODE_NONBLOCKING)
SLOW_PATH(dart_get, false, MODE_NONBLOCKING)
SLOW_PATH(dart_put_blocking, true, MODE_BLOCKING)
SLOW_PATH(dart_get_blocking, false, MODE_BLOCKING)
SLOW_PATH(dart_put_handle, true, MODE_HANDLE)
SLOW_PATH(dart_get_handle, false, MODE_HANDLE)
RMA_PATH(dart_put, true, MODE_NONBLOCKING)
RMA_PATH(dart_get, false, MODE_NONBLOCKING)
RMA_PATH(dart_put_blocking, true, MODE_BLOCKING)
RMA_PATH(dart_get_blocking, false, MODE_BLOCKING)
#undef SLOW_PATH
#undef RMA_PATH

/* Body of the non-handle public functions. */
#define XFER(name, put, buf, mode)                                             \
  do {                                                                         \
    dart__segment_t *seg;                                                      \
    if (try_mapped(put, buf, gptr, nelem, src_type, dst_type, mode, &seg))     \
      return DART_OK;                                                          \
    if (seg != NULL) return name##_rma(gptr, buf, nelem, src_type, seg);       \
    return name##_slow(gptr, buf, nelem, src_type, dst_type, NULL);            \
  } while (0)

dart_ret_t dart_put(dart_gptr_t gptr, const void *src, size_t nelem,
                    dart_datatype_t src_type, dart_datatype_t dst_type)
{
  XFER(dart_put, true, (void *)src, MODE_NONBLOCKING);
}

dart_ret_t dart_get(void *dest, dart_gptr_t gptr, size_t nelem,
                    dart_datatype_t src_type, dart_datatype_t dst_type)
{
  XFER(dart_get, false, dest, MODE_NONBLOCKING);
}

dart_ret_t dart_put_blocking(dart_gptr_t gptr, const void *src, size_t nelem,
                             dart_datatype_t src_type, dart_datatype_t dst_type)
{
  XFER(dart_put_blocking, true, (void *)src, MODE_BLOCKING);
}

dart_ret_t dart_get_blocking(void *dest, dart_gptr_t gptr, size_t nelem,
                             dart_datatype_t src_type, dart_datatype_t dst_type)
{
  XFER(dart_get_blocking, false, dest, MODE_BLOCKING);
}
#undef XFER

/* Handle calls: the mapped common case inline, everything else (MPI
 * included, which allocates a handle anyway) out of line. */
dart_ret_t dart_put_handle(dart_gptr_t gptr, const void *src, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type,
                           dart_handle_t *handle)
{
  DART__CHECK_NOTNULL(handle);
  *handle = DART_HANDLE_NULL;
  dart__segment_t *seg;
  if (try_mapped(true, (void *)src, gptr, nelem, src_type, dst_type,
                 MODE_HANDLE, &seg))
    return DART_OK;
  return dart_put_handle_slow(gptr, (void *)src, nelem, src_type, dst_type,
                              handle);
}

dart_ret_t dart_get_handle(void *dest, dart_gptr_t gptr, size_t nelem,
                           dart_datatype_t src_type, dart_datatype_t dst_type,
                           dart_handle_t *handle)
{
  DART__CHECK_NOTNULL(handle);
  *handle = DART_HANDLE_NULL;
  dart__segment_t *seg;
  if (try_mapped(false, dest, gptr, nelem, src_type, dst_type, MODE_HANDLE,
                 &seg))
    return DART_OK;
  return dart_get_handle_slow(gptr, dest, nelem, src_type, dst_type, handle);
}
