/*
 * dart_allreduce and dart_reduce on DART_TEAM_ALL and sub-teams: every
 * predefined op on every basic type (with every root for reduce), invalid
 * op/type pairs, MINMAX, user ops (commutative, non-commutative with order
 * check, user data, custom types) and the in-place forms.
 */
#include <string.h>

#include "coll_teams.h"

#define NE 5
#define NTYPES (DART_TYPE_LAST - 1)

/* Stores the small non-negative integer v as element i of type t. */
static void set_elem(dart_datatype_t t, void *buf, int i, long long v)
{
  switch (t) {
  case DART_TYPE_BYTE: ((char *)buf)[i] = (char)v; break;
  case DART_TYPE_SHORT: ((short *)buf)[i] = (short)v; break;
  case DART_TYPE_INT: ((int *)buf)[i] = (int)v; break;
  case DART_TYPE_UINT: ((unsigned *)buf)[i] = (unsigned)v; break;
  case DART_TYPE_LONG: ((long *)buf)[i] = (long)v; break;
  case DART_TYPE_ULONG: ((unsigned long *)buf)[i] = (unsigned long)v; break;
  case DART_TYPE_LONGLONG: ((long long *)buf)[i] = v; break;
  case DART_TYPE_ULONGLONG:
    ((unsigned long long *)buf)[i] = (unsigned long long)v;
    break;
  case DART_TYPE_FLOAT: ((float *)buf)[i] = (float)v; break;
  case DART_TYPE_DOUBLE: ((double *)buf)[i] = (double)v; break;
  case DART_TYPE_LONG_DOUBLE: ((long double *)buf)[i] = (long double)v; break;
  default: TEST_CHECK(0);
  }
}

static long long get_elem(dart_datatype_t t, const void *buf, int i)
{
  switch (t) {
  case DART_TYPE_BYTE: return ((const char *)buf)[i];
  case DART_TYPE_SHORT: return ((const short *)buf)[i];
  case DART_TYPE_INT: return ((const int *)buf)[i];
  case DART_TYPE_UINT: return ((const unsigned *)buf)[i];
  case DART_TYPE_LONG: return ((const long *)buf)[i];
  case DART_TYPE_ULONG: return (long long)((const unsigned long *)buf)[i];
  case DART_TYPE_LONGLONG: return ((const long long *)buf)[i];
  case DART_TYPE_ULONGLONG:
    return (long long)((const unsigned long long *)buf)[i];
  case DART_TYPE_FLOAT: return (long long)((const float *)buf)[i];
  case DART_TYPE_DOUBLE: return (long long)((const double *)buf)[i];
  case DART_TYPE_LONG_DOUBLE: return (long long)((const long double *)buf)[i];
  default: TEST_CHECK(0); return 0;
  }
}

static bool is_integer(dart_datatype_t t)
{
  return t <= DART_TYPE_ULONGLONG;
}

static bool op_valid(dart_operation_t op, dart_datatype_t t)
{
  switch (op) {
  case DART_OP_MIN:
  case DART_OP_MAX:
  case DART_OP_SUM:
  case DART_OP_PROD: return true;
  case DART_OP_BAND:
  case DART_OP_BOR:
  case DART_OP_BXOR:
  case DART_OP_LAND:
  case DART_OP_LOR:
  case DART_OP_LXOR: return is_integer(t);
  default: return false;
  }
}

/* Contribution of team unit u, element i: small values so that PROD over
 * four units fits a signed char; logical ops see 0/1 patterns. */
static long long contrib(dart_operation_t op, int u, int i)
{
  if (op == DART_OP_LAND || op == DART_OP_LOR || op == DART_OP_LXOR)
    return (u + i) % 2 == 0 || i == 4 ? (i == 3 ? 0 : 1) : 0;
  return (u + i) % 3 + 1 +
         (op == DART_OP_BOR || op == DART_OP_BXOR ? 4 * i : 0);
}

static long long combine(dart_operation_t op, long long a, long long b)
{
  switch (op) {
  case DART_OP_MIN: return a < b ? a : b;
  case DART_OP_MAX: return a > b ? a : b;
  case DART_OP_SUM: return a + b;
  case DART_OP_PROD: return a * b;
  case DART_OP_BAND: return a & b;
  case DART_OP_BOR: return a | b;
  case DART_OP_BXOR: return a ^ b;
  case DART_OP_LAND: return a && b;
  case DART_OP_LOR: return a || b;
  case DART_OP_LXOR: return !a != !b;
  default: TEST_CHECK(0); return 0;
  }
}

