/* Internal: CPU atomics on mapped memory (see cpu_atomic.c). */
#ifndef DART__TRANSPORT_CPU_ATOMIC_H
#define DART__TRANSPORT_CPU_ATOMIC_H

#include <dash/dart/if/dart_types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dart_log.h"

/* Bytes of a long double that carry its value; the rest is padding that
 * atomics never invent (x86: the 80-bit x87 format in 16 bytes). */
#if defined(__x86_64__) || defined(__i386__)
#define DART__LD_VALUE_BYTES 10
#else
#define DART__LD_VALUE_BYTES sizeof(long double)
#endif

/*
 * For i < nelem, atomically: old[i] = target[i]; target[i] = old[i] op
 * values[i] (old may be NULL). esz is the size of the basic type t.
 * Returns -1 (nothing done) for a type without CPU atomics on this
 * platform or a target not aligned to esz. op must be valid for t.
 */
DART__HIDDEN int dart__cpu_atomic(void *target, const void *values, void *old,
                                  size_t nelem, size_t esz, dart_datatype_t t,
                                  dart_operation_t op);

/* Does dart__cpu_atomic_fast handle op (for its integer types)? */
static inline bool dart__cpu_atomic_fast_op(dart_operation_t op)
{
  switch (op) {
  case DART_OP_SUM:
  case DART_OP_BAND:
  case DART_OP_BOR:
  case DART_OP_BXOR:
  case DART_OP_REPLACE:
  case DART_OP_NO_OP: return true;
  default: return false;
  }
}

/*
 * The single-instruction fetch-ops (dart__cpu_atomic_fast_op) on the
 * integer word *p with operand v: o = the old value. Any other op runs
 * `other` (a CAS loop, or giving up). One switch for the inline fast path
 * below and the per-type ops of cpu_atomic.c.
 */
#define DART__FETCH_OP(p, v, o, op, other)                                     \
  switch (op) {                                                                \
  case DART_OP_SUM: o = __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); break;     \
  case DART_OP_BAND: o = __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); break;    \
  case DART_OP_BOR: o = __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); break;      \
  case DART_OP_BXOR: o = __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); break;    \
  case DART_OP_REPLACE: o = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);       \
      break;                                                                   \
  case DART_OP_NO_OP: o = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;         \
  default: other;                                                              \
  }

/*
 * Inline fast path of dart__cpu_atomic for one 4- or 8-byte integer
 * element and the ops with a single instruction; returns false (nothing
 * done) for anything else. target must be aligned.
 */
static inline __attribute__((always_inline)) bool
dart__cpu_atomic_fast(void *target, const void *value, void *old, size_t esz,
                      dart_datatype_t t, dart_operation_t op)
{
  if (t < DART_TYPE_INT || t > DART_TYPE_ULONGLONG) return false;
#define DART__FAST_OP(U)                                                       \
  do {                                                                         \
    U *p = target, v, o;                                                       \
    __builtin_memcpy(&v, value, sizeof v);                                     \
    DART__FETCH_OP(p, v, o, op, return false)                                  \
    if (old != NULL) __builtin_memcpy(old, &o, sizeof o);                      \
    return true;                                                               \
  } while (0)
  if (esz == 8) DART__FAST_OP(uint64_t);
  if (esz == 4) DART__FAST_OP(uint32_t);
#undef DART__FAST_OP
  return false;
}

/* Atomic compare-and-swap of one integer element; -1 as above. */
DART__HIDDEN int dart__cpu_cas(void *target, const void *value,
                               const void *compare, void *old, size_t esz,
                               dart_datatype_t t);

/* Non-atomic out = a op b for one element of basic type t (emulations of
 * atomics on top of MPI compare-and-swap or a lock); -1 if unsupported. */
DART__HIDDEN int dart__atomic_combine(void *out, const void *a, const void *b,
                                      dart_datatype_t t, dart_operation_t op);

/*
 * Non-atomic target[i] = target[i] op values[i] for i < nelem (cpu_bulk.c:
 * plain vectorizable loops, same results as dart__atomic_combine); the
 * caller holds the target's gate. values need not be aligned. -1 if t or
 * op is not supported.
 */
DART__HIDDEN int dart__cpu_bulk(void *target, const void *values, size_t nelem,
                                dart_datatype_t t, dart_operation_t op);

#endif /* DART__TRANSPORT_CPU_ATOMIC_H */
