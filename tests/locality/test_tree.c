/*
 * Unit test (no MPI): building team trees from synthetic hardware info.
 */
#define DART_TEST_NO_DART
#include "dart_test.h"

#include <string.h>

#include "loc_check.h"
#include "synth.h"

static dart_domain_locality_t *find(dart_domain_locality_t *root,
                                    const char *tag)
{
  dart_domain_locality_t *d = NULL;
  TEST_OK(dart_domain_find(root, tag, &d));
  return d;
}

/* 8 units, 2 nodes x 2 NUMA x 2 cores: exact shape. */
static void test_8units(void)
{
  int32_t gids[8];
  dart__locality_t *loc = synth_8units(3, gids);
  TEST_CHECK(loc != NULL);
  dart_unit_locality_t *recs[8];
  synth_recs(loc, recs);
  TEST_CHECK(loc_check_team_tree(loc->root, 3, 8, gids, recs) == 2);
  dart_domain_locality_t *root = loc->root;
  TEST_CHECK(root->num_cores == 8 && root->num_nodes == 2);
  TEST_CHECK(root->node_id == -1 && root->host[0] == '\0');
  dart_domain_locality_t *n0 = find(root, ".0");
  TEST_CHECK(strcmp(n0->host, "nodeA") == 0);
  TEST_CHECK(n0->num_units == 4 && n0->unit_ids[0].id == 14);
  TEST_CHECK(n0->num_cores == 4 && n0->node_id == 0);
  dart_domain_locality_t *mod = find(root, ".1.0");
  TEST_CHECK(mod->scope == DART_LOCALITY_SCOPE_MODULE);
  TEST_CHECK(strcmp(mod->host, "nodeB") == 0 && mod->num_cores == 4);
  dart_domain_locality_t *numa = find(root, ".1.0.1");
  TEST_CHECK(numa->scope == DART_LOCALITY_SCOPE_NUMA);
  TEST_CHECK(numa->global_index == 1 && numa->num_units == 2);
  TEST_CHECK(numa->unit_ids[0].id == 12 && numa->unit_ids[1].id == 13);
  TEST_CHECK(numa->num_cores == 2 && numa->node_id == 1);
  dart_domain_locality_t *leaf = find(root, ".1.0.1.1");
  TEST_CHECK(leaf->scope == DART_LOCALITY_SCOPE_CORE && leaf->level == 4);
  TEST_CHECK(leaf->num_units == 1 && leaf->unit_ids[0].id == 13);
  TEST_CHECK(leaf->global_index == 3 && leaf->num_cores == 1);
  TEST_CHECK(strcmp(loc->units[3].domain_tag, ".1.0.1.1") == 0);
  TEST_CHECK(strcmp(loc->units[4].domain_tag, ".0.0.0.0") == 0);
  TEST_CHECK(loc->units[3].hwinfo.num_cores == 1);
  dart__locality_free(loc);
}

/* Oversubscription: 4 units on 2 cores share leaves; 2 units / 8 cores. */
static void test_oversubscribed(void)
{
  dart_hwinfo_t hw[4];
  int32_t gids[4] = {0, 1, 2, 3};
  for (int u = 0; u < 4; u++) synth_hw(&hw[u], "vm", 0, u % 2, 2);
  dart__locality_t *loc;
  TEST_OK(dart__locality_build(0, 4, gids, hw, &loc));
  dart_unit_locality_t *recs[4];
  synth_recs(loc, recs);
  TEST_CHECK(loc_check_team_tree(loc->root, 0, 4, gids, recs) == 1);
  dart_domain_locality_t *leaf = find(loc->root, ".0.0.0.1");
  TEST_CHECK(leaf->num_units == 2 && leaf->unit_ids[0].id == 1 &&
             leaf->unit_ids[1].id == 3);
  TEST_CHECK(strcmp(loc->units[2].domain_tag, ".0.0.0.0") == 0);
  dart__locality_free(loc);

  /* Two units on an 8-core node: each leaf is worth 4 cores. */
  for (int u = 0; u < 2; u++) synth_hw(&hw[u], "big", 0, u, 8);
  TEST_OK(dart__locality_build(0, 2, gids, hw, &loc));
  TEST_CHECK(loc->root->num_cores == 8);
  TEST_CHECK(find(loc->root, ".0.0.0.1")->num_cores == 4);
  TEST_CHECK(loc->units[1].hwinfo.num_cores == 4);
  dart__locality_free(loc);
}

