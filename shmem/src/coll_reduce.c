/*
 * Reductions: the element-wise kernels of every (type, operation) pair of
 * the spec's tables, made from the type table's X-macro lists
 * (shmemi_types_gen.h), and the team form over dart_allreduce.
 *
 * DART has no basic type for most OpenSHMEM types (int8_t, complex, ...), so
 * the team form runs every reduction as a DART custom type of the element's
 * size with a DART custom operation calling the kernel; both are made on
 * first use and kept per (type, operation) until shmem_finalize.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_coll.h"

#define SHMEMI_NOPS 7

/* Bitwise operations act on the bytes whatever the integer type; the
 * types allowed are the 1.5 table's and the 1.4 *_to_all forms' signed
 * short, int, long and long long. */
#define BIT_CASE(NAME, CT, TN) case SHMEMI_DT_##NAME:
static int bitwise_type(shmemi_dtype_t dt)
{
  switch (dt) {
    SHMEMI_FOR_REDUCE_BITWISE(BIT_CASE)
  case SHMEMI_DT_SHORT:
  case SHMEMI_DT_INT:
  case SHMEMI_DT_LONG:
  case SHMEMI_DT_LONGLONG: return 1;
  default: return 0;
  }
}

static void red_bits(shmemi_op_t op, unsigned char *a, const unsigned char *b,
                     size_t n)
{
  for (size_t i = 0; i < n; i++) {
    if (op == SHMEMI_OP_AND)
      a[i] &= b[i];
    else if (op == SHMEMI_OP_OR)
      a[i] |= b[i];
    else
      a[i] ^= b[i];
  }
}

/* Kernels: a[i] = a[i] op b[i]. */
#define MINMAX_FN(NAME, CT, TN)                                                \
  static void red_mm_##NAME(shmemi_op_t op, CT *a, const CT *b, size_t n)      \
  {                                                                            \
    for (size_t i = 0; i < n; i++) {                                           \
      if (op == SHMEMI_OP_MAX ? b[i] > a[i] : b[i] < a[i]) a[i] = b[i];        \
    }                                                                          \
  }
#define ARITH_FN(NAME, CT, TN)                                                 \
  static void red_ar_##NAME(shmemi_op_t op, CT *a, const CT *b, size_t n)      \
  {                                                                            \
    for (size_t i = 0; i < n; i++) {                                           \
      if (op == SHMEMI_OP_SUM)                                                 \
        a[i] = a[i] + b[i];                                                    \
      else                                                                     \
        a[i] = a[i] * b[i];                                                    \
    }                                                                          \
  }
SHMEMI_FOR_REDUCE_MINMAX(MINMAX_FN)
SHMEMI_FOR_REDUCE_ARITH(ARITH_FN)

#define MINMAX_CASE(NAME, CT, TN)                                              \
  case SHMEMI_DT_##NAME:                                                       \
    red_mm_##NAME(op, dest, src, n);                                           \
    return 0;
#define ARITH_CASE(NAME, CT, TN)                                               \
  case SHMEMI_DT_##NAME: red_ar_##NAME(op, dest, src, n); return 0;

int shmemi_reduce_apply(shmemi_dtype_t dt, shmemi_op_t op, void *dest,
                        const void *src, size_t n)
{
  switch (op) {
  case SHMEMI_OP_AND:
  case SHMEMI_OP_OR:
  case SHMEMI_OP_XOR:
    if (!bitwise_type(dt)) return -1;
    red_bits(op, dest, src, n * shmemi_dtype_size(dt));
    return 0;
  case SHMEMI_OP_MAX:
  case SHMEMI_OP_MIN:
    switch (dt) {
      SHMEMI_FOR_REDUCE_MINMAX(MINMAX_CASE)
    default: return -1;
    }
  case SHMEMI_OP_SUM:
  case SHMEMI_OP_PROD:
    switch (dt) {
      SHMEMI_FOR_REDUCE_ARITH(ARITH_CASE)
    default: return -1;
    }
  }
  return -1;
}

static const char *op_name(shmemi_op_t op)
{
  static const char *names[SHMEMI_NOPS] = {"and", "or",  "xor", "max",
                                           "min", "sum", "prod"};
  return (unsigned)op < SHMEMI_NOPS ? names[op] : "?";
}

