/*
 * Unit test (no MPI): every dart_domain_* operation on synthetic trees,
 * including bad input (one log line, documented code, tree unchanged).
 *
 * The base tree (synth_8units): 8 units on 2 nodes x 2 NUMA x 2 cores.
 *   .0 nodeA (units 14-17): .0.0 module, .0.0.{0,1} NUMA, .0.0.n.c cores
 *   .1 nodeB (units 10-13): same shape
 */
#define DART_TEST_NO_DART
#include "dart_test.h"

#include <string.h>

#include "dart_group_set.h"
#include "loc_check.h"
#include "log_stub.h"
#include "synth.h"

#define TAGS(...) ((const char *[]){__VA_ARGS__})
#define NTAGS(...) ((int)(sizeof(TAGS(__VA_ARGS__)) / sizeof(const char *)))

static int32_t gids[8];

static dart__locality_t *base(void)
{
  dart__locality_t *loc = synth_8units(2, gids);
  TEST_CHECK(loc != NULL);
  return loc;
}

static dart_domain_locality_t *find(dart_domain_locality_t *root,
                                    const char *tag)
{
  dart_domain_locality_t *d = NULL;
  TEST_OK(dart_domain_find(root, tag, &d));
  return d;
}

static bool absent(dart_domain_locality_t *root, const char *tag)
{
  dart_domain_locality_t *d = root;
  int logged = log_stub_count;
  bool gone = dart_domain_find(root, tag, &d) == DART_ERR_NOTFOUND && !d;
  TEST_CHECK(log_stub_count == logged); /* NOTFOUND is a normal answer */
  return gone;
}

/* Units of d as "a,b,c" for compact assertions. */
static const char *units(const dart_domain_locality_t *d)
{
  static char buf[256];
  buf[0] = '\0';
  for (int i = 0; i < d->num_units; i++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d", i ? "," : "",
             d->unit_ids[i].id);
  return buf;
}

/* Two trees are equal field by field (parents relative to their root). */
static void check_equal(const dart_domain_locality_t *a,
                        const dart_domain_locality_t *b, bool top)
{
  TEST_CHECK(strcmp(a->domain_tag, b->domain_tag) == 0);
  TEST_CHECK(strcmp(a->host, b->host) == 0);
  TEST_CHECK(a->scope == b->scope && a->level == b->level);
  TEST_CHECK(a->global_index == b->global_index);
  TEST_CHECK(a->relative_index == b->relative_index);
  TEST_CHECK(a->team == b->team && a->num_units == b->num_units);
  TEST_CHECK(a->num_nodes == b->num_nodes && a->node_id == b->node_id);
  TEST_CHECK(a->num_cores == b->num_cores);
  TEST_CHECK(a->shared_mem_bytes == b->shared_mem_bytes);
  TEST_CHECK(a->is_symmetric == b->is_symmetric);
  TEST_CHECK(a->num_domains == b->num_domains);
  if (top) TEST_CHECK(a->parent == b->parent);
  for (int i = 0; i < a->num_units; i++)
    TEST_CHECK(a->unit_ids[i].id == b->unit_ids[i].id);
  for (int i = 0; i < a->num_domains; i++) {
    TEST_CHECK(a->children[i] != b->children[i]);
    TEST_CHECK(a->children[i]->parent == a && b->children[i]->parent == b);
    check_equal(a->children[i], b->children[i], false);
  }
}

