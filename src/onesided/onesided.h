/*
 * Internal to src/onesided: argument checks and the local copy engine
 * shared by the one-sided source files (everything on the MPI path is in
 * transport/transport.h).
 *
 * Paths of every put/get (all variants):
 *   target mapped by the caller (itself, or a node peer of a segment that
 *   came from a shared-memory window): direct load/store, complete at
 *   return (handle calls give DART_HANDLE_NULL);
 *   otherwise MPI RMA on the segment's window, in its lock_all epoch.
 */
#ifndef DART__ONESIDED_H
#define DART__ONESIDED_H

#include <dash/dart/if/dart_communication.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "types/dart_datatype.h"
#include "dart_observe.h"
#include "globmem/dart_segment.h"
#include "dart_watch.h"
#include "transport/transport.h"

/* The two layouts of a transfer and its element count. */
typedef struct {
  const dart__type_t *src, *dst;
  size_t nelem;
} dart__xfer_t;

static inline bool dart__xfer_contiguous(const dart__xfer_t *x)
{
  return dart__type_is_contiguous(x->src) && dart__type_is_contiguous(x->dst);
}

/* The transport's view of a datatype (MPI types and counts). */
static inline void dart__type_rma_layout(const dart__type_t *t,
                                         dart__rma_layout_t *l)
{
  l->elem = t->mpi_elem;
  l->inst = t->mpi_inst;
  l->num_elem = t->num_elem;
  l->base_size = t->base_size;
  l->contiguous = dart__type_is_contiguous(t);
}

/* The transport's view of a transfer. */
static inline void dart__xfer_rma(const dart__xfer_t *x, dart__rma_xfer_t *r)
{
  dart__type_rma_layout(x->src, &r->src);
  dart__type_rma_layout(x->dst, &r->dst);
  r->nelem = x->nelem;
}

/* Why an argument check failed (logged by dart__rma_arg_error). */
enum {
  DART__ARG_NULLBUF = 1,
  DART__ARG_BADTYPE_SRC,
  DART__ARG_BADTYPE_DST,
  DART__ARG_BASE_MISMATCH,
  DART__ARG_NELEM_SRC,
  DART__ARG_NELEM_DST,
  DART__ARG_TOO_LARGE
};

DART__HIDDEN __attribute__((cold, noinline)) dart_ret_t
dart__rma_arg_error(const char *func, int reason, size_t nelem,
                    dart_datatype_t st, dart_datatype_t dt);

/* Checks of non-contiguous layouts (element counts, span overflow). */
DART__HIDDEN dart_ret_t dart__rma_check_layout(const char *func, size_t nelem,
                                               dart_datatype_t st,
                                               dart_datatype_t dt,
                                               const dart__xfer_t *x);

/*
 * Validates buffer, datatypes (valid handles, equal base types, nelem a
 * multiple of every non-contiguous type's element count, byte counts that
 * fit). nelem must be > 0. No divisions on the contiguous path.
 */
static inline dart_ret_t dart__rma_check(const char *func, const void *buf,
                                         size_t nelem, dart_datatype_t st,
                                         dart_datatype_t dt, dart__xfer_t *x)
{
  const dart__type_t *s = dart__type_get(st);
  const dart__type_t *d = (dt == st) ? s : dart__type_get(dt);
  int why = 0;
  size_t bytes;
  if (__builtin_expect(buf == NULL, 0))
    why = DART__ARG_NULLBUF;
  else if (__builtin_expect(s == NULL, 0))
    why = DART__ARG_BADTYPE_SRC;
  else if (__builtin_expect(d == NULL, 0))
    why = DART__ARG_BADTYPE_DST;
  else if (__builtin_expect(s->elem != d->elem, 0))
    why = DART__ARG_BASE_MISMATCH;
  else if (__builtin_expect(
               __builtin_mul_overflow(nelem, s->base_size, &bytes) ||
                   bytes > (size_t)PTRDIFF_MAX,
               0))
    why = DART__ARG_TOO_LARGE;
  if (why != 0) return dart__rma_arg_error(func, why, nelem, st, dt);
  x->src = s;
  x->dst = d;
  x->nelem = nelem;
  if (__builtin_expect(
          !dart__type_is_contiguous(s) || !dart__type_is_contiguous(d), 0))
    return dart__rma_check_layout(func, nelem, st, dt, x);
  return DART_OK;
}

/*
 * The common transfer: one basic type on both sides, a buffer, and
 * 0 < nelem <= 2^58 (basic types are at most 16 bytes, so the byte count
 * cannot overflow). One combined test; everything else goes through
 * dart__rma_check.
 */
static inline bool dart__rma_basic_fast(const void *buf, size_t nelem,
                                        dart_datatype_t st, dart_datatype_t dt)
{
  return st == dt && (uintptr_t)st - 1 < (uintptr_t)DART_TYPE_LAST - 1 &&
         buf != NULL && nelem - 1 < ((size_t)1 << 58);
}

/* Global id of team unit u of seg's team (statistics and trace). */
#define DART__OBS_GUNIT(teamid, seg, u)                                        \
  ((teamid) == DART_TEAM_ALL ? (u) : (seg)->team->l2g[(u)])

/* Bytes spanned by nelem elements laid out as t (nelem a multiple of the
 * type's element count): instance i starts at i * extent. */
static inline size_t dart__type_span(const dart__type_t *t, size_t nelem)
{
  if (dart__type_is_contiguous(t)) return nelem * t->base_size;
  size_t inst = nelem / t->num_elem;
  size_t last = (t->kind == DART__TYPE_STRIDED) ? t->blocklen : t->extent_elem;
  return ((inst - 1) * t->extent_elem + last) * t->base_size;
}

/* Copies a transfer between two mapped buffers (any layouts). */
DART__HIDDEN void dart__copy_layout(char *dst, const char *src,
                                    const dart__xfer_t *x);

/* memcpy with the common small sizes as inline moves. */
static inline void dart__copy_bytes(char *dst, const char *src, size_t n)
{
  switch (n) {
  case 1: __builtin_memcpy(dst, src, 1); break;
  case 2: __builtin_memcpy(dst, src, 2); break;
  case 4: __builtin_memcpy(dst, src, 4); break;
  case 8: __builtin_memcpy(dst, src, 8); break;
  case 16: __builtin_memcpy(dst, src, 16); break;
  default: memcpy(dst, src, n);
  }
}

static inline void dart__local_copy(char *dst, const char *src,
                                    const dart__xfer_t *x)
{
  if (__builtin_expect(dart__xfer_contiguous(x), 1))
    dart__copy_bytes(dst, src, x->nelem * x->src->base_size);
  else
    dart__copy_layout(dst, src, x);
}

#endif /* DART__ONESIDED_H */
