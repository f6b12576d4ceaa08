/* Bad input to init, group and team functions: documented codes, no crash. */
#include "dart_test.h"

int main(int argc, char **argv)
{
  /* before dart_init */
  dart_team_unit_t tu;
  size_t sz = 99;
  dart_global_unit_t gu;
  TEST_EQ_RET(dart_team_myid(DART_TEAM_ALL, &tu), DART_ERR_INVAL);
  TEST_CHECK(tu.id == DART_UNDEFINED_UNIT_ID);
  TEST_EQ_RET(dart_myid(&gu), DART_ERR_OTHER);
  TEST_CHECK(gu.id == -1);
  TEST_EQ_RET(dart_barrier(DART_TEAM_ALL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_exit(), DART_ERR_OTHER);
  TEST_EQ_RET(dart_init_thread(&argc, &argv, NULL), DART_ERR_INVAL);

  TEST_OK(dart_init(&argc, &argv));
  size_t n = 0;
  TEST_OK(dart_size(&n));
  /* invalid teams */
  TEST_EQ_RET(dart_team_myid(DART_TEAM_NULL, &tu), DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_myid(1234, &tu), DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_myid(-77, &tu), DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_myid(DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_size(42, &sz), DART_ERR_INVAL);
  TEST_CHECK(sz == 99);
  TEST_EQ_RET(dart_team_size(DART_TEAM_ALL, NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_barrier(DART_TEAM_NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_barrier(300), DART_ERR_INVAL);
  dart_group_t g = (dart_group_t)0x1;
  TEST_EQ_RET(dart_team_get_group(9, &g), DART_ERR_INVAL);
  TEST_CHECK(g == DART_GROUP_NULL);
  /* unit ranges */
  TEST_EQ_RET(
      dart_team_unit_l2g(DART_TEAM_ALL, (dart_team_unit_t){(int)n}, &gu),
      DART_ERR_INVAL);
  TEST_CHECK(gu.id == -1);
  TEST_EQ_RET(dart_team_unit_l2g(DART_TEAM_ALL, (dart_team_unit_t){-1}, &gu),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_unit_l2g(DART_TEAM_ALL, (dart_team_unit_t){0}, NULL),
              DART_ERR_INVAL);
  TEST_OK(
      dart_team_unit_g2l(DART_TEAM_ALL, (dart_global_unit_t){(int)n + 3}, &tu));
  TEST_CHECK(tu.id < 0);
  TEST_EQ_RET(dart_team_unit_g2l(5, (dart_global_unit_t){0}, &tu),
              DART_ERR_INVAL);
  /* groups */
  int32_t ism = 5;
  TEST_EQ_RET(dart_group_ismember(NULL, (dart_global_unit_t){0}, &ism),
              DART_ERR_INVAL);
  TEST_CHECK(ism == 0);
  TEST_EQ_RET(dart_group_size(NULL, &sz), DART_ERR_INVAL);
  TEST_EQ_RET(dart_group_create(NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_group_destroy(NULL), DART_ERR_INVAL);
  dart_group_t nullg = DART_GROUP_NULL;
  TEST_OK(dart_group_destroy(&nullg)); /* no-op */
  dart_group_t out = (dart_group_t)0x1;
  TEST_EQ_RET(dart_group_union(NULL, NULL, &out), DART_ERR_INVAL);
  TEST_CHECK(out == DART_GROUP_NULL);
  TEST_EQ_RET(dart_group_clone(NULL, &out), DART_ERR_INVAL);
  TEST_OK(dart_group_create(&g));
  size_t nout;
  dart_group_t parts[2];
  TEST_EQ_RET(dart_group_split(g, 0, &nout, parts), DART_ERR_INVAL);
  TEST_EQ_RET(dart_group_addmember(g, (dart_global_unit_t){(int)n}),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_group_addmember(g, (dart_global_unit_t){-3}),
              DART_ERR_INVAL);
  /* team creation: NULL group, foreign parent, members outside the parent */
  dart_team_t t = 3;
  TEST_EQ_RET(dart_team_create(DART_TEAM_ALL, NULL, &t), DART_ERR_INVAL);
  TEST_CHECK(t == DART_TEAM_NULL);
  TEST_EQ_RET(dart_team_create(99, g, &t), DART_ERR_INVAL);
  dart_team_t all = DART_TEAM_ALL;
  TEST_EQ_RET(dart_team_destroy(&all), DART_ERR_INVAL);
  TEST_EQ_RET(dart_team_destroy(NULL), DART_ERR_INVAL);
  t = DART_TEAM_NULL;
  TEST_OK(dart_team_destroy(&t)); /* no-op */
  t = 55;
  TEST_EQ_RET(dart_team_destroy(&t), DART_ERR_INVAL);
  TEST_OK(dart_group_destroy(&g));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  TEST_OK(dart_exit());
  printf("team_badinput: all checks passed\n");
  return 0;
}