static void test_create_clone_assign_destroy(void)
{
  dart_domain_locality_t *d;
  TEST_OK(dart_domain_create(&d));
  TEST_CHECK(d->scope == DART_LOCALITY_SCOPE_UNDEFINED);
  TEST_CHECK(d->team == DART_TEAM_NULL && d->level == 0);
  TEST_CHECK(d->global_index == -1 && d->relative_index == 0);
  TEST_CHECK(d->num_units == -1 && d->num_nodes == -1);
  TEST_CHECK(d->num_cores == -1 && d->shared_mem_bytes == -1);
  TEST_CHECK(!d->parent && !d->children && !d->unit_ids && !d->aliases);
  TEST_CHECK(d->domain_tag[0] == '\0' && d->host[0] == '\0');

  dart__locality_t *loc = base();
  dart_domain_locality_t *numa = find(loc->root, ".1.0.1");
  dart_domain_locality_t *copy;
  TEST_OK(dart_domain_clone(loc->root, &copy));
  check_equal(loc->root, copy, true);
  loc_check_domain(copy, true);
  /* Assign: a subtree over a whole tree, then the tree over a subtree of
   * itself (rhs lives inside lhs). */
  TEST_OK(dart_domain_assign(d, numa));
  check_equal(numa, d, true);
  TEST_OK(dart_domain_assign(copy, copy->children[1]));
  TEST_CHECK(copy->parent == NULL); /* its old parent was freed */
  copy->parent = loc->root;
  check_equal(loc->root->children[1], copy, true);
  TEST_OK(dart_domain_assign(copy, copy));
  TEST_OK(dart_domain_destroy(copy));
  TEST_OK(dart_domain_destroy(d));
  TEST_OK(dart_domain_destroy(NULL));
  dart__locality_free(loc);

  int logged = log_stub_count;
  TEST_EQ_RET(dart_domain_create(NULL), DART_ERR_INVAL);
  copy = (void *)1;
  TEST_EQ_RET(dart_domain_clone(NULL, &copy), DART_ERR_INVAL);
  TEST_CHECK(copy == NULL);
  TEST_EQ_RET(dart_domain_clone(numa, NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_assign(NULL, numa), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_assign(numa, NULL), DART_ERR_INVAL);
  TEST_CHECK(log_stub_count == logged + 5);
}

static void test_find_and_scopes(void)
{
  dart__locality_t *loc = base();
  dart_domain_locality_t *root = loc->root, *d;
  TEST_CHECK(find(root, ".") == root);
  TEST_CHECK(find(root, ".1.0.0.1")->unit_ids[0].id == 11);
  TEST_CHECK(find(find(root, ".1"), ".1.0.0.1") == find(root, ".1.0.0.1"));
  TEST_CHECK(absent(root, ".2") && absent(root, "") &&
             absent(root, ".1.0.0.1.0"));
  TEST_CHECK(absent(find(root, ".0"), ".1.0"));
  int logged = log_stub_count;
  TEST_EQ_RET(dart_domain_find(NULL, ".", &d), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_find(root, NULL, &d), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_find(root, ".", NULL), DART_ERR_INVAL);
  TEST_CHECK(log_stub_count == logged + 3);

  static const struct {
    dart_locality_scope_t scope;
    int n;
  } want[] = {{DART_LOCALITY_SCOPE_GLOBAL, 1},
              {DART_LOCALITY_SCOPE_NODE, 2},
              {DART_LOCALITY_SCOPE_MODULE, 2},
              {DART_LOCALITY_SCOPE_NUMA, 4},
              {DART_LOCALITY_SCOPE_CORE, 8}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    int n = -1;
    dart_domain_locality_t **doms;
    char **tags;
    TEST_OK(dart_domain_scope_domains(root, want[i].scope, &n, &doms));
    TEST_CHECK(n == want[i].n);
    TEST_OK(dart_domain_scope_tags(root, want[i].scope, &n, &tags));
    TEST_CHECK(n == want[i].n);
    for (int k = 0; k < n; k++) {
      TEST_CHECK(doms[k]->scope == want[i].scope);
      TEST_CHECK(strcmp(doms[k]->domain_tag, tags[k]) == 0);
      TEST_CHECK(k == 0 || strcmp(tags[k - 1], tags[k]) < 0); /* pre-order */
    }
    for (int k = 0; k < n; k++) free(tags[k]);
    free(tags);
    free(doms);
  }
  int n = 5;
  dart_domain_locality_t **doms = (void *)1;
  char **tags = (void *)1;
  logged = log_stub_count;
  TEST_EQ_RET(
      dart_domain_scope_domains(root, DART_LOCALITY_SCOPE_PACKAGE, &n, &doms),
      DART_ERR_NOTFOUND);
  TEST_CHECK(n == 0 && doms == NULL);
  n = 5;
  TEST_EQ_RET(dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_UNIT, &n, &tags),
              DART_ERR_NOTFOUND);
  TEST_CHECK(n == 0 && tags == NULL && log_stub_count == logged);
  TEST_EQ_RET(
      dart_domain_scope_domains(NULL, DART_LOCALITY_SCOPE_CORE, &n, &doms),
      DART_ERR_INVAL);
  TEST_EQ_RET(
      dart_domain_scope_tags(root, DART_LOCALITY_SCOPE_CORE, NULL, &tags),
      DART_ERR_INVAL);
  TEST_CHECK(log_stub_count == logged + 2);
  dart__locality_free(loc);
}

