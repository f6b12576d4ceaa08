/*
 * dart_accumulate, dart_accumulate_blocking_local, dart_fetch_and_op and
 * dart_compare_and_swap.
 *
 * One rule per segment decides how atomics are carried out, so that all
 * atomic accesses to a location use the same mechanism: segments of a
 * team on a single node (seg->cpu_atomics) use CPU atomic instructions on
 * the shared mapping; all others use MPI atomics on the RMA window, for
 * every target including the caller itself. On mapped memory, single
 * ops announce themselves at the target's accumulate gate and bulk
 * accumulates take it and run plain loops (transport/cpu_gate.h).
 */
#include <pthread.h>
#include <string.h>

#include "transport/cpu_atomic.h"
#include "transport/probe.h"
#include "transport/progress.h"
#include "transport/cpu_gate.h"
#include "onesided/onesided.h"

/* MPI op of every (predefined op, basic type) pair valid for atomics, as
 * dart__op_mpi answers, cached on first use (MPI_OP_NULL: invalid). */
static MPI_Op op_cache[DART_OP_LAST][DART_TYPE_LAST];
static pthread_once_t op_cache_once = PTHREAD_ONCE_INIT;
static int op_cache_ready;

static void op_cache_fill(void)
{
  for (int op = 0; op < DART_OP_LAST; op++)
    for (int t = 0; t < DART_TYPE_LAST; t++)
      op_cache[op][t] = (op == DART_OP_MINMAX || op == DART_OP_UNDEFINED)
                            ? MPI_OP_NULL
                            : dart__op_mpi((dart_operation_t)op, t);
  __atomic_store_n(&op_cache_ready, 1, __ATOMIC_RELEASE);
}

static inline MPI_Op atomic_op(dart_operation_t op, dart_datatype_t basic)
{
  if (__builtin_expect(!__atomic_load_n(&op_cache_ready, __ATOMIC_ACQUIRE), 0))
    pthread_once(&op_cache_once, op_cache_fill);
  if (op >= DART_OP_LAST) return MPI_OP_NULL;
  return op_cache[op][basic];
}

/* Validates a basic dtype and a predefined op valid for it. */
static inline dart_ret_t atomic_check(const char *func, dart_datatype_t dtype,
                                      dart_operation_t op,
                                      const dart__type_t **type, MPI_Op *mop)
{
  const dart__type_t *t = dart__type_get(dtype);
  if (__builtin_expect(t == NULL || t->kind != DART__TYPE_BASIC, 0)) {
    dart__log(DART__LOG_ERROR, func,
              "datatype %lld is not a basic type (atomics need one)",
              (long long)dtype);
    return DART_ERR_INVAL;
  }
  MPI_Op m = atomic_op(op, dtype);
  if (__builtin_expect(m == MPI_OP_NULL, 0)) {
    dart__log(DART__LOG_ERROR, func,
              "operation %llu is not a predefined atomic operation for "
              "datatype %lld",
              (unsigned long long)op, (long long)dtype);
    return DART_ERR_INVAL;
  }
  *type = t;
  *mop = m;
  return DART_OK;
}

static __attribute__((cold)) dart_ret_t
misaligned(const char *func, dart_gptr_t gptr, size_t esz, uintptr_t where)
{
  dart__log(DART__LOG_ERROR, func,
            "target at offset %llu lies at %llu mod %zu in memory: not "
            "aligned to the %zu-byte element size",
            (unsigned long long)gptr.addr_or_offs.offset,
            (unsigned long long)(where & (esz - 1)), esz, esz);
  return DART_ERR_INVAL;
}

static __attribute__((cold)) dart_ret_t unsupported(const char *func,
                                                    dart_datatype_t dtype)
{
  dart__log(DART__LOG_ERROR, func,
            "datatype %lld has no atomics on this platform (long double "
            "atomics need x86-64)",
            (long long)dtype);
  return DART_ERR_INVAL;
}

