/*
 * White-box test of the type and op modules (static link): descriptor
 * fields, the MPI types behind them (size, extent, layout), the predefined
 * op table, MINMAX pair types and user-op descriptors.
 */
#include <mpi.h>
#include <string.h>

#include "types/dart_datatype.h"
#include "dart_mpi.h"
#include "dart_test.h"
#include "types/types_internal.h"

static void check_mpi(MPI_Datatype t, int size, MPI_Aint extent)
{
  int s = -1;
  MPI_Aint lb = -1, ext = -1;
  TEST_CHECK(MPI_Type_size(t, &s) == MPI_SUCCESS && s == size);
  TEST_CHECK(MPI_Type_get_extent(t, &lb, &ext) == MPI_SUCCESS);
  TEST_CHECK(lb == 0 && ext == extent);
}

/* Sends n instances of t from src to self and receives them packed as
 * `got` ints; compares with want. */
static void check_layout(MPI_Datatype t, int n, const int *src, int got,
                         const int *want)
{
  int dst[64];
  memset(dst, 0xff, sizeof dst);
  TEST_CHECK(MPI_Sendrecv(src, n, t, 0, 5, dst, got, MPI_INT, 0, 5,
                          MPI_COMM_SELF, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  for (int i = 0; i < got; i++) TEST_CHECK_MSG(dst[i] == want[i], "i=%d", i);
}

static void test_basic(void)
{
  static const size_t sizes[] = {0,
                                 1,
                                 sizeof(short),
                                 sizeof(int),
                                 sizeof(unsigned),
                                 sizeof(long),
                                 sizeof(unsigned long),
                                 sizeof(long long),
                                 sizeof(unsigned long long),
                                 sizeof(float),
                                 sizeof(double),
                                 sizeof(long double)};
  TEST_CHECK(dart__type_get(DART_TYPE_UNDEFINED) == NULL);
  TEST_CHECK(dart__type_get(DART_TYPE_LAST) == NULL);
  TEST_CHECK(dart__type_get(-1) == NULL);
  for (dart_datatype_t t = DART_TYPE_BYTE; t < DART_TYPE_LAST; t++) {
    const dart__type_t *d = dart__type_get(t);
    TEST_CHECK(d != NULL && d->kind == DART__TYPE_BASIC && d->base == t);
    TEST_CHECK(d->elem == t && d->num_elem == 1 && d->extent_elem == 1);
    TEST_CHECK(d->base_size == sizes[t] && dart__basic_size(t) == sizes[t]);
    check_mpi(d->mpi_elem, (int)sizes[t], (MPI_Aint)sizes[t]);
    TEST_CHECK(d->mpi_inst == d->mpi_elem);
  }
  TEST_CHECK(dart__type_get(DART_TYPE_BYTE)->mpi_elem ==
             (CHAR_MIN < 0 ? MPI_SIGNED_CHAR : MPI_UNSIGNED_CHAR));
}

static void test_op_table(void)
{
  TEST_CHECK(dart__op_mpi(DART_OP_SUM, DART_TYPE_LONG_DOUBLE) == MPI_SUM);
  TEST_CHECK(dart__op_mpi(DART_OP_MIN, DART_TYPE_BYTE) == MPI_MIN);
  TEST_CHECK(dart__op_mpi(DART_OP_BAND, DART_TYPE_BYTE) == MPI_BAND);
  TEST_CHECK(dart__op_mpi(DART_OP_LXOR, DART_TYPE_ULONGLONG) == MPI_LXOR);
  TEST_CHECK(dart__op_mpi(DART_OP_BAND, DART_TYPE_FLOAT) == MPI_OP_NULL);
  TEST_CHECK(dart__op_mpi(DART_OP_LAND, DART_TYPE_DOUBLE) == MPI_OP_NULL);
  TEST_CHECK(dart__op_mpi(DART_OP_REPLACE, DART_TYPE_DOUBLE) == MPI_REPLACE);
  TEST_CHECK(dart__op_mpi(DART_OP_NO_OP, DART_TYPE_INT) == MPI_NO_OP);
  TEST_CHECK(dart__op_mpi(DART_OP_MINMAX, DART_TYPE_INT) == MPI_OP_NULL);
  TEST_CHECK(dart__op_mpi(DART_OP_UNDEFINED, DART_TYPE_INT) == MPI_OP_NULL);
  TEST_CHECK(dart__op_mpi(DART_OP_LAST, DART_TYPE_INT) == MPI_OP_NULL);
  TEST_CHECK(dart__op_mpi(DART_OP_SUM, DART_TYPE_UNDEFINED) == MPI_OP_NULL);
  TEST_CHECK(dart__op_mpi(DART_OP_SUM, 1 << 22) == MPI_OP_NULL);
  for (dart_datatype_t t = DART_TYPE_BYTE; t < DART_TYPE_LAST; t++) {
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    TEST_CHECK(dart__op_minmax(t, &pair) != MPI_OP_NULL);
    size_t sz = dart__basic_size(t);
    check_mpi(pair, (int)(2 * sz), (MPI_Aint)(2 * sz));
  }
  MPI_Datatype pair;
  TEST_CHECK(dart__op_minmax(DART_TYPE_LAST, &pair) == MPI_OP_NULL);
}

static void test_derived(void)
{
  dart_datatype_t c, s, x, sc;
  size_t bl[3] = {1, 2, 3}, off[3] = {0, 4, 10};
  int src[64];
  for (int i = 0; i < 64; i++) src[i] = i;
  TEST_OK(dart_type_create_custom(24, &c));
  const dart__type_t *d = dart__type_get(c);
  TEST_CHECK(d && d->kind == DART__TYPE_CUSTOM && d->base == DART_TYPE_BYTE);
  TEST_CHECK(d->elem == c && d->base_size == 24 && d->num_elem == 1);
  TEST_CHECK(dart__type_is_contiguous(d));
  check_mpi(d->mpi_inst, 24, 24);

  TEST_OK(dart_type_create_strided(DART_TYPE_INT, 5, 2, &s));
  d = dart__type_get(s);
  TEST_CHECK(d && d->kind == DART__TYPE_STRIDED && d->base == DART_TYPE_INT);
  TEST_CHECK(d->num_elem == 2 && d->extent_elem == 5 && !d->owns_elem);
  TEST_CHECK(!dart__type_is_contiguous(d));
  check_mpi(d->mpi_inst, 8, 20);
  check_layout(d->mpi_inst, 3, src, 6, (int[]){0, 1, 5, 6, 10, 11});

  TEST_OK(dart_type_create_indexed(DART_TYPE_INT, 3, bl, off, &x));
  d = dart__type_get(x);
  TEST_CHECK(d && d->kind == DART__TYPE_INDEXED && d->count == 3);
  TEST_CHECK(d->num_elem == 6 && d->extent_elem == 13);
  TEST_CHECK(d->offsets[2] == 10 && d->blocklens[2] == 3);
  check_mpi(d->mpi_inst, 24, 52);
  check_layout(d->mpi_inst, 2, src, 12,
               (int[]){0, 4, 5, 10, 11, 12, 13, 17, 18, 23, 24, 25});

  TEST_OK(dart_type_create_strided(c, 3, 1, &sc));
  TEST_CHECK(dart__types_live() == 4);
  TEST_OK(dart_type_destroy(&c)); /* base gone, derived type still fine */
  TEST_CHECK(dart__type_get(c) == NULL);
  d = dart__type_get(sc);
  TEST_CHECK(d && d->base_size == 24 && d->owns_elem && d->num_elem == 1);
  check_mpi(d->mpi_inst, 24, 72);
  check_mpi(d->mpi_elem, 24, 24);
  dart_datatype_t stale = s;
  TEST_OK(dart_type_destroy(&s));
  TEST_CHECK(dart__type_get(stale) == NULL &&
             dart__type_lookup("t", stale) == NULL);
  TEST_OK(dart_type_destroy(&x));
  TEST_OK(dart_type_destroy(&sc));
  TEST_CHECK(dart__types_live() == 0);
}

static void op_fn(const void *in, void *inout, size_t len, void *ud)
{
  (void)in;
  (void)inout;
  (void)len;
  (void)ud;
}

static void test_user_ops(void)
{
  dart_datatype_t c;
  dart_operation_t op;
  int ud;
  TEST_OK(dart_type_create_custom(12, &c));
  TEST_OK(dart_op_create(op_fn, &ud, false, c, true, &op));
  const dart__user_op_t *u = dart__op_user(op);
  TEST_CHECK(u && u->fn == op_fn && u->userdata == &ud && !u->commute);
  TEST_CHECK(u->dtype == c && u->elem_size == 12);
  TEST_OK(dart_type_destroy(&c));
  check_mpi(u->mpi_type, 12, 12); /* private duplicate survives */
  int commute = -1;
  TEST_CHECK(MPI_Op_commutative(u->mpi_op, &commute) == MPI_SUCCESS &&
             !commute);
  TEST_CHECK(dart__op_user(DART_OP_SUM) == NULL);
  TEST_CHECK(dart__op_user(op + 1) == NULL);
  TEST_CHECK(dart__ops_live() == 1);
  dart_operation_t stale = op;
  TEST_OK(dart_op_destroy(&op));
  TEST_CHECK(dart__op_user(stale) == NULL && dart__ops_live() == 0);
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  test_basic();
  test_op_table();
  test_derived();
  test_user_ops();
  TEST_OK(dart_exit());
  return 0;
}
