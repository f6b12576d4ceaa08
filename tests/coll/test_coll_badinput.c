/*
 * Bad input to collectives and two-sided calls: the documented code, one
 * log line, no hang (every unit passes the same bad arguments), and DART
 * keeps working afterwards.
 */
#include <mpi.h>
#include <stdint.h>

#include "dart_test.h"

static const dart_team_unit_t R0 = {0};

/* Every collective with the given team/type/root must return `want`. */
static void all_colls(dart_team_t team, dart_datatype_t ty,
                      dart_team_unit_t root, int want)
{
  long long s[64] = {0}, r[64] = {0};
  size_t cnt[16] = {0}, dsp[16] = {0};
  TEST_EQ_RET(dart_bcast(s, 1, ty, root, team), want);
  TEST_EQ_RET(dart_scatter(s, r, 1, ty, root, team), want);
  TEST_EQ_RET(dart_gather(s, r, 1, ty, root, team), want);
  TEST_EQ_RET(dart_reduce(s, r, 1, ty, DART_OP_SUM, root, team), want);
  if (root.id != 0) return; /* the rest has no root */
  TEST_EQ_RET(dart_allgather(s, r, 1, ty, team), want);
  TEST_EQ_RET(dart_allgatherv(s, 0, ty, r, cnt, dsp, team), want);
  TEST_EQ_RET(dart_alltoall(s, r, 1, ty, team), want);
  TEST_EQ_RET(dart_allreduce(s, r, 1, ty, DART_OP_SUM, team), want);
}

static void test_before_init(void)
{
  all_colls(DART_TEAM_ALL, DART_TYPE_INT, R0, DART_ERR_NOTINIT);
  int x = 0;
  TEST_EQ_RET(dart_send(&x, 1, DART_TYPE_INT, 0, (dart_global_unit_t){0}),
              DART_ERR_NOTINIT);
  TEST_EQ_RET(dart_recv(&x, 1, DART_TYPE_INT, 0, (dart_global_unit_t){0}),
              DART_ERR_NOTINIT);
}

