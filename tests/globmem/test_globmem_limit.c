/*
 * Resource exhaustion is an error, not an abort (issue 15, item 3): with
 * a budget of MPI objects (DART_MAX_MPI_OBJECTS, set low by the test so
 * that both MPIs reach it quickly; MPICH's own default of 2000 stays below
 * its 2048 context ids), allocations with windows of their own and teams
 * are created until DART refuses with DART_ERR_NOMEM on every unit; after
 * freeing them all, the same creations succeed again.
 */
#include <stdlib.h>

#include "gm_access.h"

enum { MAXN = 1000 };

/* Creates own-window allocations (above the heap's block limit) until
 * the error; returns how many. */
static int fill_allocations(dart_gptr_t *g)
{
  int n = 0;
  for (;;) {
    TEST_CHECK(n < MAXN);
    dart_ret_t r = dart_team_memalloc_aligned(DART_TEAM_ALL, (2 << 20) + 1,
                                              DART_TYPE_BYTE, &g[n]);
    if (r != DART_OK) {
      TEST_EQ_RET(r, DART_ERR_NOMEM);
      TEST_CHECK(DART_GPTR_ISNULL(g[n]));
      break;
    }
    n++;
  }
  return n;
}

static int fill_teams(dart_team_t *t)
{
  dart_group_t grp; /* dart_team_get_group allocates the group */
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &grp));
  int n = 0;
  for (;;) {
    TEST_CHECK(n < MAXN);
    dart_ret_t r = dart_team_create(DART_TEAM_ALL, grp, &t[n]);
    if (r != DART_OK) {
      TEST_EQ_RET(r, DART_ERR_NOMEM);
      break;
    }
    n++;
  }
  TEST_OK(dart_group_destroy(&grp));
  return n;
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  dart_gptr_t *g = calloc(MAXN, sizeof *g);
  dart_team_t *t = calloc(MAXN, sizeof *t);
  for (int round = 0; round < 2; round++) {
    int na = fill_allocations(g);
    TEST_CHECK(na > 0);
    /* Data in the last one still works. */
    dart_gptr_t last = os_at(g[na - 1], (me + 1) % nunits, 2 << 20);
    unsigned char v = (unsigned char)(me + 1), back = 0;
    TEST_OK(dart_put_blocking(last, &v, 1, DART_TYPE_BYTE, DART_TYPE_BYTE));
    TEST_OK(dart_get_blocking(&back, last, 1, DART_TYPE_BYTE, DART_TYPE_BYTE));
    TEST_CHECK(back == v);
    for (int i = na - 1; i >= 0; i--) TEST_OK(dart_team_memfree(g[i]));
    int nt = fill_teams(t);
    TEST_CHECK(nt > 0);
    for (int i = nt - 1; i >= 0; i--) TEST_OK(dart_team_destroy(&t[i]));
    if (me == 0 && round == 0)
      printf("  limit reached after %d allocations, %d teams\n", na, nt);
  }
  free(g);
  free(t);
  TEST_OK(dart_exit());
  if (me == 0) printf("test_globmem_limit: OK (%d units)\n", nunits);
  return 0;
}
