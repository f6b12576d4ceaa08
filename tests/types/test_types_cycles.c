/*
 * Many dart_init/dart_exit cycles with derived types and user ops left
 * alive: dart_exit must release every MPI datatype and MPI op DART created
 * (counted through the MPI profiling interface), and handles from an
 * earlier cycle must be rejected in later ones.
 */
#include <mpi.h>
#include <stdlib.h>

#include "dart_test.h"

static long types_live, ops_live, base_types, base_ops;

/* PMPI wrappers: count MPI datatypes and ops created minus freed. */
int MPI_Type_contiguous(int n, MPI_Datatype old, MPI_Datatype *t)
{
  int rc = PMPI_Type_contiguous(n, old, t);
  types_live += rc == MPI_SUCCESS;
  return rc;
}
int MPI_Type_vector(int n, int b, int s, MPI_Datatype old, MPI_Datatype *t)
{
  int rc = PMPI_Type_vector(n, b, s, old, t);
  types_live += rc == MPI_SUCCESS;
  return rc;
}
int MPI_Type_indexed(int n, const int b[], const int d[], MPI_Datatype old,
                     MPI_Datatype *t)
{
  int rc = PMPI_Type_indexed(n, b, d, old, t);
  types_live += rc == MPI_SUCCESS;
  return rc;
}
int MPI_Type_create_struct(int n, const int b[], const MPI_Aint d[],
                           const MPI_Datatype old[], MPI_Datatype *t)
{
  int rc = PMPI_Type_create_struct(n, b, d, old, t);
  types_live += rc == MPI_SUCCESS;
  return rc;
}
int MPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint ext,
                            MPI_Datatype *t)
{
  int rc = PMPI_Type_create_resized(old, lb, ext, t);
  types_live += rc == MPI_SUCCESS;
  return rc;
}
int MPI_Type_dup(MPI_Datatype old, MPI_Datatype *t)
{
  int rc = PMPI_Type_dup(old, t);
  types_live += rc == MPI_SUCCESS;
  return rc;
}
int MPI_Type_free(MPI_Datatype *t)
{
  int rc = PMPI_Type_free(t);
  types_live -= rc == MPI_SUCCESS;
  return rc;
}
int MPI_Op_create(MPI_User_function *fn, int commute, MPI_Op *op)
{
  int rc = PMPI_Op_create(fn, commute, op);
  ops_live += rc == MPI_SUCCESS;
  return rc;
}
int MPI_Op_free(MPI_Op *op)
{
  int rc = PMPI_Op_free(op);
  ops_live -= rc == MPI_SUCCESS;
  return rc;
}

static void sum_op(const void *in, void *inout, size_t len, void *ud)
{
  (void)ud;
  for (size_t i = 0; i < len; i++) ((long *)inout)[i] += ((const long *)in)[i];
}

static dart_datatype_t old_type;
static dart_operation_t old_op;

static void cycle(int *argc, char ***argv)
{
  TEST_OK(dart_init(argc, argv));
  size_t n;
  TEST_OK(dart_size(&n));
  /* handles of the previous cycle are dead */
  if (old_type != DART_TYPE_UNDEFINED) {
    TEST_EQ_RET(dart_type_destroy(&old_type), DART_ERR_INVAL);
    TEST_EQ_RET(dart_op_destroy(&old_op), DART_ERR_INVAL);
  }
  dart_datatype_t c, s, x;
  size_t bl[2] = {1, 2}, off[2] = {0, 3};
  TEST_OK(dart_type_create_custom(sizeof(long), &c));
  TEST_OK(dart_type_create_strided(c, 2, 1, &s));
  TEST_OK(dart_type_create_indexed(DART_TYPE_INT, 2, bl, off, &x));
  dart_operation_t op;
  TEST_OK(dart_op_create(sum_op, NULL, true, c, false, &op));
  /* the wrappers see DART's MPI objects (interposition works) */
  TEST_CHECK(types_live - base_types >= 5 && ops_live - base_ops >= 1);
  long v[2] = {1, 2}, r[2];
  TEST_OK(dart_allreduce(v, r, 2, c, op, DART_TEAM_ALL));
  TEST_CHECK(r[0] == (long)n && r[1] == 2 * (long)n);
  TEST_OK(
      dart_allreduce(v, r, 2, DART_TYPE_LONG, DART_OP_MINMAX, DART_TEAM_ALL));
  TEST_CHECK(r[0] == 1 && r[1] == 2);
  TEST_OK(dart_type_destroy(&x)); /* one destroyed, the rest left to exit */
  old_type = s;
  old_op = op;
  TEST_OK(dart_exit());
}

int main(int argc, char **argv)
{
  int cycles = argc > 1 ? atoi(argv[1]) : 1000;
  MPI_Init(&argc, &argv);
  base_types = types_live;
  base_ops = ops_live;
  for (int i = 0; i < cycles; i++) {
    cycle(&argc, &argv);
    TEST_CHECK_MSG(types_live == base_types && ops_live == base_ops,
                   "cycle %d: %ld MPI types, %ld MPI ops leaked", i,
                   types_live - base_types, ops_live - base_ops);
  }
  MPI_Finalize();
  return 0;
}