static void test_select(void)
{
  dart__locality_t *loc = base();
  dart_domain_locality_t *root = loc->root;
  /* One core on each node, plus a whole NUMA domain (keeps its subtree). */
  TEST_OK(dart_domain_select(root, 3, TAGS(".0.0.1.1", ".1.0.0.0", ".1.0.1")));
  loc_check_domain(root, false);
  TEST_CHECK(strcmp(units(root), "10,12,13,17") == 0);
  TEST_CHECK(root->num_domains == 2 && root->num_cores == 4);
  TEST_CHECK(strcmp(units(find(root, ".1")), "10,12,13") == 0);
  dart_domain_locality_t *numa = find(root, ".0.0.1");
  TEST_CHECK(numa->relative_index == 0 && numa->num_domains == 1);
  TEST_CHECK(find(root, ".0.0.1.1")->relative_index == 0);
  TEST_CHECK(absent(root, ".0.0.0") && absent(root, ".1.0.0.1"));
  TEST_CHECK(find(root, ".1.0.1")->num_domains == 2);
  /* Unknown tag: NOTFOUND, one log line, tree unchanged. */
  int logged = log_stub_count;
  TEST_EQ_RET(dart_domain_select(root, 2, TAGS(".1.0.1", ".7")),
              DART_ERR_NOTFOUND);
  TEST_CHECK(log_stub_count == logged + 1 && root->num_units == 4);
  TEST_EQ_RET(dart_domain_select(root, 1, TAGS(NULL)), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_select(root, -1, NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_select(NULL, 1, TAGS(".")), DART_ERR_INVAL);
  /* Selecting the root keeps everything; selecting nothing empties it. */
  TEST_OK(dart_domain_select(root, 1, TAGS(".")));
  TEST_CHECK(root->num_units == 4);
  TEST_OK(dart_domain_select(root, 0, NULL));
  TEST_CHECK(root->num_domains == 0 && root->children == NULL);
  TEST_CHECK(root->num_units == 0 && root->unit_ids == NULL);
  dart__locality_free(loc);
}

/* The 8-unit exclude case: duplicates, nesting, leaves and whole nodes. */
static void test_exclude(void)
{
  dart__locality_t *loc = base();
  dart_domain_locality_t *root = loc->root;
  const char *leaf3 = loc->units[3].domain_tag; /* ".1.0.1.1" */
  char tag[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE];
  snprintf(tag, sizeof tag, "%s", leaf3);
  TEST_OK(dart_domain_exclude(root, 1, TAGS(tag)));
  loc_check_domain(root, false);
  TEST_CHECK(absent(root, tag));
  TEST_CHECK(strcmp(units(root), "10,11,12,14,15,16,17") == 0);
  TEST_CHECK(strcmp(units(find(root, ".1.0")), "10,11,12") == 0);
  /* Same leaf listed several times, a core inside an excluded NUMA
   * domain, and the NUMA domain itself. */
  TEST_OK(dart_domain_exclude(
      root, 4, TAGS(".0.0.0.1", ".0.0.0", ".0.0.0.1", ".0.0.0.0")));
  loc_check_domain(root, false);
  TEST_CHECK(absent(root, ".0.0.0") && absent(root, ".0.0.0.1"));
  TEST_CHECK(find(root, ".0.0.1")->relative_index == 0);
  TEST_CHECK(strcmp(units(root), "10,11,12,16,17") == 0);
  TEST_CHECK(root->num_cores == 5);
  /* Excluding the remaining core of NUMA .1.0.1 removes the NUMA domain
   * too; excluding both cores of node .0 removes the node. */
  TEST_OK(dart_domain_exclude(root, 1, TAGS(".1.0.1.0")));
  TEST_CHECK(absent(root, ".1.0.1"));
  TEST_OK(dart_domain_exclude(root, 2, TAGS(".0.0.1.0", ".0.0.1.1")));
  TEST_CHECK(absent(root, ".0") && root->num_domains == 1);
  TEST_CHECK(find(root, ".1")->relative_index == 0 && root->num_nodes == 1);
  loc_check_domain(root, false);
  int logged = log_stub_count;
  TEST_EQ_RET(dart_domain_exclude(root, 1, TAGS(".")), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_exclude(root, 2, TAGS(".1", NULL)), DART_ERR_INVAL);
  TEST_CHECK(log_stub_count == logged + 2 && root->num_units == 2);
  /* Already removed (or never existing) domains are skipped silently. */
  TEST_OK(dart_domain_exclude(root, 2, TAGS(".0", ".0.0.1.1")));
  TEST_CHECK(log_stub_count == logged + 2 && root->num_units == 2);
  TEST_OK(dart_domain_exclude(root, 2, TAGS(".0", ".1.0.0.0")));
  TEST_CHECK(strcmp(units(root), "11") == 0);
  TEST_OK(dart_domain_exclude(root, 0, NULL));
  dart__locality_free(loc);

  /* Exclude on every unit's leaf, one after another, from a clone. */
  loc = base();
  dart_domain_locality_t *copy;
  TEST_OK(dart_domain_clone(loc->root, &copy));
  for (int u = 0; u < 8; u++) {
    TEST_OK(dart_domain_exclude(copy, 1, TAGS(loc->units[u].domain_tag)));
    TEST_CHECK(copy->num_units == 7 - u);
    loc_check_domain(copy, false);
  }
  TEST_CHECK(copy->num_domains == 0 && copy->unit_ids == NULL);
  dart_domain_destroy(copy);
  dart__locality_free(loc);
}

static void check_part(const dart_domain_locality_t *part, const char *want)
{
  TEST_CHECK_MSG(strcmp(units(part), want) == 0, "units %s, want %s",
                 units(part), want);
  loc_check_domain(part, false);
}

static void test_split(void)
{
  dart__locality_t *loc = base();
  dart_domain_locality_t parts[5];
  dart_domain_locality_t *root = loc->root;
  TEST_OK(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_NODE, 2, parts));
  check_part(&parts[0], "14,15,16,17");
  check_part(&parts[1], "10,11,12,13");
  TEST_CHECK(parts[1].num_domains == 1 && parts[1].parent == NULL);
  TEST_CHECK(find(&parts[1], ".1")->relative_index == 0);
  for (int p = 0; p < 2; p++) dart__domain_clear(&parts[p]);

  TEST_OK(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_NUMA, 4, parts));
  check_part(&parts[0], "14,15");
  check_part(&parts[3], "12,13");
  for (int p = 0; p < 4; p++) dart__domain_clear(&parts[p]);

  /* 8 cores in 3 parts: ceil(8/3) = 3 per part. */
  TEST_OK(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_CORE, 3, parts));
  check_part(&parts[0], "14,15,16");
  check_part(&parts[1], "10,11,17");
  check_part(&parts[2], "12,13");
  /* A part is a normal tree: clone it, split it again. */
  dart_domain_locality_t *copy, sub[2];
  TEST_OK(dart_domain_clone(&parts[1], &copy));
  TEST_OK(dart_domain_split_scope(copy, DART_LOCALITY_SCOPE_NODE, 2, sub));
  check_part(&sub[0], "17");
  check_part(&sub[1], "10,11");
  for (int p = 0; p < 2; p++) dart__domain_clear(&sub[p]);
  dart_domain_destroy(copy);
  for (int p = 0; p < 3; p++) dart__domain_clear(&parts[p]);

  /* More parts than domains: the surplus parts hold no units. */
  TEST_OK(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_NODE, 3, parts));
  check_part(&parts[2], "");
  TEST_CHECK(parts[2].num_domains == 0);
  for (int p = 0; p < 3; p++) dart__domain_clear(&parts[p]);

  int logged = log_stub_count;
  TEST_EQ_RET(
      dart_domain_split_scope(root, DART_LOCALITY_SCOPE_PACKAGE, 2, parts),
      DART_ERR_NOTFOUND);
  TEST_EQ_RET(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_NODE, 0, parts),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_split_scope(root, DART_LOCALITY_SCOPE_NODE, 2, NULL),
              DART_ERR_INVAL);
  TEST_CHECK(log_stub_count == logged + 3);
  dart__locality_free(loc);
}