/*
 * Resolves the target of an atomic of nelem elements of esz bytes. The
 * target's address must be element-aligned (CPU atomics need it, and so do
 * MPI's): a registration may start anywhere, so the check is on the
 * address, not on the offset. Mapped targets have their address; MPI-path
 * windows start 16-byte aligned (globmem/window.c), so there the window
 * displacement has the address's alignment.
 */
static inline dart_ret_t atomic_target(const char *func, dart_gptr_t gptr,
                                       size_t nelem, size_t esz,
                                       dart__target_t *t)
{
  size_t bytes;
  if (__builtin_mul_overflow(nelem, esz, &bytes)) {
    dart__log(DART__LOG_ERROR, func, "%zu elements are too many", nelem);
    return DART_ERR_INVAL;
  }
  dart_ret_t ret = dart__segment_resolve(func, gptr, bytes, t);
  if (__builtin_expect(ret != DART_OK, 0)) return ret;
  uintptr_t where = t->local ? (uintptr_t)t->local : (uintptr_t)t->disp;
  if (__builtin_expect((where & (esz - 1)) != 0, 0))
    return misaligned(func, gptr, esz, where);
  return DART_OK;
}

/* Global id of the target unit (its accumulate gate). */
static inline int global_unit(const dart__target_t *t)
{
  return t->seg->team->l2g[t->unit];
}

/*
 * The common case of dart_fetch_and_op (result != NULL) and of a
 * one-element accumulate (result NULL), inline: a 4- or 8-byte integer, an
 * op with a single atomic instruction, an aligned target in a segment with
 * CPU atomics. false: nothing done (everything else and every bad argument
 * take the general path, which checks and logs).
 */
static inline __attribute__((always_inline)) bool
cpu_fast(const char *func, int kind, dart_gptr_t gptr, const void *value,
         void *result, dart_datatype_t dtype, dart_operation_t op)
{
  if (__builtin_expect(value == NULL ||
                           (uintptr_t)dtype - DART_TYPE_INT >
                               (uintptr_t)(DART_TYPE_ULONGLONG - DART_TYPE_INT),
                       0))
    return false;
  size_t esz = dart__basic_types[dtype].base_size;
  dart__segment_t *seg = NULL;
  char *p = dart__segment_fast(gptr, esz, &seg);
  if (__builtin_expect(p == NULL || ((uintptr_t)p & (esz - 1)) != 0 ||
                           !seg->cpu_atomics || !dart__cpu_atomic_fast_op(op),
                       0))
    return false;
  int g = DART__OBS_GUNIT(gptr.teamid, seg, gptr.unitid);
  uint32_t *slot = dart__gate_enter(func, g);
  dart__cpu_atomic_fast(p, value, result, esz, dtype, op);
  dart__gate_leave(slot);
  dart__shm_mark_atomic();
  DART__OBS_OP(kind, DART__OBS_SHM, g, esz);
  return true;
}

/* Common body of both accumulate calls (out of line: the one-element
 * common case is cpu_fast). */
static __attribute__((noinline)) dart_ret_t
accumulate(const char *func, dart_gptr_t gptr, const void *values, size_t nelem,
           dart_datatype_t dtype, dart_operation_t op, bool local_completion)
{
  if (nelem == 0) return DART_OK;
  DART__CHECK_NOTNULL(values);
  const dart__type_t *ty;
  MPI_Op mop;
  dart_ret_t ret = atomic_check(func, dtype, op, &ty, &mop);
  if (ret != DART_OK) return ret;
  size_t esz = ty->base_size;
  dart__target_t t;
  ret = atomic_target(func, gptr, nelem, esz, &t);
  if (ret != DART_OK) return ret;
  if (t.seg->cpu_atomics) {
    if (dart__cpu_accumulate(func, global_unit(&t), t.local, values, nelem, esz,
                             dtype, op) != 0)
      return unsupported(func, dtype);
    dart__shm_mark_atomic();
    DART__OBS_OP(DART__OBS_ACC, DART__OBS_SHM, global_unit(&t), nelem * esz);
    return DART_OK;
  }
  uint64_t t0 = DART__OBS_T0_DATA();
  dart__rma_target_t rt;
  dart__segment_rma_target(&t, &rt);
  ret = dart__mpi_atomic(func, &rt, values, NULL, nelem, ty->mpi_elem, esz,
                         dtype, op, mop);
  if (ret == DART_OK && local_completion && t.seg->mpi_used)
    ret = dart__rma_complete(func, &rt, t.unit, DART__RMA_FLUSH_LOCAL);
  DART__OBS_END(t0, DART__OBS_ACC, DART__OBS_MPI, global_unit(&t), nelem * esz);
  return ret;
}