static void test_args(int n)
{
  dart_datatype_t strided, custom, dead;
  TEST_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &strided));
  TEST_OK(dart_type_create_custom(8, &custom));
  TEST_OK(dart_type_create_custom(8, &dead));
  dart_datatype_t dead_handle = dead;
  TEST_OK(dart_type_destroy(&dead));
  /* teams */
  all_colls(DART_TEAM_NULL, DART_TYPE_INT, R0, DART_ERR_INVAL);
  all_colls(1234, DART_TYPE_INT, R0, DART_ERR_INVAL);
  all_colls(-5, DART_TYPE_INT, R0, DART_ERR_INVAL);
  /* roots */
  all_colls(DART_TEAM_ALL, DART_TYPE_INT, (dart_team_unit_t){-1},
            DART_ERR_INVAL);
  all_colls(DART_TEAM_ALL, DART_TYPE_INT, (dart_team_unit_t){n},
            DART_ERR_INVAL);
  all_colls(DART_TEAM_ALL, DART_TYPE_INT, (dart_team_unit_t){INT32_MIN},
            DART_ERR_INVAL);
  /* types: undefined, sentinel, forged, destroyed, non-contiguous */
  dart_datatype_t bad[] = {DART_TYPE_UNDEFINED, DART_TYPE_LAST, 77, -2,
                           dead_handle,         strided};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    all_colls(DART_TEAM_ALL, bad[i], R0, DART_ERR_INVAL);
  /* alltoall: basic types only; predefined ops: basic types only */
  long long s[64] = {0}, r[64] = {0};
  TEST_EQ_RET(dart_alltoall(s, r, 1, custom, DART_TEAM_ALL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_allreduce(s, r, 1, custom, DART_OP_SUM, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_allreduce(s, r, 2, custom, DART_OP_MINMAX, DART_TEAM_ALL),
              DART_ERR_INVAL);
  /* ops: undefined, atomics-only, sentinel, forged */
  dart_operation_t badop[] = {DART_OP_UNDEFINED,
                              DART_OP_REPLACE,
                              DART_OP_NO_OP,
                              DART_OP_LAST,
                              99,
                              (dart_operation_t)1 << 40};
  for (size_t i = 0; i < sizeof badop / sizeof badop[0]; i++) {
    TEST_EQ_RET(dart_allreduce(s, r, 1, DART_TYPE_INT, badop[i], DART_TEAM_ALL),
                DART_ERR_INVAL);
    TEST_EQ_RET(
        dart_reduce(s, r, 1, DART_TYPE_INT, badop[i], R0, DART_TEAM_ALL),
        DART_ERR_INVAL);
  }
  TEST_EQ_RET(
      dart_allreduce(s, r, 1, DART_TYPE_DOUBLE, DART_OP_BXOR, DART_TEAM_ALL),
      DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_allreduce(s, r, 3, DART_TYPE_INT, DART_OP_MINMAX, DART_TEAM_ALL),
      DART_ERR_INVAL);
  /* counts beyond INT_MAX where the spec allows rejecting them */
  size_t huge = (size_t)INT_MAX + 1;
  TEST_EQ_RET(
      dart_allreduce(s, r, huge, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL),
      DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_reduce(s, r, huge, DART_TYPE_INT, DART_OP_SUM, R0, DART_TEAM_ALL),
      DART_ERR_INVAL);
  TEST_EQ_RET(dart_alltoall(s, r, huge, DART_TYPE_INT, DART_TEAM_ALL),
              DART_ERR_INVAL);
  size_t cnt[16], dsp[16];
  for (int i = 0; i < n; i++) cnt[i] = 1, dsp[i] = (size_t)i;
  cnt[n - 1] = huge;
  TEST_EQ_RET(dart_allgatherv(s, 1, DART_TYPE_INT, r, cnt, dsp, DART_TEAM_ALL),
              DART_ERR_INVAL);
  cnt[n - 1] = 1;
  dsp[0] = huge;
  TEST_EQ_RET(dart_allgatherv(s, 1, DART_TYPE_INT, r, cnt, dsp, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_allgatherv(s, 1, DART_TYPE_INT, r, NULL, dsp, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_allgatherv(s, 1, DART_TYPE_INT, r, cnt, NULL, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_OK(dart_type_destroy(&strided));
  TEST_OK(dart_type_destroy(&custom));
}

/* NULL or overlapping buffers, passed alike by every unit. */
static void test_buffers(int n)
{
  long long s[64] = {0}, r[64] = {0};
  TEST_EQ_RET(dart_bcast(NULL, 1, DART_TYPE_INT, R0, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_scatter(NULL, NULL, 1, DART_TYPE_INT, R0, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_gather(NULL, NULL, 1, DART_TYPE_INT, R0, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_allgather(s, NULL, 1, DART_TYPE_INT, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_alltoall(s, NULL, 1, DART_TYPE_INT, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_allreduce(s, NULL, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL),
      DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_reduce(NULL, NULL, 1, DART_TYPE_INT, DART_OP_SUM, R0, DART_TEAM_ALL),
      DART_ERR_INVAL);
  /* overlapping, not in-place */
  TEST_EQ_RET(dart_allgather((char *)r + 4, r, 2, DART_TYPE_INT, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_allreduce((char *)r + 4, r, 2, DART_TYPE_INT, DART_OP_SUM,
                             DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_alltoall((char *)r + 4, r, 2, DART_TYPE_INT, DART_TEAM_ALL),
              DART_ERR_INVAL);
  /* nelem 0: no-op even with NULL buffers */
  TEST_OK(dart_bcast(NULL, 0, DART_TYPE_INT, R0, DART_TEAM_ALL));
  TEST_OK(dart_scatter(NULL, NULL, 0, DART_TYPE_INT, R0, DART_TEAM_ALL));
  TEST_OK(dart_gather(NULL, NULL, 0, DART_TYPE_INT, R0, DART_TEAM_ALL));
  TEST_OK(dart_allgather(NULL, NULL, 0, DART_TYPE_INT, DART_TEAM_ALL));
  TEST_OK(dart_alltoall(NULL, NULL, 0, DART_TYPE_INT, DART_TEAM_ALL));
  TEST_OK(
      dart_allreduce(NULL, NULL, 0, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL));
  TEST_OK(dart_reduce(NULL, NULL, 0, DART_TYPE_INT, DART_OP_SUM, R0,
                      DART_TEAM_ALL));
  size_t cnt[16] = {0}, dsp[16] = {0};
  TEST_OK(
      dart_allgatherv(NULL, 0, DART_TYPE_INT, NULL, cnt, dsp, DART_TEAM_ALL));
  (void)n;
}

static void test_p2p(int n)
{
  int x = 7, y = 0;
  dart_datatype_t strided;
  TEST_OK(dart_type_create_strided(DART_TYPE_INT, 2, 1, &strided));
  dart_global_unit_t me, bad[] = {{-1}, {n}, {INT32_MAX}};
  TEST_OK(dart_myid(&me));
  /* no partner can be addressed: the caller fails alone */
  for (int i = 0; i < 3; i++) {
    TEST_EQ_RET(dart_send(&x, 1, DART_TYPE_INT, 0, bad[i]), DART_ERR_INVAL);
    TEST_EQ_RET(dart_recv(&x, 1, DART_TYPE_INT, 0, bad[i]), DART_ERR_INVAL);
    TEST_EQ_RET(dart_sendrecv(&x, 1, DART_TYPE_INT, 0, me, &x, 1, DART_TYPE_INT,
                              0, bad[i]),
                DART_ERR_INVAL);
  }
  TEST_EQ_RET(dart_send(&x, 1, DART_TYPE_INT, -1, me), DART_ERR_INVAL);
  TEST_EQ_RET(dart_recv(&x, 1, DART_TYPE_INT, INT32_MIN, me), DART_ERR_INVAL);
  int *ub = NULL, flag = 0;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
  if (flag && *ub < INT32_MAX)
    TEST_EQ_RET(dart_send(&x, 1, DART_TYPE_INT, *ub + 1, me), DART_ERR_INVAL);
  /* bad local arguments with the caller as partner: a bad send leaves a
   * notice that the matching receive takes, a bad receive drops what it
   * would have received; nothing is left over */
  TEST_EQ_RET(dart_send(NULL, 1, DART_TYPE_INT, 0, me), DART_ERR_INVAL);
  TEST_EQ_RET(dart_recv(&y, 1, DART_TYPE_INT, 0, me), DART_ERR_INVAL);
  TEST_CHECK(y == 0);
  TEST_EQ_RET(dart_send(&x, 1, strided, 0, me), DART_ERR_INVAL);
  TEST_EQ_RET(dart_recv(NULL, 1, DART_TYPE_INT, 0, me), DART_ERR_INVAL);
  TEST_EQ_RET(dart_send(&x, 1, DART_TYPE_UNDEFINED, 0, me), DART_ERR_INVAL);
  TEST_EQ_RET(dart_recv(&y, (size_t)INT_MAX + 1, DART_TYPE_INT, 0, me),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_sendrecv(&x, 1, DART_TYPE_INT, 0, me, &y, 1, strided, 0, me),
              DART_ERR_INVAL);
  TEST_CHECK(y == 0);
  TEST_EQ_RET(
      dart_sendrecv(&x, 1, DART_TYPE_INT, 0, me, NULL, 1, DART_TYPE_INT, 0, me),
      DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_sendrecv(NULL, 1, DART_TYPE_INT, 0, me, &y, 1, DART_TYPE_INT, 0, me),
      DART_ERR_INVAL);
  TEST_CHECK(y == 0);
  /* the next exchange with the same tag is correct */
  TEST_OK(
      dart_sendrecv(&x, 1, DART_TYPE_INT, 0, me, &y, 1, DART_TYPE_INT, 0, me));
  TEST_CHECK(y == 7);
  TEST_OK(dart_type_destroy(&strided));
}

int main(int argc, char **argv)
{
  test_before_init();
  TEST_OK(dart_init(&argc, &argv));
  size_t n;
  TEST_OK(dart_size(&n));
  test_args((int)n);
  test_buffers((int)n);
  test_p2p((int)n);
  /* still fully functional */
  int v = 1, sum = 0;
  TEST_OK(
      dart_allreduce(&v, &sum, 1, DART_TYPE_INT, DART_OP_SUM, DART_TEAM_ALL));
  TEST_CHECK(sum == (int)n);
  TEST_OK(dart_exit());
  all_colls(DART_TEAM_ALL, DART_TYPE_INT, R0, DART_ERR_NOTINIT);
  return 0;
}