static void test_group(void)
{
  dart__locality_t *loc = base();
  dart_domain_locality_t *root = loc->root;
  char g1[DART_LOCALITY_DOMAIN_TAG_MAX_SIZE], g2[sizeof g1], g3[sizeof g1];
  /* (a) siblings: both cores of NUMA .1.0.0 */
  TEST_OK(dart_domain_group(root, 2, TAGS(".1.0.0.1", ".1.0.0.0"), g1));
  TEST_CHECK(strcmp(g1, ".1.0.0.2") == 0);
  dart_domain_locality_t *g = find(root, g1);
  TEST_CHECK(g->scope == DART_LOCALITY_SCOPE_GROUP && g->level == 4);
  TEST_CHECK(g->relative_index == 0 && g->num_domains == 2);
  TEST_CHECK(strcmp(units(g), "10,11") == 0 && g->num_aliases == 0);
  TEST_CHECK(strcmp(g->children[0]->domain_tag, ".1.0.0.2.0") == 0);
  TEST_CHECK(g->children[1]->unit_ids[0].id == 11 &&
             g->children[1]->level == 5);
  TEST_CHECK(absent(root, ".1.0.0.0") && g->node_id == 1);
  loc_check_domain(root, false);
  /* (a) again, one NUMA domain of node .0: group appended after the
   * remaining child, tag after the last child's tag. */
  TEST_OK(dart_domain_group(root, 1, TAGS(".0.0.0"), g2));
  TEST_CHECK(strcmp(g2, ".0.0.2") == 0);
  TEST_CHECK(find(root, g2)->relative_index == 1);
  TEST_CHECK(find(root, ".0.0.1")->relative_index == 0);
  TEST_CHECK(find(root, ".0.0.2.0.1")->unit_ids[0].id == 15);
  /* (b) cores of different nodes: group below the root, alias = root. */
  TEST_OK(dart_domain_group(root, 2, TAGS(".1.0.1.1", ".0.0.1.0"), g3));
  TEST_CHECK(strcmp(g3, ".2") == 0);
  g = find(root, g3);
  TEST_CHECK(g->num_aliases == 1 && g->aliases[0] == root);
  TEST_CHECK(strcmp(units(g), "13,16") == 0 && g->node_id == -1);
  TEST_CHECK(g->num_nodes == 2 && g->num_domains == 2 && g->level == 1);
  TEST_CHECK(strcmp(g->children[0]->domain_tag, ".2.0") == 0);
  TEST_CHECK(find(root, ".2.1.0.0.0")->unit_ids[0].id == 13);
  TEST_CHECK(absent(root, ".1.0.1.1") && absent(root, ".0.0.1.0"));
  TEST_CHECK(strcmp(units(root), "10,11,12,13,14,15,16,17") == 0);
  TEST_CHECK(strcmp(units(find(root, ".1")), "10,11,12") == 0);
  loc_check_domain(root, false);
  /* Clone of a tree with groups drops the aliases. */
  dart_domain_locality_t *copy;
  TEST_OK(dart_domain_clone(root, &copy));
  TEST_CHECK(find(copy, g3)->num_aliases == 0);
  dart_domain_destroy(copy);

  int logged = log_stub_count;
  TEST_EQ_RET(dart_domain_group(root, 0, TAGS(".0"), g1), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_group(root, 1, TAGS(".9"), g1), DART_ERR_NOTFOUND);
  TEST_EQ_RET(dart_domain_group(root, 1, TAGS("."), g1), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_group(root, 1, TAGS(".0"), NULL), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_group(NULL, 1, TAGS(".0"), g1), DART_ERR_INVAL);
  TEST_CHECK(log_stub_count == logged + 5);
  dart__locality_free(loc);

  /* (b) within a module, nested entries ignored. */
  loc = base();
  root = loc->root;
  TEST_OK(
      dart_domain_group(root, 3, TAGS(".0.0.0.1", ".0.0.1.0", ".0.0.1"), g1));
  TEST_CHECK(strcmp(g1, ".0.0.2") == 0);
  g = find(root, g1);
  TEST_CHECK(strcmp(units(g), "15,16,17") == 0 &&
             g->aliases[0] == root->children[0]->children[0]);
  TEST_CHECK(find(root, ".0.0.2.1")->num_domains == 2);
  TEST_CHECK(strcmp(units(find(root, ".0.0")), "14,15,16,17") == 0);
  loc_check_domain(root, false);
  dart__locality_free(loc);
}

