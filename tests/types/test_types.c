/*
 * Derived datatypes and user ops through the public API: creation,
 * destruction, handle validation (stale, forged, basic), bad input.
 */
#include <stdint.h>
#include <string.h>

#include "dart_test.h"

static void dummy_op(const void *in, void *inout, size_t len, void *ud)
{
  (void)in;
  (void)inout;
  (void)len;
  (void)ud;
}

static void test_create_destroy(void)
{
  dart_datatype_t c, s, x, sc;
  size_t bl[3] = {1, 2, 3}, off[3] = {0, 4, 10};
  TEST_OK(dart_type_create_custom(24, &c));
  TEST_OK(dart_type_create_strided(DART_TYPE_INT, 4, 2, &s));
  TEST_OK(dart_type_create_indexed(DART_TYPE_DOUBLE, 3, bl, off, &x));
  TEST_OK(dart_type_create_strided(c, 3, 1, &sc)); /* custom base */
  dart_datatype_t all[4] = {c, s, x, sc};
  for (int i = 0; i < 4; i++) {
    TEST_CHECK(all[i] > DART_TYPE_LAST);
    for (int j = 0; j < i; j++) TEST_CHECK(all[i] != all[j]);
  }
  /* custom base destroyed first: the strided type built on it survives */
  TEST_OK(dart_type_destroy(&c));
  TEST_CHECK(c == DART_TYPE_UNDEFINED);
  dart_datatype_t stale = s;
  TEST_OK(dart_type_destroy(&s));
  TEST_EQ_RET(dart_type_destroy(&stale), DART_ERR_INVAL); /* double destroy */
  TEST_OK(dart_type_destroy(&x));
  TEST_OK(dart_type_destroy(&sc));
  /* many cycles reuse slots without exhausting anything */
  dart_datatype_t prev = DART_TYPE_UNDEFINED;
  for (int i = 0; i < 20000; i++) {
    dart_datatype_t t;
    TEST_OK(dart_type_create_custom(8, &t));
    TEST_CHECK(t != prev);
    prev = t;
    TEST_OK(dart_type_destroy(&t));
  }
  dart_datatype_t keep = prev;
  TEST_EQ_RET(dart_type_destroy(&keep), DART_ERR_INVAL);
}

static void test_bad_types(void)
{
  dart_datatype_t t = 12345, s;
  size_t bl[2] = {1, 1}, off[2] = {0, 2}, big[1] = {(size_t)INT_MAX + 1};
  TEST_EQ_RET(dart_type_create_custom(8, NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_custom(0, &t), DART_ERR_INVAL);
  TEST_CHECK(t == DART_TYPE_UNDEFINED);
  TEST_EQ_RET(dart_type_create_custom((size_t)INT_MAX + 1, &t), DART_ERR_INVAL);
  t = 7;
  TEST_EQ_RET(dart_type_create_strided(DART_TYPE_INT, 1, 2, &t),
              DART_ERR_INVAL);
  TEST_CHECK(t == DART_TYPE_UNDEFINED);
  TEST_EQ_RET(dart_type_create_strided(DART_TYPE_INT, 4, 0, &t),
              DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_type_create_strided(DART_TYPE_INT, (size_t)INT_MAX + 1, 1, &t),
      DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_strided(DART_TYPE_UNDEFINED, 2, 1, &t),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_strided(DART_TYPE_LAST, 2, 1, &t),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_strided(-3, 2, 1, &t), DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_strided((dart_datatype_t)0x7fff1234, 2, 1, &t),
              DART_ERR_INVAL); /* forged */
  TEST_EQ_RET(dart_type_create_strided(DART_TYPE_INT, 2, 1, NULL),
              DART_ERR_INVAL);
  TEST_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &s));
  TEST_EQ_RET(dart_type_create_strided(s, 4, 1, &t),
              DART_ERR_INVAL); /* non-contig base */
  TEST_EQ_RET(dart_type_create_indexed(s, 2, bl, off, &t), DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_indexed(DART_TYPE_INT, 0, bl, off, &t),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_indexed(DART_TYPE_INT, 2, NULL, off, &t),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_indexed(DART_TYPE_INT, 2, bl, NULL, &t),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_indexed(DART_TYPE_INT, 1, big, off, &t),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_type_create_indexed(DART_TYPE_INT, 1, bl, big, &t),
              DART_ERR_INVAL);
  size_t zero[2] = {0, 0};
  TEST_EQ_RET(dart_type_create_indexed(DART_TYPE_INT, 2, zero, off, &t),
              DART_ERR_INVAL);
  TEST_CHECK(t == DART_TYPE_UNDEFINED);
  /* destroy: NULL, basic, undefined, forged */
  TEST_EQ_RET(dart_type_destroy(NULL), DART_ERR_INVAL);
  for (dart_datatype_t b = DART_TYPE_UNDEFINED; b <= DART_TYPE_LAST; b++) {
    dart_datatype_t bb = b;
    TEST_EQ_RET(dart_type_destroy(&bb), DART_ERR_INVAL);
    TEST_CHECK(bb == b);
  }
  dart_datatype_t forged[] = {-1,        13, 1 << 20, s + 1, s ^ (1 << 21),
                              INTPTR_MAX};
  for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++)
    TEST_EQ_RET(dart_type_destroy(&forged[i]), DART_ERR_INVAL);
  TEST_OK(dart_type_destroy(&s));
}