/* Simulated nodes "<host>#<k>", module hosts "<node>-micN", bad scopes. */
static void test_hosts_and_modules(void)
{
  dart_hwinfo_t hw[5];
  int32_t gids[5] = {0, 1, 2, 3, 4};
  synth_hw(&hw[0], "vm#1", 0, 0, 2);
  synth_hw(&hw[1], "vm#0", 0, 1, 2);
  synth_hw(&hw[2], "vm#0-mic0", 0, 0, 60);
  synth_hw(&hw[3], "vm#0-micX", 0, 0, 2); /* not a module name: own node */
  synth_hw(&hw[4], "vm#1", 0, 1, 2);
  hw[4].num_scopes = 0; /* broken scope list: sanitised to {CORE, core} */
  dart__locality_t *loc;
  TEST_OK(dart__locality_build(0, 5, gids, hw, &loc));
  dart_unit_locality_t *recs[5];
  synth_recs(loc, recs);
  TEST_CHECK(loc_check_team_tree(loc->root, 0, 5, gids, recs) == 3);
  dart_domain_locality_t *n0 = find(loc->root, ".0");
  TEST_CHECK(strcmp(n0->host, "vm#0") == 0 && n0->num_domains == 2);
  TEST_CHECK(strcmp(n0->children[1]->host, "vm#0-mic0") == 0);
  TEST_CHECK(n0->children[1]->num_cores == 60 && n0->num_cores == 62);
  TEST_CHECK(strcmp(find(loc->root, ".1")->host, "vm#0-micX") == 0);
  TEST_CHECK(strcmp(find(loc->root, ".2")->host, "vm#1") == 0);
  TEST_CHECK(loc->units[4].hwinfo.num_scopes == 1);
  TEST_CHECK(dart__locality_is_module_of("n-mic12", "n"));
  TEST_CHECK(!dart__locality_is_module_of("n-mic", "n"));
  TEST_CHECK(!dart__locality_is_module_of("n1", "n"));
  dart__locality_free(loc);
}

/* Units whose scope lists differ from the module's first unit. */
static void test_heterogeneous(void)
{
  dart_hwinfo_t hw[3];
  int32_t gids[3] = {5, 6, 7};
  synth_hw(&hw[0], "h", 0, 0, 4);
  synth_hw(&hw[1], "h", 1, 2, 4);
  synth_hw(&hw[2], "h", 0, 1, 4);
  hw[2].num_scopes = 1; /* knows no NUMA domain */
  hw[1].scopes[2] = (dart_locality_scope_pos_t){DART_LOCALITY_SCOPE_PACKAGE, 0};
  hw[1].num_scopes = 3;
  dart__locality_t *loc;
  TEST_OK(dart__locality_build(1, 3, gids, hw, &loc));
  dart_unit_locality_t *recs[3];
  synth_recs(loc, recs);
  loc_check_team_tree(loc->root, 1, 3, gids, recs);
  /* NUMA level keyed -1 for unit 2: domain with global index -1 first. */
  dart_domain_locality_t *numa = find(loc->root, ".0.0.0");
  TEST_CHECK(numa->global_index == -1 && numa->unit_ids[0].id == 7);
  dart__locality_free(loc);
}

/* A tag longer than 31 characters makes the build fail cleanly. */
static void test_tag_overflow(void)
{
  enum { TOP = DART_LOCALITY_MAX_DOMAIN_SCOPES - 1, N = 44 };
  dart_hwinfo_t hw;
  int32_t gid = 0;
  synth_hw(&hw, "h", 0, 0, 1);
  for (int s = 0; s <= TOP; s++)
    hw.scopes[s] = (dart_locality_scope_pos_t){
        s == 0 ? DART_LOCALITY_SCOPE_CORE : DART_LOCALITY_SCOPE_CACHE, 0};
  hw.num_scopes = TOP + 1;
  dart__locality_t *loc;
  TEST_OK(dart__locality_build(0, 1, &gid, &hw, &loc));
  TEST_CHECK(strcmp(loc->units[0].domain_tag, ".0.0.0.0.0.0.0.0.0.0.0.0.0.0") ==
             0); /* 28 chars */
  dart__locality_free(loc);
  /* 11 siblings on each of the 4 top levels: ".10" four times = 32. */
  dart_hwinfo_t many[N];
  int32_t ids[N];
  for (int u = 0; u < N; u++) {
    int lvl = u / 11, j = u % 11;
    many[u] = hw;
    for (int k = 0; k < 4; k++)
      many[u].scopes[TOP - k].index = k < lvl ? 10 : (k == lvl ? j : 0);
    ids[u] = u;
  }
  TEST_EQ_RET(dart__locality_build(0, N, ids, many, &loc), DART_ERR_OTHER);
  TEST_CHECK(loc == NULL);
  TEST_EQ_RET(dart__locality_build(0, 0, ids, many, &loc), DART_ERR_INVAL);
}

int main(void)
{
  test_8units();
  test_oversubscribed();
  test_hosts_and_modules();
  test_heterogeneous();
  test_tag_overflow();
  printf("locality tree: OK\n");
  return 0;
}