/* The DART type and operation of each (type, op), made on first use. */
struct red_key {
  shmemi_dtype_t dt;
  shmemi_op_t op;
};
static struct red_key keys[SHMEMI_DT_COUNT][SHMEMI_NOPS];
static dart_datatype_t dtypes[SHMEMI_DT_COUNT];
static dart_operation_t dops[SHMEMI_DT_COUNT][SHMEMI_NOPS];

static void dart_kernel(const void *in, void *inout, size_t len, void *ud)
{
  const struct red_key *k = ud;
  shmemi_reduce_apply(k->dt, k->op, inout, in, len);
}

static pthread_mutex_t ops_lock = PTHREAD_MUTEX_INITIALIZER;

static int dart_op_of(shmemi_dtype_t dt, shmemi_op_t op, dart_datatype_t *type,
                      dart_operation_t *dop)
{
  int rc = 0;
  pthread_mutex_lock(&ops_lock);
  if (dtypes[dt] == DART_TYPE_UNDEFINED &&
      dart_type_create_custom(shmemi_dtype_size(dt), &dtypes[dt]) != DART_OK)
    rc = -1;
  if (rc == 0 && dops[dt][op] == DART_OP_UNDEFINED) {
    keys[dt][op].dt = dt;
    keys[dt][op].op = op;
    if (dart_op_create(dart_kernel, &keys[dt][op], true, dtypes[dt], false,
                       &dops[dt][op]) != DART_OK)
      rc = -1;
  }
  *type = dtypes[dt];
  *dop = dops[dt][op];
  pthread_mutex_unlock(&ops_lock);
  return rc;
}

void shmemi_reduce_fini(void)
{
  for (int d = 0; d < SHMEMI_DT_COUNT; d++) {
    for (int o = 0; o < SHMEMI_NOPS; o++)
      if (dops[d][o] != DART_OP_UNDEFINED) dart_op_destroy(&dops[d][o]);
    if (dtypes[d] != DART_TYPE_UNDEFINED) dart_type_destroy(&dtypes[d]);
  }
}

int shmemi_team_reduce(shmem_team_t team, void *dest, const void *source,
                       size_t nreduce, shmemi_dtype_t dt, shmemi_op_t op)
{
  static const char *fn = "shmem_TYPE_OP_reduce";
  shmemi_check_init(fn);
  if (!shmemi_team_check(fn, team)) return -1;
  if (nreduce == 0) return 0;
  if (dest == NULL || source == NULL) {
    shmemi_warn(fn, "%s is NULL", dest == NULL ? "dest" : "source");
    return -1;
  }
  char probe[1] = {0};
  if ((unsigned)dt >= SHMEMI_DT_COUNT || (unsigned)op >= SHMEMI_NOPS ||
      shmemi_reduce_apply(dt, op, probe, probe, 0) != 0) {
    shmemi_warn(fn, "no reduction %s on type %s", op_name(op),
                shmemi_dtype_name(dt));
    return -1;
  }
  if (shmemi_team_is_world(team) &&
      shmemi_direct_reduce(fn, dest, source, nreduce, dt, op))
    return 0;
  dart_datatype_t type;
  dart_operation_t dop;
  if (dart_op_of(dt, op, &type, &dop) != 0) {
    shmemi_warn(fn, "cannot make the DART operation %s on %s", op_name(op),
                shmemi_dtype_name(dt));
    return -1;
  }
  size_t nbytes = nreduce * shmemi_dtype_size(dt);
  const void *in = source;
  void *copy = NULL;
  const char *s = source, *d = dest;
  if (s < d + nbytes && d < s + nbytes) { /* in place */
    if ((copy = malloc(nbytes)) == NULL) {
      shmemi_warn(fn, "out of memory (%zu bytes)", nbytes);
      return -1;
    }
    memcpy(copy, source, nbytes);
    in = copy;
  }
  dart_ret_t r = dart_allreduce(in, dest, nreduce, type, dop, team->dteam);
  free(copy);
  if (r != DART_OK) {
    shmemi_warn(fn, "dart_allreduce failed (%d)", (int)r);
    return -1;
  }
  return 0;
}