static long long expected(dart_operation_t op, int n, int i)
{
  long long r = contrib(op, 0, i);
  for (int u = 1; u < n; u++) r = combine(op, r, contrib(op, u, i));
  return r;
}

static void check_result(const coll_team_t *t, dart_operation_t op,
                         dart_datatype_t ty, const void *res)
{
  for (int i = 0; i < NE; i++) {
    long long got = get_elem(ty, res, i), want = expected(op, t->size, i);
    TEST_CHECK_MSG(got == want,
                   "team %s op %d type %d elem %d: got %lld want %lld", t->name,
                   (int)op, (int)ty, i, got, want);
  }
}

/* One op on one type: allreduce (plain, both in-place forms) and reduce at
 * every root; invalid pairs must fail on every unit. */
static void test_op_type(const coll_team_t *t, dart_operation_t op,
                         dart_datatype_t ty)
{
  long double snd[NE], rcv[NE]; /* large enough for every basic type */
  for (int i = 0; i < NE; i++) set_elem(ty, snd, i, contrib(op, t->me, i));
  if (!op_valid(op, ty)) {
    TEST_EQ_RET(dart_allreduce(snd, rcv, NE, ty, op, t->id), DART_ERR_INVAL);
    TEST_EQ_RET(dart_reduce(snd, rcv, NE, ty, op, (dart_team_unit_t){0}, t->id),
                DART_ERR_INVAL);
    return;
  }
  memset(rcv, 0, sizeof rcv);
  TEST_OK(dart_allreduce(snd, rcv, NE, ty, op, t->id));
  check_result(t, op, ty, rcv);
  memcpy(rcv, snd, sizeof rcv);
  TEST_OK(dart_allreduce(NULL, rcv, NE, ty, op, t->id));
  check_result(t, op, ty, rcv);
  memcpy(rcv, snd, sizeof rcv);
  TEST_OK(dart_allreduce(rcv, rcv, NE, ty, op, t->id));
  check_result(t, op, ty, rcv);
  for (int root = 0; root < t->size; root++) {
    memset(rcv, 0, sizeof rcv);
    TEST_OK(dart_reduce(snd, t->me == root ? rcv : NULL, NE, ty, op,
                        (dart_team_unit_t){root}, t->id));
    if (t->me == root) check_result(t, op, ty, rcv);
    memcpy(rcv, snd, sizeof rcv); /* in place (at root and elsewhere) */
    TEST_OK(dart_reduce(rcv, rcv, NE, ty, op, (dart_team_unit_t){root}, t->id));
    if (t->me == root) check_result(t, op, ty, rcv);
  }
}

static void test_predefined(const coll_team_t *t)
{
  for (dart_operation_t op = DART_OP_UNDEFINED; op <= DART_OP_LAST; op++) {
    if (op == DART_OP_MINMAX) continue;
    for (dart_datatype_t ty = DART_TYPE_BYTE; ty < DART_TYPE_LAST; ty++)
      test_op_type(t, op, ty);
  }
  int x = 1, y;
  TEST_OK(dart_allreduce(&x, &y, 0, DART_TYPE_INT, DART_OP_SUM, t->id));
}

/* (min,max) pairs: unit u contributes pair k = (10+u+k, 50-u+k). */
static void test_minmax(const coll_team_t *t)
{
  for (dart_datatype_t ty = DART_TYPE_BYTE; ty < DART_TYPE_LAST; ty++) {
    long double snd[6], rcv[6];
    for (int k = 0; k < 3; k++) {
      set_elem(ty, snd, 2 * k + DART_OP_MINMAX_MIN, 10 + t->me + k);
      set_elem(ty, snd, 2 * k + DART_OP_MINMAX_MAX, 50 - t->me + k);
    }
    TEST_OK(dart_allreduce(snd, rcv, 6, ty, DART_OP_MINMAX, t->id));
    for (int k = 0; k < 3; k++) {
      TEST_CHECK(get_elem(ty, rcv, 2 * k) == 10 + k);
      TEST_CHECK(get_elem(ty, rcv, 2 * k + 1) == 50 + k);
    }
    int root = t->size - 1;
    TEST_OK(dart_reduce(snd, rcv, 6, ty, DART_OP_MINMAX,
                        (dart_team_unit_t){root}, t->id));
    if (t->me == root)
      TEST_CHECK(get_elem(ty, rcv, 0) == 10 && get_elem(ty, rcv, 5) == 52);
    TEST_EQ_RET(dart_allreduce(snd, rcv, 5, ty, DART_OP_MINMAX, t->id),
                DART_ERR_INVAL);
  }
}

