/*
 * Transfer machinery behind put/get: argument-error reporting, layout
 * checks of non-contiguous types and the local copy engine for any pair
 * of layouts (transfers on the MPI path: transport/rma.c).
 */
#include <stdint.h>

#include "onesided/onesided.h"

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