static void test_add_move(void)
{
  dart__locality_t *loc = base();
  dart_domain_locality_t *root = loc->root;
  dart_domain_locality_t *extra;
  TEST_OK(dart_domain_clone(find(root, ".1.0.1.1"), &extra));
  extra->unit_ids[0].id = 99;
  TEST_OK(dart_domain_add_subdomain(find(root, ".0.0.0"), extra, 0));
  TEST_CHECK(extra->parent == find(root, ".0.0.0") && extra->level == 4);
  TEST_CHECK(strcmp(extra->domain_tag, ".0.0.0.2") == 0);
  TEST_CHECK(extra->relative_index == 0 && extra->team == root->team);
  TEST_CHECK(find(root, ".0.0.0.1")->relative_index == 2);
  TEST_CHECK(strcmp(units(root), "10,11,12,13,14,15,16,17,99") == 0);
  loc_check_domain(root, false);
  /* Move the NUMA domain .1.0.1 below node .0's module, appended. */
  dart_domain_locality_t *numa = find(root, ".1.0.1");
  TEST_OK(dart_domain_move_subdomain(numa, find(root, ".0.0"), -1));
  TEST_CHECK(strcmp(numa->domain_tag, ".0.0.2") == 0 && numa->level == 3);
  TEST_CHECK(strcmp(numa->children[1]->domain_tag, ".0.0.2.1") == 0);
  TEST_CHECK(strcmp(units(find(root, ".1")), "10,11") == 0);
  TEST_CHECK(strcmp(units(find(root, ".0")), "12,13,14,15,16,17,99") == 0);
  loc_check_domain(root, false);
  /* Reorder within the same parent. */
  TEST_OK(dart_domain_move_subdomain(numa, numa->parent, 0));
  TEST_CHECK(numa->relative_index == 0 &&
             strcmp(numa->domain_tag, ".0.0.3") == 0);
  loc_check_domain(root, false);
  /* Moving the last child away leaves an empty domain. */
  dart_domain_locality_t *n1 = find(root, ".1.0.0");
  TEST_OK(dart_domain_move_subdomain(n1, find(root, ".0.0"), 1));
  TEST_CHECK(find(root, ".1.0")->num_domains == 0);
  TEST_CHECK(find(root, ".1")->num_units == 0);
  loc_check_domain(root, false);

  int logged = log_stub_count;
  dart_domain_locality_t *mod0 = find(root, ".0.0");
  TEST_EQ_RET(dart_domain_add_subdomain(mod0, NULL, 0), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_add_subdomain(mod0, root, 0), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_add_subdomain(mod0, extra, 99), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_move_subdomain(root, mod0, 0), DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_move_subdomain(find(root, ".0"), mod0, 0),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_domain_move_subdomain(numa, mod0, 9), DART_ERR_INVAL);
  TEST_CHECK(log_stub_count == logged + 6);
  loc_check_domain(root, false);
  dart__locality_free(loc);

  /* Building a tree from created domains. */
  dart_domain_locality_t *top, *a, *b;
  TEST_OK(dart_domain_create(&top));
  TEST_OK(dart_domain_create(&a));
  TEST_OK(dart_domain_create(&b));
  snprintf(top->domain_tag, sizeof top->domain_tag, ".");
  b->num_units = 1;
  b->unit_ids = malloc(sizeof *b->unit_ids);
  b->unit_ids[0].id = 4;
  TEST_OK(dart_domain_add_subdomain(top, a, -1));
  TEST_OK(dart_domain_add_subdomain(a, b, -1));
  TEST_CHECK(strcmp(b->domain_tag, ".0.0") == 0 && b->level == 2);
  TEST_CHECK(top->num_units == 1 && top->unit_ids[0].id == 4);
  dart_domain_destroy(top);
}