static void test_ops(void)
{
  dart_operation_t op = 77, op2;
  dart_datatype_t c, s;
  TEST_OK(dart_type_create_custom(16, &c));
  TEST_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &s));
  TEST_EQ_RET(dart_op_create(dummy_op, NULL, true, DART_TYPE_INT, false, NULL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_op_create(NULL, NULL, true, DART_TYPE_INT, false, &op),
              DART_ERR_INVAL);
  TEST_CHECK(op == DART_OP_UNDEFINED);
  op = 77;
  TEST_EQ_RET(dart_op_create(dummy_op, NULL, true, s, false, &op),
              DART_ERR_INVAL);
  TEST_CHECK(op == DART_OP_UNDEFINED);
  TEST_EQ_RET(
      dart_op_create(dummy_op, NULL, true, DART_TYPE_UNDEFINED, false, &op),
      DART_ERR_INVAL);
  TEST_EQ_RET(dart_op_create(dummy_op, NULL, true, 999999, false, &op),
              DART_ERR_INVAL);
  TEST_OK(dart_op_create(dummy_op, NULL, true, DART_TYPE_INT, false, &op));
  TEST_OK(dart_op_create(dummy_op, &op, false, c, true, &op2));
  TEST_CHECK(op > DART_OP_LAST && op2 > DART_OP_LAST && op != op2);
  TEST_OK(dart_type_destroy(&c)); /* op keeps working without its type */
  dart_operation_t stale = op;
  TEST_OK(dart_op_destroy(&op));
  TEST_CHECK(op == DART_OP_UNDEFINED);
  TEST_EQ_RET(dart_op_destroy(&stale), DART_ERR_INVAL);
  TEST_EQ_RET(dart_op_destroy(NULL), DART_ERR_INVAL);
  for (dart_operation_t p = DART_OP_UNDEFINED; p <= DART_OP_LAST; p++) {
    dart_operation_t pp = p;
    TEST_EQ_RET(dart_op_destroy(&pp), DART_ERR_INVAL);
  }
  dart_operation_t forged = op2 + 1;
  TEST_EQ_RET(dart_op_destroy(&forged), DART_ERR_INVAL);
  forged = UINTPTR_MAX;
  TEST_EQ_RET(dart_op_destroy(&forged), DART_ERR_INVAL);
  TEST_OK(dart_op_destroy(&op2));
  TEST_OK(dart_type_destroy(&s));
}

int main(int argc, char **argv)
{
  dart_datatype_t t = 5;
  dart_operation_t op = 5;
  TEST_EQ_RET(dart_type_create_custom(8, &t), DART_ERR_NOTINIT);
  TEST_CHECK(t == DART_TYPE_UNDEFINED);
  TEST_EQ_RET(dart_op_create(dummy_op, NULL, true, DART_TYPE_INT, false, &op),
              DART_ERR_NOTINIT);
  TEST_OK(dart_init(&argc, &argv));
  test_create_destroy();
  test_bad_types();
  test_ops();
  /* left alive on purpose: dart_exit releases them, a late destroy is OK */
  TEST_OK(dart_type_create_custom(8, &t));
  TEST_OK(dart_op_create(dummy_op, NULL, true, t, false, &op));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_exit());
  TEST_OK(dart_op_destroy(&op));
  TEST_CHECK(op == DART_OP_UNDEFINED);
  TEST_OK(dart_type_destroy(&t));
  TEST_CHECK(t == DART_TYPE_UNDEFINED);
  return 0;
}
