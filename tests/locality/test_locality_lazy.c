/*
 * Locality trees are built on first query, one-sidedly (docs/locality.md
 * §4): the queries are not collective. DASH asks dart_unit_locality and
 * dart_domain_team_locality from every unit at its start, in no agreed
 * order. Here the odd units ask while the even units wait in a barrier,
 * odd units ask for a remote unit's record first, even units for the tree
 * first, and a split team is queried by one half only before the other.
 * Every answer must agree with what every other unit computes: the same
 * unit ids in the same order, the same host per unit, every unit exactly
 * once in the node domains.
 */
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../onesided/os_common.h"

/* Sum over the node domains' units (each unit once), and a hash of the
 * (unit, host) pairs in tree order. */
static void tree_summary(dart_team_t team, int *count, uint64_t *hash)
{
  dart_domain_locality_t *root = NULL;
  TEST_OK(dart_domain_team_locality(team, ".", &root));
  TEST_CHECK(root != NULL);
  uint64_t h = 1469598103934665603ULL;
  int c = 0;
  for (int d = 0; d < root->num_domains; d++) {
    const dart_domain_locality_t *node = root->children[d];
    TEST_CHECK(node->scope == DART_LOCALITY_SCOPE_NODE);
    for (int k = 0; k < node->num_units; k++) {
      h = (h ^ (uint64_t)node->unit_ids[k].id) * 1099511628211ULL;
      for (const char *s = node->host; *s != '\0'; s++)
        h = (h ^ (uint64_t)(unsigned char)*s) * 1099511628211ULL;
      c++;
    }
  }
  *count = c;
  *hash = h;
}

/* The record of team unit u: the right unit, a host name. */
static void check_unit(dart_team_t team, int u)
{
  dart_unit_locality_t *loc = NULL;
  TEST_OK(dart_unit_locality(team, (dart_team_unit_t){u}, &loc));
  TEST_CHECK(loc != NULL);
  TEST_CHECK_MSG(loc->unit.id == u, "record of unit %d says unit %d", u,
                 loc->unit.id);
  TEST_CHECK(loc->hwinfo.host[0] != '\0');
}

/* Queries team (not collective) in the order given by `remote_first`;
 * returns the tree's hash after checking its unit count. */
static uint64_t query(dart_team_t team, int tsize, int tme, bool remote_first)
{
  int count = 0;
  uint64_t hash = 0;
  if (remote_first) {
    check_unit(team, (tme + 1) % tsize);
    tree_summary(team, &count, &hash);
  } else {
    tree_summary(team, &count, &hash);
    check_unit(team, (tme + 1) % tsize);
  }
  for (int u = 0; u < tsize; u++) check_unit(team, u);
  TEST_CHECK_MSG(count == tsize, "%d units in the node domains of a team of %d",
                 count, tsize);
  return hash;
}

/* Collective over team: every member computed the same tree. */
static void same_tree(dart_team_t team, uint64_t hash)
{
  uint64_t mine[2] = {hash, ~hash}, res[2];
  TEST_OK(dart_allreduce(mine, res, 2, DART_TYPE_ULONG, DART_OP_MAX, team));
  TEST_CHECK_MSG(res[0] == hash && ~res[1] == hash,
                 "unit %d built a different tree of team %d", me, (int)team);
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);

  /* Odd units build DART_TEAM_ALL's tree while the even ones wait. */
  bool odd = me % 2 == 1;
  uint64_t hash = 0;
  if (odd) hash = query(DART_TEAM_ALL, nunits, me, true);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  if (!odd) hash = query(DART_TEAM_ALL, nunits, me, false);
  same_tree(DART_TEAM_ALL, hash);
  /* asked again: the cached tree, the same answer */
  TEST_CHECK(query(DART_TEAM_ALL, nunits, me, odd) == hash);

  /* A split team: the lower half queries first, the upper half after. */
  dart_group_t grp;
  TEST_OK(dart_group_create(&grp));
  for (int u = nunits / 2; u < nunits; u++)
    TEST_OK(dart_group_addmember(grp, (dart_global_unit_t){u}));
  dart_team_t upper = DART_TEAM_NULL;
  TEST_OK(dart_team_create(DART_TEAM_ALL, grp, &upper));
  TEST_OK(dart_group_destroy(&grp));
  if (upper != DART_TEAM_NULL) {
    dart_team_unit_t tme;
    size_t tsize;
    TEST_OK(dart_team_myid(upper, &tme));
    TEST_OK(dart_team_size(upper, &tsize));
    TEST_OK(dart_team_locality_init(upper));
    bool first = tme.id < (int)tsize / 2;
    uint64_t th = 0;
    if (first) th = query(upper, (int)tsize, tme.id, tme.id % 2 == 0);
    TEST_OK(dart_barrier(upper));
    if (!first) th = query(upper, (int)tsize, tme.id, tme.id % 2 == 1);
    same_tree(upper, th);
    TEST_OK(dart_team_locality_finalize(upper));
    TEST_OK(dart_team_destroy(&upper));
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  if (me == 0) printf("test_locality_lazy: OK (%d units)\n", nunits);
  TEST_OK(dart_exit());
  return 0;
}
