/*
 * RMA: put/get (blocking and nbi), strided iput/iget, put-with-signal,
 * signal_fetch. A target the caller maps (itself, a node peer's heap) is
 * copied with memcpy (ordered by the fence of the next quiet, as DART's own
 * mapped path); any other goes through DART's one-sided calls on the heap
 * segment or the data+BSS registration, completed locally before a
 * blocking call returns and at the target by the context's quiet.
 */
#include <string.h>

#include "shmem_internal.h"

void shmemi_target_bad(const void *addr, size_t nbytes, int pe, int seg,
                       const char *fn)
{
  if (seg < 0)
    shmemi_fatal(fn,
                 "address %p is not symmetric (neither the symmetric "
                 "heap nor data/BSS)",
                 addr);
  shmemi_fatal(fn, "%zu bytes at %p (PE %d) exceed the symmetric %s", nbytes,
               addr, pe, seg == 0 ? "heap" : "data segment");
}

static void check_buf(const void *p, size_t n, const char *what, const char *fn)
{
  if (__builtin_expect(p == NULL && n != 0, 0))
    shmemi_fatal(fn, "%s is NULL (%zu bytes)", what, n);
}

void shmemi_put(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                int pe, int nbi, const char *fn)
{
  struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
  int w = shmemi_ctx_pe(c, pe, fn);
  if (nbytes == 0) return;
  check_buf(src, nbytes, "source", fn);
  shmemi_tgt_t t;
  shmemi_target(dest, nbytes, w, fn, &t);
  if (t.local != NULL) {
    memmove(t.local, src, nbytes);
    return;
  }
  dart_gptr_t g = shmemi_tgt_gptr(&t);
  if (dart_put(g, src, nbytes, DART_TYPE_BYTE, DART_TYPE_BYTE) != DART_OK)
    shmemi_fatal(fn, "dart_put of %zu bytes to PE %d failed", nbytes, w);
  shmemi_mark(c, &t);
  /* The source must be reusable on return: local completion. nbi puts
   * complete at the quiet (the source may not be changed until then). */
  if (!nbi && dart_flush_local(g) != DART_OK)
    shmemi_fatal(fn, "dart_flush_local failed");
}

void shmemi_get(shmem_ctx_t ctx, void *dest, const void *src, size_t nbytes,
                int pe, int nbi, const char *fn)
{
  struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
  int w = shmemi_ctx_pe(c, pe, fn);
  if (nbytes == 0) return;
  check_buf(dest, nbytes, "dest", fn);
  shmemi_tgt_t t;
  shmemi_target(src, nbytes, w, fn, &t);
  if (t.local != NULL) {
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    memmove(dest, t.local, nbytes);
    return;
  }
  dart_gptr_t g = shmemi_tgt_gptr(&t);
  if (dart_get(dest, g, nbytes, DART_TYPE_BYTE, DART_TYPE_BYTE) != DART_OK)
    shmemi_fatal(fn, "dart_get of %zu bytes from PE %d failed", nbytes, w);
  if (nbi) {
    shmemi_mark(c, &t);
    return;
  }
  if (dart_flush_local(g) != DART_OK)
    shmemi_fatal(fn, "dart_flush_local failed");
}

/* Strided transfer, element by element on the RMA path (one local
 * completion at the end). put: local = source, sym = dest. */
static void strided(shmem_ctx_t ctx, int put, char *sym, char *local,
                    ptrdiff_t sym_st, ptrdiff_t loc_st, size_t nelems,
                    size_t esz, int pe, const char *fn)
{
  struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
  int w = shmemi_ctx_pe(c, pe, fn);
  if (nelems == 0) return;
  if (sym_st <= 0 || loc_st <= 0)
    shmemi_fatal(fn, "strides %td and %td must be positive", sym_st, loc_st);
  check_buf(local, esz, put ? "source" : "dest", fn);
  size_t span = ((nelems - 1) * (size_t)sym_st + 1) * esz;
  shmemi_tgt_t t;
  shmemi_target(sym, span, w, fn, &t);
  for (size_t i = 0; i < nelems; i++) {
    char *l = local + i * (size_t)loc_st * esz;
    size_t off = i * (size_t)sym_st * esz;
    if (t.local != NULL) {
      if (put)
        memcpy(t.local + off, l, esz);
      else
        memcpy(l, t.local + off, esz);
      continue;
    }
    dart_gptr_t g = shmemi_tgt_gptr(&t);
    g.addr_or_offs.offset += off;
    dart_ret_t r = put ? dart_put(g, l, esz, DART_TYPE_BYTE, DART_TYPE_BYTE)
                       : dart_get(l, g, esz, DART_TYPE_BYTE, DART_TYPE_BYTE);
    if (r != DART_OK) shmemi_fatal(fn, "element %zu to PE %d failed", i, w);
  }
  if (t.local == NULL) {
    shmemi_mark(c, &t);
    if (dart_flush_local(shmemi_tgt_gptr(&t)) != DART_OK)
      shmemi_fatal(fn, "dart_flush_local failed");
  }
}

