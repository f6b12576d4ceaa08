/* Groups and teams at any unit count: ids, ordering, splits, barriers. */
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

#include "dart_test.h"

/* Do the units with member != 0 all hold the same v? */
static int members_agree(int member, int v)
{
  int lo = member ? v : INT_MAX, hi = member ? v : INT_MIN, mn, mx;
  MPI_Allreduce(&lo, &mn, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&hi, &mx, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return mn == mx || (mn == INT_MAX && mx == INT_MIN); /* or no member */
}

static void test_team_group(int me, int n)
{
  dart_group_t g;
  size_t gsize = 0;
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &g));
  TEST_OK(dart_group_size(g, &gsize));
  TEST_CHECK((int)gsize == n);
  dart_global_unit_t *ids = malloc(gsize * sizeof *ids);
  TEST_OK(dart_group_getmembers(g, ids));
  for (int i = 0; i < n; i++) TEST_CHECK(ids[i].id == i);
  int32_t ism = 0;
  TEST_OK(dart_group_ismember(g, (dart_global_unit_t){me}, &ism));
  TEST_CHECK(ism == 1);
  TEST_OK(dart_group_ismember(g, (dart_global_unit_t){n}, &ism));
  TEST_CHECK(ism == 0);
  free(ids);
  TEST_OK(dart_group_destroy(&g));
  TEST_CHECK(g == DART_GROUP_NULL);
}

/* Split ALL into k parts the way DASH does: create a team for every part
 * on every unit, check membership, ids, ordering, barrier, destroy. */
static void test_split(int me, int n, size_t k)
{
  dart_group_t all, *parts = malloc(k * sizeof *parts);
  size_t nout = 0;
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &all));
  TEST_OK(dart_group_split(all, k, &nout, parts));
  size_t chunk = ((size_t)n + k - 1) / k;
  TEST_CHECK(nout == ((size_t)n + chunk - 1) / chunk); /* non-empty parts */
  dart_team_t *teams = malloc(k * sizeof *teams);
  for (size_t i = 0; i < k; i++) {
    TEST_OK(dart_team_create(DART_TEAM_ALL, parts[i], &teams[i]));
    int member = (size_t)me / chunk == i;
    TEST_CHECK(member == (teams[i] != DART_TEAM_NULL));
    /* ids agree on all members (the max-counter scheme gives them the
     * same value): the smallest and largest member id over ALL are equal
     * (non-members contribute INT_MAX / INT_MIN); non-members got
     * DART_TEAM_NULL (checked above) */
    TEST_CHECK(members_agree(member, member ? teams[i] : 0));
    if (member) {
      size_t ts = 0;
      dart_team_unit_t tme;
      dart_global_unit_t g;
      TEST_OK(dart_team_size(teams[i], &ts));
      TEST_OK(dart_team_myid(teams[i], &tme));
      TEST_CHECK(ts == (size_t)n - i * chunk || ts == chunk);
      TEST_CHECK((size_t)tme.id == (size_t)me - i * chunk); /* ascending */
      TEST_OK(dart_team_unit_l2g(teams[i], tme, &g));
      TEST_CHECK(g.id == me);
      dart_team_unit_t back;
      TEST_OK(dart_team_unit_g2l(teams[i], g, &back));
      TEST_CHECK(back.id == tme.id);
      TEST_OK(dart_team_unit_g2l(
          teams[i], (dart_global_unit_t){me ^ 1 ? -5 : -5}, &back));
      TEST_CHECK(back.id < 0);
      TEST_OK(dart_barrier(teams[i]));
    }
  }
  /* every unit holds exactly one team; its id equals its peers' */
  int mine = -1;
  for (size_t i = 0; i < k; i++)
    if (teams[i] != DART_TEAM_NULL) mine = teams[i];
  TEST_CHECK(mine > 0);
  int *all_ids = malloc((size_t)n * sizeof(int));
  MPI_Allgather(&mine, 1, MPI_INT, all_ids, 1, MPI_INT, MPI_COMM_WORLD);
  for (int u = 0; u < n; u++) {
    if ((size_t)u / chunk == (size_t)me / chunk) TEST_CHECK(all_ids[u] == mine);
  }
  free(all_ids);
  for (size_t i = 0; i < k; i++) {
    TEST_OK(dart_team_destroy(&teams[i]));
    TEST_CHECK(teams[i] == DART_TEAM_NULL);
    TEST_OK(dart_group_destroy(&parts[i]));
  }
  TEST_OK(dart_group_destroy(&all));
  free(teams);
  free(parts);
}

/* Nested teams: a sub-team of a sub-team, and a clone; first ids are 1, 2. */
static void test_nested(int me, int n)
{
  dart_group_t g;
  TEST_OK(dart_group_create(&g));
  for (int u = n - 1; u >= 0; u -= 2)
    TEST_OK(dart_group_addmember(g, (dart_global_unit_t){u}));
  dart_team_t t1 = DART_TEAM_NULL, t2 = DART_TEAM_NULL;
  TEST_OK(dart_team_create(DART_TEAM_ALL, g, &t1));
  int member = ((n - 1 - me) % 2) == 0;
  TEST_CHECK(member == (t1 != DART_TEAM_NULL));
  if (member) {
    TEST_OK(dart_team_clone(t1, &t2));
    TEST_CHECK(t2 != DART_TEAM_NULL && t2 != t1);
    size_t s1, s2;
    TEST_OK(dart_team_size(t1, &s1));
    TEST_OK(dart_team_size(t2, &s2));
    TEST_CHECK(s1 == s2 && s1 == (size_t)(n + 1) / 2);
    TEST_OK(dart_barrier(t2));
    TEST_OK(dart_team_destroy(&t2));
    TEST_OK(dart_team_destroy(&t1));
  }
  /* an empty group yields DART_TEAM_NULL everywhere */
  dart_group_t empty;
  dart_team_t te = 5;
  TEST_OK(dart_group_create(&empty));
  TEST_OK(dart_team_create(DART_TEAM_ALL, empty, &te));
  TEST_CHECK(te == DART_TEAM_NULL);
  TEST_OK(dart_group_destroy(&empty));
  TEST_OK(dart_group_destroy(&g));
  TEST_OK(dart_barrier(DART_TEAM_ALL));
}

/* Many teams alive at once, then destroyed: the table handles it. */
static void test_many(void)
{
  enum { N = 40 };
  dart_team_t t[N];
  dart_group_t g;
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &g));
  for (int i = 0; i < N; i++) {
    TEST_OK(dart_team_create(DART_TEAM_ALL, g, &t[i]));
    for (int j = 0; j < i; j++) TEST_CHECK(t[j] != t[i]);
  }
  for (int i = 0; i < N; i += 7) TEST_OK(dart_barrier(t[i]));
  for (int i = N - 1; i >= 0; i--) TEST_OK(dart_team_destroy(&t[i]));
  TEST_OK(dart_group_destroy(&g));
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&n));
  test_team_group(me.id, (int)n);
  for (size_t k = 1; k <= n + 1; k++) test_split(me.id, (int)n, k);
  test_nested(me.id, (int)n);
  test_many();
  TEST_OK(dart_exit());
  if (me.id == 0) printf("team: all checks passed\n");
  return 0;
}