/* Non-commutative: elements are decimal strings of unit ids; combining
 * concatenates in increasing unit order (associative, order-sensitive). */
typedef struct {
  long long digits, ndigits;
} cat_t;

static long long pow10ll(long long n)
{
  long long p = 1;
  while (n-- > 0) p *= 10;
  return p;
}

static void cat_op(const void *in, void *inout, size_t len, void *ud)
{
  const cat_t *a = in;
  cat_t *b = inout;
  for (size_t i = 0; i < len; i++) {
    b[i].digits = a[i].digits * pow10ll(b[i].ndigits) + b[i].digits;
    b[i].ndigits += a[i].ndigits;
  }
  ++*(int *)ud;
}

/* Commutative, on a basic type, scaled by user data. */
static void scaled_sum(const void *in, void *inout, size_t len, void *ud)
{
  int f = *(const int *)ud;
  for (size_t i = 0; i < len; i++)
    ((int *)inout)[i] += f * ((const int *)in)[i] / f;
}

static void test_user_ops(const coll_team_t *t)
{
  int calls = 0, factor = 3;
  dart_datatype_t ct;
  dart_operation_t cat, sum;
  TEST_OK(dart_type_create_custom(sizeof(cat_t), &ct));
  TEST_OK(dart_op_create(cat_op, &calls, false, ct, true, &cat));
  TEST_OK(
      dart_op_create(scaled_sum, &factor, true, DART_TYPE_INT, false, &sum));
  cat_t mine[3], res[3];
  for (int k = 0; k < 3; k++) mine[k] = (cat_t){(t->me + 1 + k) % 10, 1};
  long long want[3] = {0, 0, 0};
  for (int u = 0; u < t->size; u++)
    for (int k = 0; k < 3; k++) want[k] = want[k] * 10 + (u + 1 + k) % 10;
  TEST_OK(dart_allreduce(mine, res, 3, ct, cat, t->id));
  for (int k = 0; k < 3; k++)
    TEST_CHECK_MSG(res[k].digits == want[k] && res[k].ndigits == t->size,
                   "elem %d: %lld want %lld", k, res[k].digits, want[k]);
  for (int root = 0; root < t->size; root++) {
    memcpy(res, mine, sizeof res);
    TEST_OK(
        dart_reduce(NULL, res, 3, ct, cat, (dart_team_unit_t){root}, t->id));
    if (t->me == root) TEST_CHECK(res[2].digits == want[2]);
  }
  /* the operator ran somewhere (MPI may apply it on some units only) */
  int total_calls = 0;
  TEST_OK(dart_allreduce(&calls, &total_calls, 1, DART_TYPE_INT, DART_OP_SUM,
                         t->id));
  if (t->size > 1) TEST_CHECK(total_calls > 0);
  int v[NE], r[NE];
  for (int i = 0; i < NE; i++) v[i] = t->me + i;
  TEST_OK(dart_allreduce(v, r, NE, DART_TYPE_INT, sum, t->id));
  for (int i = 0; i < NE; i++)
    TEST_CHECK(r[i] == t->size * (t->size - 1) / 2 + t->size * i);
  /* datatype must be the op's */
  TEST_EQ_RET(dart_allreduce(v, r, NE, DART_TYPE_UINT, sum, t->id),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_allreduce(mine, res, 3, ct, sum, t->id), DART_ERR_INVAL);
  /* the op outlives its (temporary) type */
  dart_datatype_t ct_handle = ct;
  TEST_OK(dart_type_destroy(&ct));
  TEST_OK(dart_allreduce(mine, res, 3, ct_handle, cat, t->id));
  TEST_CHECK(res[0].digits == want[0]);
  dart_operation_t stale = sum;
  TEST_OK(dart_op_destroy(&sum));
  TEST_EQ_RET(dart_allreduce(v, r, NE, DART_TYPE_INT, stale, t->id),
              DART_ERR_INVAL);
  TEST_OK(dart_op_destroy(&cat));
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  coll_team_t teams[COLL_NTEAMS];
  coll_teams_create(teams);
  for (int k = 0; k < COLL_NTEAMS; k++) {
    test_predefined(&teams[k]);
    test_minmax(&teams[k]);
    test_user_ops(&teams[k]);
  }
  coll_teams_destroy(teams);
  TEST_OK(dart_exit());
  return 0;
}