dart_ret_t dart_accumulate(dart_gptr_t gptr, const void *values, size_t nelem,
                           dart_datatype_t dtype, dart_operation_t op)
{
  if (nelem == 1 &&
      cpu_fast("dart_accumulate", DART__OBS_ACC, gptr, values, NULL, dtype, op))
    return DART_OK;
  return accumulate(__func__, gptr, values, nelem, dtype, op, false);
}

/* A CPU atomic is complete when done: the same fast path. */
dart_ret_t dart_accumulate_blocking_local(dart_gptr_t gptr, const void *values,
                                          size_t nelem, dart_datatype_t dtype,
                                          dart_operation_t op)
{
  if (nelem == 1 && cpu_fast("dart_accumulate_blocking_local", DART__OBS_ACC,
                             gptr, values, NULL, dtype, op))
    return DART_OK;
  return accumulate(__func__, gptr, values, nelem, dtype, op, true);
}

/*
 * An atomic read (NO_OP) of the caller's own element that peers reach
 * through MPI: a CPU load after driving MPI progress, as the owner's plain
 * gets are (onesided/rma.c). Every MPI atomic writes a 1-8 byte element
 * with one store, so the load sees the value before or after it (unified
 * memory model, §2). The owner's MPI atomic reads of its own memory would
 * keep peers' accumulates out on Open MPI 4.1's osc/ucx (a unit polling
 * its flag never sees the peer's add; docs/design.md §7.2), and the load
 * is cheaper on every MPI. false: take the MPI path.
 */
static bool own_read(const dart__target_t *t, void *result, size_t esz)
{
  const dart__segment_t *seg = t->seg;
  if (!dart__caps.cap[DART__CAP_UNIFIED] || t->unit != seg->myid ||
      seg->own_base == NULL || esz > 8)
    return false;
  dart__progress_poke();
  const char *p =
      seg->own_base + (t->disp - dart__segment_disp(seg, t->unit, 0));
  if (esz == 1) {
    uint8_t v = __atomic_load_n((const uint8_t *)p, __ATOMIC_SEQ_CST);
    memcpy(result, &v, 1);
  } else if (esz == 2) {
    uint16_t v = __atomic_load_n((const uint16_t *)p, __ATOMIC_SEQ_CST);
    memcpy(result, &v, 2);
  } else if (esz == 4) {
    uint32_t v = __atomic_load_n((const uint32_t *)p, __ATOMIC_SEQ_CST);
    memcpy(result, &v, 4);
  } else {
    uint64_t v = __atomic_load_n((const uint64_t *)p, __ATOMIC_SEQ_CST);
    memcpy(result, &v, 8);
  }
  DART__OBS_OP(DART__OBS_FETCH_OP, DART__OBS_SHM, global_unit(t), esz);
  return true;
}

