/*
 * Plain (non-atomic) element-wise target[i] = target[i] op values[i] for
 * bulk accumulates on mapped memory, run while the caller holds the
 * target's gate (cpu_gate.c). One loop per (basic type, op), written so
 * that the compiler vectorizes it. The results are those of
 * dart__atomic_combine (cpu_atomic.c), element by element and bit for
 * bit: integers wrap around as unsigned, MIN is a < b ? a : b and MAX
 * a > b ? a : b with a the target's old value (the x86 min/max
 * instructions compute exactly that, NaNs included), logical ops give 0
 * or 1, REPLACE copies the origin's bytes, and a long double keeps the
 * target's padding bytes for every op but REPLACE (docs/design.md 5.3).
 */
#if defined(__GNUC__) && !defined(__clang__)
/* GCC vectorizes loops of unknown trip count from -O3 (-O2 only with the
 * "very cheap" cost model, which refuses them); clang does at -O2. */
#pragma GCC optimize("O3")
#endif

#include <string.h>

#include "transport/cpu_atomic.h"

/* Wider vectors where the CPU has them, chosen once by the loader. */
#if defined(__x86_64__) && defined(__gnu_linux__) &&                           \
    (!defined(__clang__) || __clang_major__ >= 14)
#define DART__BULK_CLONES                                                      \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define DART__BULK_CLONES
#endif

/* One loop per op of a type T (U: the unsigned type its integer
 * arithmetic wraps in, W: the type the product is computed in, so that
 * types narrower than int do not overflow a signed int). V is T with
 * alignment 1: the origin's buffer need not be element-aligned. */
#define LOOP(expr)                                                             \
  {                                                                            \
    for (size_t i = 0; i < n; i++) {                                           \
      __typeof__(*t) a = t[i], b = v[i];                                       \
      t[i] = (expr);                                                           \
    }                                                                          \
    return 0;                                                                  \
  }

#define ARITH_CASES(T, U, W, is_int)                                           \
  case DART_OP_MIN: LOOP(a < b ? a : b);                                       \
  case DART_OP_MAX: LOOP(a > b ? a : b);                                       \
  case DART_OP_SUM:                                                            \
    if (is_int) LOOP((T)((U)a + (U)b));                                        \
    LOOP((T)(a + b));                                                          \
  case DART_OP_PROD:                                                           \
    if (is_int) LOOP((T)(U)((W)(U)a * (W)(U)b));                               \
    LOOP((T)(a * b));                                                          \
  case DART_OP_LAND: LOOP((T)(a && b));                                        \
  case DART_OP_LOR: LOOP((T)(a || b));                                         \
  case DART_OP_LXOR: LOOP((T)(!a != !b));                                      \
  case DART_OP_REPLACE: memmove(t, v, n * sizeof(T)); return 0;                \
  case DART_OP_NO_OP:                                                          \
    return 0

#define DEF_INT(NAME, T, U, W)                                                 \
  typedef T NAME##_v __attribute__((aligned(1), may_alias));                   \
  DART__BULK_CLONES static int NAME##_bulk(void *tp, const void *vp, size_t n, \
                                           dart_operation_t op)                \
  {                                                                            \
    T *t = tp;                                                                 \
    const NAME##_v *v = vp;                                                    \
    switch (op) {                                                              \
    case DART_OP_BAND: LOOP((T)(a & b));                                       \
    case DART_OP_BOR: LOOP((T)(a | b));                                        \
    case DART_OP_BXOR: LOOP((T)(a ^ b)); ARITH_CASES(T, U, W, 1);              \
    default: return -1;                                                        \
    }                                                                          \
  }

#define DEF_FLT(NAME, T)                                                       \
  typedef T NAME##_v __attribute__((aligned(1), may_alias));                   \
  DART__BULK_CLONES static int NAME##_bulk(void *tp, const void *vp, size_t n, \
                                           dart_operation_t op)                \
  {                                                                            \
    T *t = tp;                                                                 \
    const NAME##_v *v = vp;                                                    \
    switch (op) {                                                              \
      ARITH_CASES(T, T, T, 0);                                                 \
    default: return -1;                                                        \
    }                                                                          \
  }

DEF_INT(i8, char, unsigned char, unsigned int)
DEF_INT(i16, short, unsigned short, unsigned int)
DEF_INT(i32, int, unsigned int, unsigned int)
DEF_INT(u32, unsigned int, unsigned int, unsigned int)
DEF_INT(i64, long, unsigned long, unsigned long)
DEF_INT(u64, unsigned long, unsigned long, unsigned long)
DEF_INT(ill, long long, unsigned long long, unsigned long long)
DEF_INT(ull, unsigned long long, unsigned long long, unsigned long long)
DEF_FLT(f32, float)
DEF_FLT(f64, double)

/* long double: REPLACE copies the origin's bytes; every other op writes
 * the result's DART__LD_VALUE_BYTES and keeps the target's padding. */
static int f80_bulk(void *tp, const void *vp, size_t n, dart_operation_t op)
{
  char *t = tp;
  const char *v = vp;
  const size_t sz = sizeof(long double);
  if (op == DART_OP_REPLACE) {
    memmove(t, v, n * sz);
    return 0;
  }
  if (op == DART_OP_NO_OP) return 0;
  for (size_t i = 0; i < n; i++) {
    long double a, b, r;
    memcpy(&a, t + i * sz, sz);
    memcpy(&b, v + i * sz, sz);
    switch (op) {
    case DART_OP_MIN: r = a < b ? a : b; break;
    case DART_OP_MAX: r = a > b ? a : b; break;
    case DART_OP_SUM: r = a + b; break;
    case DART_OP_PROD: r = a * b; break;
    case DART_OP_LAND: r = (long double)(a && b); break;
    case DART_OP_LOR: r = (long double)(a || b); break;
    case DART_OP_LXOR: r = (long double)(!a != !b); break;
    default: return -1;
    }
    memcpy(t + i * sz, &r, DART__LD_VALUE_BYTES);
  }
  return 0;
}

int dart__cpu_bulk(void *target, const void *values, size_t nelem,
                   dart_datatype_t t, dart_operation_t op)
{
  switch (t) {
  case DART_TYPE_BYTE: return i8_bulk(target, values, nelem, op);
  case DART_TYPE_SHORT: return i16_bulk(target, values, nelem, op);
  case DART_TYPE_INT: return i32_bulk(target, values, nelem, op);
  case DART_TYPE_UINT: return u32_bulk(target, values, nelem, op);
  case DART_TYPE_LONG: return i64_bulk(target, values, nelem, op);
  case DART_TYPE_ULONG: return u64_bulk(target, values, nelem, op);
  case DART_TYPE_LONGLONG: return ill_bulk(target, values, nelem, op);
  case DART_TYPE_ULONGLONG: return ull_bulk(target, values, nelem, op);
  case DART_TYPE_FLOAT: return f32_bulk(target, values, nelem, op);
  case DART_TYPE_DOUBLE: return f64_bulk(target, values, nelem, op);
  case DART_TYPE_LONG_DOUBLE: return f80_bulk(target, values, nelem, op);
  default: return -1;
  }
}
