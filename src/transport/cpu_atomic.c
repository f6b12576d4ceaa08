/*
 * Element-wise atomic operations with CPU instructions on mapped memory,
 * for segments whose units all share one node (see docs/design.md).
 *
 * Integer SUM/BAND/BOR/BXOR/REPLACE/NO_OP map to single atomic
 * instructions; MIN/MAX/PROD/logical ops run a compare-and-swap loop.
 * Floating-point types are handled through their bit pattern in an
 * unsigned integer of the same size (float/double: 4/8-byte CAS; long
 * double: 16-byte CAS with cmpxchg16b on x86-64). All are sequentially
 * consistent.
 */
#include <stdint.h>
#include <string.h>

#include "transport/cpu_atomic.h"

#define SEQ __ATOMIC_SEQ_CST
#define RLX __ATOMIC_RELAXED

/* a op b for arithmetic types; integers use unsigned wrap-around (the
 * product in unsigned long long: unsigned short operands would be
 * promoted to int and overflow it). */
#define ARITH_COMBINE(T, U, a, b, op, is_int)                                  \
  do {                                                                         \
    switch (op) {                                                              \
    case DART_OP_MIN: return (a) < (b) ? (a) : (b);                            \
    case DART_OP_MAX: return (a) > (b) ? (a) : (b);                            \
    case DART_OP_SUM: return is_int ? (T)((U)(a) + (U)(b)) : (T)((a) + (b));   \
    case DART_OP_PROD:                                                         \
      return is_int ? (T)(U)((unsigned long long)(U)(a) * (U)(b))              \
                    : (T)((a) * (b));                                          \
    case DART_OP_LAND: return (T)((a) && (b));                                 \
    case DART_OP_LOR: return (T)((a) || (b));                                  \
    case DART_OP_LXOR: return (T)(!(a) != !(b));                               \
    case DART_OP_REPLACE: return (b);                                          \
    default: return (a); /* NO_OP */                                           \
    }                                                                          \
  } while (0)

#define INT_BITWISE(T, a, b, op)                                               \
  do {                                                                         \
    switch (op) {                                                              \
    case DART_OP_BAND: return (T)((a) & (b));                                  \
    case DART_OP_BOR: return (T)((a) | (b));                                   \
    case DART_OP_BXOR: return (T)((a) ^ (b));                                  \
    default: break;                                                            \
    }                                                                          \
  } while (0)

/* Integer types: fetch-op instructions where they exist, else CAS loop. */
#define DEF_INT(NAME, T, U)                                                    \
  static T NAME##_combine(T a, T b, dart_operation_t op)                       \
  {                                                                            \
    INT_BITWISE(T, a, b, op);                                                  \
    ARITH_COMBINE(T, U, a, b, op, 1);                                          \
  }                                                                            \
  static void NAME##_op(void *tp, const void *vp, void *oldp,                  \
                        dart_operation_t op)                                   \
  {                                                                            \
    T *t = tp, v, old;                                                         \
    memcpy(&v, vp, sizeof v);                                                  \
    DART__FETCH_OP(t, v, old, op, {                                            \
      old = __atomic_load_n(t, RLX);                                           \
      while (!__atomic_compare_exchange_n(t, &old, NAME##_combine(old, v, op), \
                                          false, SEQ, RLX)) {                  \
      }                                                                        \
    })                                                                         \
    if (oldp != NULL) memcpy(oldp, &old, sizeof old);                          \
  }                                                                            \
  static void NAME##_cas(void *tp, const void *vp, const void *cp, void *oldp) \
  {                                                                            \
    T v, expected;                                                             \
    memcpy(&v, vp, sizeof v);                                                  \
    memcpy(&expected, cp, sizeof expected);                                    \
    __atomic_compare_exchange_n((T *)tp, &expected, v, false, SEQ, SEQ);       \
    memcpy(oldp, &expected, sizeof expected);                                  \
  }

