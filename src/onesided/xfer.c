/*
 * Transfer machinery behind put/get: argument-error reporting, layout
 * checks of non-contiguous types, the local copy engine for any pair of
 * layouts, and issuing transfers on the MPI path.
 */
#include <stdint.h>

#include "onesided/onesided.h"

size_t dart__rma_max_count = INT_MAX;

dart_ret_t dart__rma_arg_error(const char *func, int reason, size_t nelem,
                               dart_datatype_t st, dart_datatype_t dt)
{
  long long s = (long long)st, d = (long long)dt;
  switch (reason) {
  case DART__ARG_NULLBUF:
    dart__log(DART__LOG_ERROR, func, "buffer is NULL for %zu elements", nelem);
    break;
  case DART__ARG_BADTYPE_SRC:
    dart__log(DART__LOG_ERROR, func, "invalid source datatype %lld", s);
    break;
  case DART__ARG_BADTYPE_DST:
    dart__log(DART__LOG_ERROR, func, "invalid destination datatype %lld", d);
    break;
  case DART__ARG_BASE_MISMATCH:
    dart__log(DART__LOG_ERROR, func,
              "datatypes %lld and %lld have different base types", s, d);
    break;
  case DART__ARG_NELEM_SRC:
  case DART__ARG_NELEM_DST:
    dart__log(DART__LOG_ERROR, func,
              "%zu elements is not a multiple of the element count of "
              "datatype %lld",
              nelem, reason == DART__ARG_NELEM_SRC ? s : d);
    break;
  default:
    dart__log(DART__LOG_ERROR, func,
              "%zu elements of datatypes %lld/%lld are too many", nelem, s, d);
  }
  return DART_ERR_INVAL;
}

/* Span of one layout with overflow detection; 0 if it overflows. */
static size_t checked_span(const dart__type_t *t, size_t nelem)
{
  if (dart__type_is_contiguous(t)) return nelem * t->base_size;
  size_t inst = nelem / t->num_elem, elems, bytes;
  size_t last = (t->kind == DART__TYPE_STRIDED) ? t->blocklen : t->extent_elem;
  if (__builtin_mul_overflow(inst - 1, t->extent_elem, &elems) ||
      __builtin_add_overflow(elems, last, &elems) ||
      __builtin_mul_overflow(elems, t->base_size, &bytes) ||
      bytes > (size_t)PTRDIFF_MAX)
    return 0;
  return bytes;
}

dart_ret_t dart__rma_check_layout(const char *func, size_t nelem,
                                  dart_datatype_t st, dart_datatype_t dt,
                                  const dart__xfer_t *x)
{
  if (nelem % x->src->num_elem != 0)
    return dart__rma_arg_error(func, DART__ARG_NELEM_SRC, nelem, st, dt);
  if (nelem % x->dst->num_elem != 0)
    return dart__rma_arg_error(func, DART__ARG_NELEM_DST, nelem, st, dt);
  if (checked_span(x->src, nelem) == 0 || checked_span(x->dst, nelem) == 0)
    return dart__rma_arg_error(func, DART__ARG_TOO_LARGE, nelem, st, dt);
  return DART_OK;
}

/*
 * Walks the contiguous runs of a layout: yields (element offset, length)
 * pairs in order. Contiguous layouts are one run.
 */
typedef struct {
  const dart__type_t *t;
  size_t left;  /* elements not yet yielded           */
  size_t inst;  /* current instance                   */
  size_t block; /* current block within the instance  */
  size_t pos;   /* elements consumed of current block */
} run_cursor_t;

static void run_block(const run_cursor_t *c, size_t *off, size_t *len)
{
  const dart__type_t *t = c->t;
  size_t base = c->inst * t->extent_elem;
  if (t->kind == DART__TYPE_STRIDED) {
    *off = base;
    *len = t->blocklen;
  } else {
    *off = base + t->offsets[c->block];
    *len = t->blocklens[c->block];
  }
}

/* Next run of at most max elements; returns its element offset. */
static size_t run_next(run_cursor_t *c, size_t max, size_t *len)
{
  if (dart__type_is_contiguous(c->t)) {
    size_t off = c->pos;
    *len = c->left < max ? c->left : max;
    c->pos += *len;
    c->left -= *len;
    return off;
  }
  size_t boff, blen;
  run_block(c, &boff, &blen);
  while (c->pos == blen) { /* skip finished (or empty) blocks */
    c->pos = 0;
    size_t nblocks = c->t->kind == DART__TYPE_STRIDED ? 1 : c->t->count;
    if (++c->block == nblocks) {
      c->block = 0;
      c->inst++;
    }
    run_block(c, &boff, &blen);
  }
  size_t avail = blen - c->pos;
  *len = avail < max ? avail : max;
  if (*len > c->left) *len = c->left;
  size_t off = boff + c->pos;
  c->pos += *len;
  c->left -= *len;
  return off;
}