static __attribute__((noinline)) dart_ret_t
fetch_and_op_slow(dart_gptr_t gptr, const void *value, void *result,
                  dart_datatype_t dtype, dart_operation_t op)
{
  const char *func = "dart_fetch_and_op";
  DART__CHECK_NOTNULL(result);
  /* NO_OP is an atomic load: value may be absent (MPI wants an origin
   * buffer disjoint from the result, so point it at a dummy). */
  long double dummy = 0;
  if (value == NULL && op == DART_OP_NO_OP) value = &dummy;
  DART__CHECK_NOTNULL(value);
  const dart__type_t *ty;
  MPI_Op mop;
  dart_ret_t ret = atomic_check(func, dtype, op, &ty, &mop);
  if (ret != DART_OK) return ret;
  dart__target_t t;
  ret = atomic_target(func, gptr, 1, ty->base_size, &t);
  if (ret != DART_OK) return ret;
  if (t.seg->cpu_atomics) {
    uint32_t *slot = dart__gate_enter(func, global_unit(&t));
    int rc =
        dart__cpu_atomic(t.local, value, result, 1, ty->base_size, dtype, op);
    dart__gate_leave(slot);
    if (rc != 0) return unsupported(func, dtype);
    dart__shm_mark_atomic();
    DART__OBS_OP(DART__OBS_FETCH_OP, DART__OBS_SHM, global_unit(&t),
                 ty->base_size);
    return DART_OK;
  }
  if (op == DART_OP_NO_OP && own_read(&t, result, ty->base_size))
    return DART_OK;
  uint64_t t0 = DART__OBS_T0_DATA();
  dart__rma_target_t rt;
  dart__segment_rma_target(&t, &rt);
  ret = dart__mpi_atomic(func, &rt, value, result, 1, ty->mpi_elem,
                         ty->base_size, dtype, op, mop);
  DART__OBS_END(t0, DART__OBS_FETCH_OP, DART__OBS_MPI, global_unit(&t),
                ty->base_size);
  return ret;
}

/*
 * The common case inline (cpu_fast); everything else (and every bad
 * argument) goes to fetch_and_op_slow.
 */
dart_ret_t dart_fetch_and_op(dart_gptr_t gptr, const void *value, void *result,
                             dart_datatype_t dtype, dart_operation_t op)
{
  if (__builtin_expect(result != NULL, 1) &&
      cpu_fast("dart_fetch_and_op", DART__OBS_FETCH_OP, gptr, value, result,
               dtype, op))
    return DART_OK;
  return fetch_and_op_slow(gptr, value, result, dtype, op);
}

dart_ret_t dart_compare_and_swap(dart_gptr_t gptr, const void *value,
                                 const void *compare, void *result,
                                 dart_datatype_t dtype)
{
  DART__CHECK_NOTNULL(value);
  DART__CHECK_NOTNULL(compare);
  DART__CHECK_NOTNULL(result);
  DART__CHECK_ARG(dtype >= DART_TYPE_BYTE && dtype <= DART_TYPE_ULONGLONG,
                  "datatype %lld is not an integer type (compare-and-swap "
                  "needs BYTE..ULONGLONG)",
                  (long long)dtype);
  const dart__type_t *ty = dart__type_get(dtype);
  dart__target_t t;
  dart_ret_t ret = atomic_target(__func__, gptr, 1, ty->base_size, &t);
  if (__builtin_expect(ret != DART_OK, 0)) return ret;
  if (t.seg->cpu_atomics) {
    uint32_t *slot = dart__gate_enter(__func__, global_unit(&t));
    int rc =
        dart__cpu_cas(t.local, value, compare, result, ty->base_size, dtype);
    dart__gate_leave(slot);
    if (rc != 0) return unsupported(__func__, dtype);
    dart__shm_mark_atomic();
    DART__OBS_OP(DART__OBS_CAS, DART__OBS_SHM, global_unit(&t), ty->base_size);
    return DART_OK;
  }
  uint64_t t0 = DART__OBS_T0_DATA();
  dart__rma_target_t rt;
  dart__segment_rma_target(&t, &rt);
  ret = dart__mpi_cas(__func__, &rt, value, compare, result, ty->mpi_elem,
                      ty->base_size, dtype);
  DART__OBS_END(t0, DART__OBS_CAS, DART__OBS_MPI, global_unit(&t),
                ty->base_size);
  return ret;
}