DEF_INT(i8, char, unsigned char)
DEF_INT(i16, short, unsigned short)
DEF_INT(i32, int, unsigned int)
DEF_INT(u32, unsigned int, unsigned int)
DEF_INT(i64, long, unsigned long)
DEF_INT(u64, unsigned long, unsigned long)
DEF_INT(ill, long long, unsigned long long)
DEF_INT(ull, unsigned long long, unsigned long long)

/* Floating types through a same-sized unsigned bit pattern U. */
#define DEF_FLT(NAME, T, U)                                                    \
  static T NAME##_combine(T a, T b, dart_operation_t op)                       \
  {                                                                            \
    ARITH_COMBINE(T, U, a, b, op, 0);                                          \
  }                                                                            \
  static void NAME##_op(void *tp, const void *vp, void *oldp,                  \
                        dart_operation_t op)                                   \
  {                                                                            \
    U *t = tp, ob, nb;                                                         \
    T v, o, n;                                                                 \
    memcpy(&v, vp, sizeof v);                                                  \
    if (op == DART_OP_NO_OP) {                                                 \
      ob = __atomic_load_n(t, SEQ);                                            \
    } else if (op == DART_OP_REPLACE) {                                        \
      memcpy(&nb, &v, sizeof nb);                                              \
      ob = __atomic_exchange_n(t, nb, SEQ);                                    \
    } else {                                                                   \
      ob = __atomic_load_n(t, RLX);                                            \
      do {                                                                     \
        memcpy(&o, &ob, sizeof o);                                             \
        n = NAME##_combine(o, v, op);                                          \
        memcpy(&nb, &n, sizeof nb);                                            \
      } while (!__atomic_compare_exchange_n(t, &ob, nb, false, SEQ, RLX));     \
    }                                                                          \
    if (oldp != NULL) memcpy(oldp, &ob, sizeof(T));                            \
  }

DEF_FLT(f32, float, uint32_t)
DEF_FLT(f64, double, uint64_t)

static long double f80_combine(long double a, long double b,
                               dart_operation_t op)
{
  ARITH_COMBINE(long double, unsigned long long, a, b, op, 0);
}

/*
 * New bytes of a long double element at cur after op with val. Only
 * DART__LD_VALUE_BYTES bytes carry the value (x86: the 80-bit x87 format
 * in 16 bytes); a long double variable's padding is whatever the stack
 * held. REPLACE therefore stores the origin's bytes exactly as the user
 * wrote them, and every other op stores the result's value bytes and
 * keeps the target's padding: no byte that nobody wrote reaches memory.
 */
static void f80_result(void *out, const void *cur, const void *val,
                       dart_operation_t op)
{
  if (op == DART_OP_REPLACE) {
    memmove(out, val, sizeof(long double));
    return;
  }
  long double a, b, r;
  memcpy(&a, cur, sizeof a);
  memcpy(&b, val, sizeof b);
  r = f80_combine(a, b, op);
  memmove(out, cur, sizeof(long double));
  memcpy(out, &r, DART__LD_VALUE_BYTES);
}

#if defined(__x86_64__) && defined(__SIZEOF_INT128__)
#define DART__HAVE_LD_ATOMIC 1
typedef unsigned __int128 u128_t;

/* 16-byte CAS loop (cmpxchg16b); the padding bytes of the 80-bit value
 * are compared as stored, so the loop works on raw memory contents. */
__attribute__((target("cx16"))) static void
f80_op(void *tp, const void *vp, void *oldp, dart_operation_t op)
{
  u128_t *t = tp, ob, nb, prev;
  ob = __sync_val_compare_and_swap(t, (u128_t)0, (u128_t)0); /* atomic read */
  while (op != DART_OP_NO_OP) {
    f80_result(&nb, &ob, vp, op);
    prev = __sync_val_compare_and_swap(t, ob, nb);
    if (prev == ob) break;
    ob = prev;
  }
  if (oldp != NULL) memcpy(oldp, &ob, sizeof(long double));
}
#endif