void shmemi_iput(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst,
                 ptrdiff_t sst, size_t nelems, size_t esz, int pe,
                 const char *fn)
{
  strided(ctx, 1, dest, (char *)src, dst, sst, nelems, esz, pe, fn);
}

void shmemi_iget(shmem_ctx_t ctx, void *dest, const void *src, ptrdiff_t dst,
                 ptrdiff_t sst, size_t nelems, size_t esz, int pe,
                 const char *fn)
{
  strided(ctx, 0, (char *)src, dest, sst, dst, nelems, esz, pe, fn);
}

/* The data is complete at the target before the signal is updated: mapped
 * targets by the ordering of x86 stores before the signal's locked
 * instruction (release fence elsewhere), RMA targets by a flush of the
 * data's target before the signal's atomic. */
void shmemi_put_signal(shmem_ctx_t ctx, void *dest, const void *src,
                       size_t nbytes, uint64_t *sig_addr, uint64_t signal,
                       int sig_op, int pe, int nbi, const char *fn)
{
  struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
  int w = shmemi_ctx_pe(c, pe, fn);
  if (sig_op != SHMEM_SIGNAL_SET && sig_op != SHMEM_SIGNAL_ADD)
    shmemi_fatal(fn,
                 "sig_op %d is neither SHMEM_SIGNAL_SET nor "
                 "SHMEM_SIGNAL_ADD",
                 sig_op);
  shmemi_tgt_t t;
  if (nbytes != 0) {
    check_buf(src, nbytes, "source", fn);
    shmemi_target(dest, nbytes, w, fn, &t);
    if (t.local != NULL) {
      memmove(t.local, src, nbytes);
      __atomic_thread_fence(__ATOMIC_RELEASE);
    } else {
      dart_gptr_t g = shmemi_tgt_gptr(&t);
      if (dart_put(g, src, nbytes, DART_TYPE_BYTE, DART_TYPE_BYTE) != DART_OK ||
          dart_flush(g) != DART_OK)
        shmemi_fatal(fn, "dart_put of %zu bytes to PE %d failed", nbytes, w);
    }
  }
  shmemi_amo(ctx, sig_op == SHMEM_SIGNAL_SET ? SHMEMI_AMO_SET : SHMEMI_AMO_ADD,
             SHMEMI_DT_UINT64, sig_addr, &signal, NULL, NULL, pe, nbi, fn);
}

/* ---- Untyped forms ------------------------------------------------------
 */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
  shmemi_put(SHMEM_CTX_DEFAULT, dest, source, nelems, pe, 0, __func__);
}
SHMEMI_ALIAS(shmem_putmem);
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source,
                      size_t nelems, int pe)
{
  shmemi_put(ctx, dest, source, nelems, pe, 0, __func__);
}
SHMEMI_ALIAS(shmem_ctx_putmem);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
  shmemi_get(SHMEM_CTX_DEFAULT, dest, source, nelems, pe, 0, __func__);
}
SHMEMI_ALIAS(shmem_getmem);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source,
                      size_t nelems, int pe)
{
  shmemi_get(ctx, dest, source, nelems, pe, 0, __func__);
}
SHMEMI_ALIAS(shmem_ctx_getmem);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
  shmemi_put(SHMEM_CTX_DEFAULT, dest, source, nelems, pe, 1, __func__);
}
SHMEMI_ALIAS(shmem_putmem_nbi);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                          size_t nelems, int pe)
{
  shmemi_put(ctx, dest, source, nelems, pe, 1, __func__);
}
SHMEMI_ALIAS(shmem_ctx_putmem_nbi);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
  shmemi_get(SHMEM_CTX_DEFAULT, dest, source, nelems, pe, 1, __func__);
}
SHMEMI_ALIAS(shmem_getmem_nbi);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source,
                          size_t nelems, int pe)
{
  shmemi_get(ctx, dest, source, nelems, pe, 1, __func__);
}
SHMEMI_ALIAS(shmem_ctx_getmem_nbi);

void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
                         uint64_t *sig_addr, uint64_t signal, int sig_op,
                         int pe)
{
  shmemi_put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal,
                    sig_op, pe, 0, __func__);
}
SHMEMI_ALIAS(shmem_putmem_signal);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source,
                             size_t nelems, uint64_t *sig_addr, uint64_t signal,
                             int sig_op, int pe)
{
  shmemi_put_signal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe, 0,
                    __func__);
}
SHMEMI_ALIAS(shmem_ctx_putmem_signal);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op,
                             int pe)
{
  shmemi_put_signal(SHMEM_CTX_DEFAULT, dest, source, nelems, sig_addr, signal,
                    sig_op, pe, 1, __func__);
}
SHMEMI_ALIAS(shmem_putmem_signal_nbi);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest,
                                 const void *source, size_t nelems,
                                 uint64_t *sig_addr, uint64_t signal,
                                 int sig_op, int pe)
{
  shmemi_put_signal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe, 1,
                    __func__);
}
SHMEMI_ALIAS(shmem_ctx_putmem_signal_nbi);