void dart__copy_layout(char *dst, const char *src, const dart__xfer_t *x)
{
  size_t esz = x->src->base_size;
  run_cursor_t s = {.t = x->src, .left = x->nelem};
  run_cursor_t d = {.t = x->dst, .left = x->nelem};
  /* Pair runs of both sides: each step copies the shorter remainder. */
  size_t slen = 0, soff = 0, dlen = 0, doff = 0;
  while (s.left > 0 || slen > 0) {
    if (slen == 0) soff = run_next(&s, SIZE_MAX, &slen);
    if (dlen == 0) doff = run_next(&d, SIZE_MAX, &dlen);
    size_t n = slen < dlen ? slen : dlen;
    memcpy(dst + doff * esz, src + soff * esz, n * esz);
    soff += n;
    doff += n;
    slen -= n;
    dlen -= n;
  }
}

/* One MPI data-movement call; request-based if req != NULL. */
static dart_ret_t issue(const char *func, bool put, void *buf, int ocount,
                        MPI_Datatype otype, const dart__target_t *t,
                        MPI_Aint disp, int tcount, MPI_Datatype ttype,
                        MPI_Request *req)
{
  MPI_Win win = t->seg->win;
  int rc;
  const char *call;
  if (put && req) {
    call = "MPI_Rput";
    rc = MPI_Rput(buf, ocount, otype, t->unit, disp, tcount, ttype, win, req);
  } else if (put) {
    call = "MPI_Put";
    rc = MPI_Put(buf, ocount, otype, t->unit, disp, tcount, ttype, win);
  } else if (req) {
    call = "MPI_Rget";
    rc = MPI_Rget(buf, ocount, otype, t->unit, disp, tcount, ttype, win, req);
  } else {
    call = "MPI_Get";
    rc = MPI_Get(buf, ocount, otype, t->unit, disp, tcount, ttype, win);
  }
  if (__builtin_expect(rc != MPI_SUCCESS, 0)) {
    dart__mpi_log_error(func, call, rc);
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* Count and MPI type of nelem elements laid out as t. */
static size_t mpi_count(const dart__type_t *t, size_t nelem, MPI_Datatype *ty)
{
  if (dart__type_is_contiguous(t)) {
    *ty = t->mpi_elem;
    return nelem;
  }
  *ty = t->mpi_inst;
  return nelem / t->num_elem;
}

dart_ret_t dart__mpi_xfer(const char *func, bool put, void *buf,
                          const dart__target_t *t, const dart__xfer_t *x,
                          MPI_Request *req)
{
  const dart__type_t *loc = put ? x->src : x->dst;
  const dart__type_t *rem = put ? x->dst : x->src;
  if (req != NULL) *req = MPI_REQUEST_NULL;
  MPI_Datatype lt, rt;
  size_t lc = mpi_count(loc, x->nelem, &lt);
  size_t rc = mpi_count(rem, x->nelem, &rt);
  /* MPICH 4.0 completes an MPI_Rget with a derived datatype (either side)
   * before the data is in place: such gets complete by flush instead. */
  if (!put && !dart__xfer_contiguous(x)) req = NULL;
  size_t max = dart__rma_max_count;
  if (__builtin_expect(lc <= max && rc <= max, 1))
    return issue(func, put, buf, (int)lc, lt, t, t->disp, (int)rc, rt, req);
  if (!dart__xfer_contiguous(x)) {
    dart__log(DART__LOG_ERROR, func,
              "non-contiguous transfer of %zu elements exceeds INT_MAX "
              "instances",
              x->nelem);
    return DART_ERR_INVAL;
  }
  /* Contiguous and large: chunks of max elements, flush-completed. */
  size_t esz = loc->base_size;
  for (size_t done = 0; done < x->nelem;) {
    size_t n = x->nelem - done;
    if (n > max) n = max;
    dart_ret_t ret = issue(func, put, (char *)buf + done * esz, (int)n, lt, t,
                           t->disp + (MPI_Aint)(done * esz), (int)n, rt, NULL);
    if (ret != DART_OK) return ret;
    done += n;
  }
  return DART_OK;
}