typedef void (*op_fn)(void *, const void *, void *, dart_operation_t);
typedef void (*cas_fn)(void *, const void *, const void *, void *);

static op_fn op_table(dart_datatype_t t)
{
  switch (t) {
  case DART_TYPE_BYTE: return i8_op;
  case DART_TYPE_SHORT: return i16_op;
  case DART_TYPE_INT: return i32_op;
  case DART_TYPE_UINT: return u32_op;
  case DART_TYPE_LONG: return i64_op;
  case DART_TYPE_ULONG: return u64_op;
  case DART_TYPE_LONGLONG: return ill_op;
  case DART_TYPE_ULONGLONG: return ull_op;
  case DART_TYPE_FLOAT: return f32_op;
  case DART_TYPE_DOUBLE: return f64_op;
#ifdef DART__HAVE_LD_ATOMIC
  case DART_TYPE_LONG_DOUBLE: return f80_op;
#endif
  default: return NULL;
  }
}

static cas_fn cas_table(dart_datatype_t t)
{
  switch (t) {
  case DART_TYPE_BYTE: return i8_cas;
  case DART_TYPE_SHORT: return i16_cas;
  case DART_TYPE_INT: return i32_cas;
  case DART_TYPE_UINT: return u32_cas;
  case DART_TYPE_LONG: return i64_cas;
  case DART_TYPE_ULONG: return u64_cas;
  case DART_TYPE_LONGLONG: return ill_cas;
  case DART_TYPE_ULONGLONG: return ull_cas;
  default: return NULL;
  }
}

int dart__cpu_atomic(void *target, const void *values, void *old, size_t nelem,
                     size_t esz, dart_datatype_t t, dart_operation_t op)
{
  op_fn fn = op_table(t);
  if (fn == NULL || ((uintptr_t)target & (esz - 1)) != 0) return -1;
  char *tp = target;
  const char *vp = values;
  char *op_old = old;
  for (size_t i = 0; i < nelem; i++)
    fn(tp + i * esz, vp + i * esz, op_old ? op_old + i * esz : NULL, op);
  return 0;
}

int dart__cpu_cas(void *target, const void *value, const void *compare,
                  void *old, size_t esz, dart_datatype_t t)
{
  cas_fn fn = cas_table(t);
  if (fn == NULL || ((uintptr_t)target & (esz - 1)) != 0) return -1;
  fn(target, value, compare, old);
  return 0;
}

/* Non-atomic a op b on one element of basic type t (for emulations). */
#define COMBINE_CASE(DT, NAME, T)                                              \
  case DT: {                                                                   \
    T x, y, r;                                                                 \
    memcpy(&x, a, sizeof x);                                                   \
    memcpy(&y, b, sizeof y);                                                   \
    r = NAME##_combine(x, y, op);                                              \
    memcpy(out, &r, sizeof r);                                                 \
    return 0;                                                                  \
  }

int dart__atomic_combine(void *out, const void *a, const void *b,
                         dart_datatype_t t, dart_operation_t op)
{
  switch (t) {
    COMBINE_CASE(DART_TYPE_BYTE, i8, char)
    COMBINE_CASE(DART_TYPE_SHORT, i16, short)
    COMBINE_CASE(DART_TYPE_INT, i32, int)
    COMBINE_CASE(DART_TYPE_UINT, u32, unsigned int)
    COMBINE_CASE(DART_TYPE_LONG, i64, long)
    COMBINE_CASE(DART_TYPE_ULONG, u64, unsigned long)
    COMBINE_CASE(DART_TYPE_LONGLONG, ill, long long)
    COMBINE_CASE(DART_TYPE_ULONGLONG, ull, unsigned long long)
    COMBINE_CASE(DART_TYPE_FLOAT, f32, float)
    COMBINE_CASE(DART_TYPE_DOUBLE, f64, double)
  case DART_TYPE_LONG_DOUBLE: f80_result(out, a, b, op); return 0;
  default: return -1;
  }
}