static dart__group_t *group_of(int n, const int32_t *ids)
{
  dart__group_t *g = dart__group_new(0);
  for (int i = 0; i < n; i++) TEST_CHECK(dart__group_insert(g, ids[i]) == 0);
  return g;
}

static void check_group(const dart__group_t *g, const char *want)
{
  char buf[128] = "";
  for (size_t i = 0; i < g->n; i++)
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s%d", i ? "," : "",
             g->ids[i]);
  TEST_CHECK_MSG(strcmp(buf, want) == 0, "group %s, want %s", buf, want);
}

static void test_group_locality_split(void)
{
  dart__locality_t *loc = base();
  dart__group_t *g = group_of(6, (const int32_t[]){10, 11, 13, 14, 16, 99});
  dart_group_t out[8] = {0};
  size_t nout = 0;
  /* n >= D: one group per NUMA domain (4), members of g only. */
  TEST_OK(dart_group_locality_split(g, loc->root, DART_LOCALITY_SCOPE_NUMA, 8,
                                    &nout, out));
  TEST_CHECK(nout == 4 && out[4] == NULL);
  check_group(out[0], "14");
  check_group(out[1], "16");
  check_group(out[2], "10,11");
  check_group(out[3], "13");
  for (size_t i = 0; i < nout; i++) dart__group_free(out[i]);
  /* n < D: 8 cores in 3 groups of ceil(8/3) = 3 cores. */
  TEST_OK(dart_group_locality_split(g, loc->root, DART_LOCALITY_SCOPE_CORE, 3,
                                    &nout, out));
  TEST_CHECK(nout == 3);
  check_group(out[0], "14,16");
  check_group(out[1], "10,11");
  check_group(out[2], "13");
  for (size_t i = 0; i < nout; i++) dart__group_free(out[i]);
  /* Split a node's subtree: domain need not be the root. */
  TEST_OK(dart_group_locality_split(g, find(loc->root, ".1"),
                                    DART_LOCALITY_SCOPE_CORE, 2, &nout, out));
  TEST_CHECK(nout == 2);
  check_group(out[0], "10,11");
  check_group(out[1], "13");
  for (size_t i = 0; i < nout; i++) dart__group_free(out[i]);
  int logged = log_stub_count;
  nout = 7;
  TEST_EQ_RET(dart_group_locality_split(g, loc->root, DART_LOCALITY_SCOPE_UNIT,
                                        2, &nout, out),
              DART_ERR_NOTFOUND);
  TEST_EQ_RET(dart_group_locality_split(
                  NULL, loc->root, DART_LOCALITY_SCOPE_CORE, 2, &nout, out),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_group_locality_split(g, NULL, DART_LOCALITY_SCOPE_CORE, 2,
                                        &nout, out),
              DART_ERR_INVAL);
  TEST_EQ_RET(dart_group_locality_split(g, loc->root, DART_LOCALITY_SCOPE_CORE,
                                        0, &nout, out),
              DART_ERR_INVAL);
  TEST_CHECK(log_stub_count == logged + 4 && nout == 7);
  dart__group_free(g);
  dart__locality_free(loc);
}

int main(void)
{
  test_create_clone_assign_destroy();
  test_find_and_scopes();
  test_select();
  test_exclude();
  test_split();
  test_group();
  test_add_move();
  test_group_locality_split();
  printf("locality domain ops: OK\n");
  return 0;
}
