/*
 * Atomics on every standard and extended type, blocking and nbi, through
 * DART's atomics: one mechanism per segment (CPU atomics on a heap whose
 * PEs are all on one node, MPI atomics otherwise; data+BSS: CPU atomics
 * here when every PE maps every PE's data (data.c), else MPI), so
 * different operations on one location are atomic with each other
 * (docs/design.md §5.3). Integers travel as the unsigned DART type of
 * their size, so every atomic on a location uses one MPI datatype.
 */
#include <string.h>

#include <dash/dart/ext/dartx.h>

#include "shmem_internal.h"

#define X(NAME, ctype, tname, dart) {sizeof(ctype), dart, #tname},
const shmemi_dtinfo_t shmemi_dtinfo[SHMEMI_DT_COUNT] = {SHMEMI_FOR_ALL_DART(X)};
#undef X

static dart_datatype_t amo_type(shmemi_dtype_t dt)
{
  dart_datatype_t d = shmemi_dtinfo[dt].dart;
  if (d == DART_TYPE_FLOAT || d == DART_TYPE_DOUBLE) return d;
  switch (shmemi_dtinfo[dt].size) {
  case 4: return DART_TYPE_UINT;
  case 8: return DART_TYPE_ULONG;
  default: return DART_TYPE_UNDEFINED;
  }
}

static const dart_operation_t amo_op[] = {
    [SHMEMI_AMO_FETCH] = DART_OP_NO_OP,  [SHMEMI_AMO_SET] = DART_OP_REPLACE,
    [SHMEMI_AMO_SWAP] = DART_OP_REPLACE, [SHMEMI_AMO_CSWAP] = DART_OP_UNDEFINED,
    [SHMEMI_AMO_FADD] = DART_OP_SUM,     [SHMEMI_AMO_ADD] = DART_OP_SUM,
    [SHMEMI_AMO_FAND] = DART_OP_BAND,    [SHMEMI_AMO_AND] = DART_OP_BAND,
    [SHMEMI_AMO_FOR] = DART_OP_BOR,      [SHMEMI_AMO_OR] = DART_OP_BOR,
    [SHMEMI_AMO_FXOR] = DART_OP_BXOR,    [SHMEMI_AMO_XOR] = DART_OP_BXOR};

static int fetching(shmemi_amo_t op)
{
  return op == SHMEMI_AMO_FETCH || op == SHMEMI_AMO_SWAP ||
         op == SHMEMI_AMO_CSWAP || op == SHMEMI_AMO_FADD ||
         op == SHMEMI_AMO_FAND || op == SHMEMI_AMO_FOR || op == SHMEMI_AMO_FXOR;
}

/* CPU atomic of a 4- or 8-byte element at a mapped address (data+BSS
 * when every PE maps every PE's data: data.c). Floating-point types only
 * have fetch/set/swap, which move the bit pattern. */
#define CPU_AMO(T)                                                             \
  do {                                                                         \
    T *p = (T *)a, v = 0, o = 0;                                               \
    if (value != NULL) memcpy(&v, value, sizeof v);                            \
    switch (op) {                                                              \
    case SHMEMI_AMO_FETCH: o = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;    \
    case SHMEMI_AMO_SET: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); break;      \
    case SHMEMI_AMO_SWAP:                                                      \
      o = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                         \
      break;                                                                   \
    case SHMEMI_AMO_CSWAP:                                                     \
      memcpy(&o, cond, sizeof o);                                              \
      __atomic_compare_exchange_n(p, &o, v, 0, __ATOMIC_SEQ_CST,               \
                                  __ATOMIC_SEQ_CST);                           \
      break;                                                                   \
    case SHMEMI_AMO_FADD:                                                      \
    case SHMEMI_AMO_ADD: o = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);       \
        break;                                                                 \
    case SHMEMI_AMO_FAND:                                                      \
    case SHMEMI_AMO_AND: o = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);       \
        break;                                                                 \
    case SHMEMI_AMO_FOR:                                                       \
    case SHMEMI_AMO_OR: o = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break;  \
    case SHMEMI_AMO_FXOR:                                                      \
    case SHMEMI_AMO_XOR: o = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);       \
        break;                                                                 \
    }                                                                          \
    if (fetch != NULL) memcpy(fetch, &o, sizeof o);                            \
  } while (0)

static void cpu_amo(shmemi_amo_t op, size_t esz, char *a, const void *value,
                    const void *cond, void *fetch)
{
  if (esz == 4)
    CPU_AMO(uint32_t);
  else
    CPU_AMO(uint64_t);
}

void shmemi_amo(shmem_ctx_t ctx, shmemi_amo_t op, shmemi_dtype_t dt, void *dest,
                const void *value, const void *cond, void *fetch, int pe,
                int nbi, const char *fn)
{
  struct shmemi_ctx *c = shmemi_ctx_check(ctx, fn);
  int w = shmemi_ctx_pe(c, pe, fn);
  size_t esz = shmemi_dtinfo[dt].size;
  dart_datatype_t dty = amo_type(dt);
  shmemi_tgt_t t;
  shmemi_target(dest, esz, w, fn, &t);
  if (((uintptr_t)dest & (esz - 1)) != 0)
    shmemi_fatal(fn, "address %p is not aligned to its %zu-byte type", dest,
                 esz);
  if (fetching(op) && fetch == NULL) shmemi_fatal(fn, "fetch is NULL");
  if (t.seg == 1 && shmemi_g.data_cpu_atomics && t.local != NULL &&
      (esz == 4 || esz == 8)) {
    cpu_amo(op, esz, t.local, value, cond, fetching(op) ? fetch : NULL);
    dartx_progress(); /* a PE polling a static lock still serves MPI */
    return;
  }
  uint64_t zero[2] = {0, 0};
  dart_gptr_t g = shmemi_tgt_gptr(&t);
  dart_ret_t r;
  if (op == SHMEMI_AMO_CSWAP)
    r = dart_compare_and_swap(g, value, cond, fetch, dty);
  else if (fetching(op))
    r = dart_fetch_and_op(g, value ? value : zero, fetch, dty, amo_op[op]);
  else
    r = dart_accumulate(g, value, 1, dty, amo_op[op]);
  if (r != DART_OK)
    shmemi_fatal(fn, "DART atomic on %p at PE %d failed (%d)", dest, w, (int)r);
  /* Fetched values are valid after a flush, which also completes the
   * atomic at the target (nothing left for the quiet); a non-fetching
   * operand must be reusable (local completion). nbi fetches complete at
   * the quiet. */
  if (fetching(op) && !nbi) {
    if (dart_flush(g) != DART_OK)
      shmemi_fatal(fn, "completing the atomic failed");
    return;
  }
  shmemi_mark(c, &t);
  if (!fetching(op) && dart_flush_local(g) != DART_OK)
    shmemi_fatal(fn, "completing the atomic failed");
}
