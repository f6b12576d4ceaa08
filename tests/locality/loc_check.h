/*
 * Invariant checks on locality domain trees and unit records, shared by the
 * MPI-free unit tests and the MPI tests (docs/locality.md, "Invariants").
 * Include after dart_test.h.
 */
#ifndef DART_TEST_LOC_CHECK_H
#define DART_TEST_LOC_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dash/dart/if/dart_locality.h>
#include <dash/dart/if/dart_types.h>

static inline int loc_unit_cmp(const void *a, const void *b)
{
  int32_t x = ((const dart_global_unit_t *)a)->id;
  int32_t y = ((const dart_global_unit_t *)b)->id;
  return (x > y) - (x < y);
}

/* Expected tag of child k of a domain tagged `parent` (out: 64 bytes). */
static inline void loc_child_tag(const char *parent, int k, char *out)
{
  if (strcmp(parent, ".") == 0)
    snprintf(out, 64, ".%d", k);
  else
    snprintf(out, 64, "%.31s.%d", parent, k);
}

/* Does the subtree of d mention unit id u in some leaf? (count) */
static inline int loc_leaf_count(const dart_domain_locality_t *d, int32_t u)
{
  if (d->num_domains == 0) {
    int c = 0;
    for (int i = 0; i < d->num_units; i++) c += d->unit_ids[i].id == u;
    return c;
  }
  int c = 0;
  for (int i = 0; i < d->num_domains; i++)
    c += loc_leaf_count(d->children[i], u);
  return c;
}

/*
 * Structural invariants of any domain (sub)tree: parent/children links,
 * relative indices, levels, team, NULL-iff-empty rules, units of an inner
 * domain = sorted union of the children's units. With `fresh` (a tree
 * just built by DART) also: tags by relative index, tag extends parent.
 */
static inline void loc_check_domain(const dart_domain_locality_t *d, bool fresh)
{
  TEST_CHECK((d->num_domains == 0) == (d->children == NULL));
  TEST_CHECK((d->num_units == 0) == (d->unit_ids == NULL));
  TEST_CHECK(strlen(d->domain_tag) < DART_LOCALITY_DOMAIN_TAG_MAX_SIZE);
  for (int i = 1; i < d->num_units; i++)
    TEST_CHECK(d->unit_ids[i - 1].id < d->unit_ids[i].id);
  if (d->num_domains == 0) return;
  int total = 0;
  for (int i = 0; i < d->num_domains; i++) {
    const dart_domain_locality_t *c = d->children[i];
    TEST_CHECK(c != NULL);
    TEST_CHECK(c->parent == d);
    TEST_CHECK(c->relative_index == i);
    TEST_CHECK(c->level == d->level + 1);
    TEST_CHECK(c->team == d->team);
    size_t plen = strcmp(d->domain_tag, ".") == 0 ? 0 : strlen(d->domain_tag);
    TEST_CHECK_MSG(strncmp(c->domain_tag, d->domain_tag, plen) == 0 &&
                       c->domain_tag[plen] == '.',
                   "tag '%s' does not extend '%s'", c->domain_tag,
                   d->domain_tag);
    if (fresh) {
      char want[64];
      loc_child_tag(d->domain_tag, i, want);
      TEST_CHECK_MSG(strcmp(c->domain_tag, want) == 0, "tag '%s' want '%s'",
                     c->domain_tag, want);
    }
    total += c->num_units;
    loc_check_domain(c, fresh);
  }
  dart_global_unit_t *all = malloc((size_t)(total ? total : 1) * sizeof *all);
  TEST_CHECK(all != NULL);
  int n = 0;
  for (int i = 0; i < d->num_domains; i++)
    for (int j = 0; j < d->children[i]->num_units; j++)
      all[n++] = d->children[i]->unit_ids[j];
  qsort(all, (size_t)n, sizeof *all, loc_unit_cmp);
  TEST_CHECK_MSG(n == d->num_units, "'%s': %d units, children have %d",
                 d->domain_tag, d->num_units, n);
  for (int i = 0; i < n; i++) TEST_CHECK(all[i].id == d->unit_ids[i].id);
  free(all);
}

/*
 * Shape rules of a team tree (locality.md §2/§3): root, NODE children,
 * MODULE below, CORE leaves at level >= 3, every unit's record naming a
 * leaf that holds it, units partitioned, unit ids = team members.
 * gids[u] = global id of team unit u. Returns the number of nodes.
 */
static inline int loc_check_team_tree(const dart_domain_locality_t *root,
                                      dart_team_t team, int n,
                                      const int32_t *gids,
                                      dart_unit_locality_t *const *recs)
{
  TEST_CHECK(strcmp(root->domain_tag, ".") == 0);
  TEST_CHECK(root->scope == DART_LOCALITY_SCOPE_GLOBAL);
  TEST_CHECK(root->level == 0 && root->parent == NULL);
  TEST_CHECK(root->relative_index == 0 && root->global_index == 0);
  TEST_CHECK(root->team == team);
  TEST_CHECK(root->num_units == n);
  for (int u = 0; u < n; u++) TEST_CHECK(root->unit_ids[u].id == gids[u]);
  TEST_CHECK(root->num_domains >= 1);
  TEST_CHECK(root->num_nodes == root->num_domains);
  loc_check_domain(root, true);
  int cores = 0;
  for (int i = 0; i < root->num_domains; i++) {
    const dart_domain_locality_t *node = root->children[i];
    TEST_CHECK(node->scope == DART_LOCALITY_SCOPE_NODE);
    TEST_CHECK(node->global_index == i && node->host[0] != '\0');
    if (i > 0) TEST_CHECK(strcmp(root->children[i - 1]->host, node->host) < 0);
    TEST_CHECK(node->num_domains >= 1);
    cores += node->num_cores;
    for (int m = 0; m < node->num_domains; m++)
      TEST_CHECK(node->children[m]->scope == DART_LOCALITY_SCOPE_MODULE);
  }
  TEST_CHECK(root->num_cores == cores);
  for (int u = 0; u < n; u++) {
    const dart_unit_locality_t *r = recs[u];
    TEST_CHECK(r->unit.id == u && r->team == team);
    TEST_CHECK(r->hwinfo.num_scopes >= 1 &&
               r->hwinfo.scopes[0].scope == DART_LOCALITY_SCOPE_CORE);
    for (int s = r->hwinfo.num_scopes; s < DART_LOCALITY_MAX_DOMAIN_SCOPES; s++)
      TEST_CHECK(r->hwinfo.scopes[s].scope == DART_LOCALITY_SCOPE_UNDEFINED &&
                 r->hwinfo.scopes[s].index == -1);
    TEST_CHECK(r->hwinfo.num_cores >= 1);
    dart_domain_locality_t *leaf = NULL;
    TEST_OK(dart_domain_find(root, r->domain_tag, &leaf));
    TEST_CHECK(leaf->num_domains == 0);
    TEST_CHECK(leaf->scope == DART_LOCALITY_SCOPE_CORE && leaf->level >= 3);
    TEST_CHECK(loc_leaf_count(leaf, gids[u]) == 1);
    TEST_CHECK(loc_leaf_count(root, gids[u]) == 1);
    bool node_seen = false, above_numa = false;
    for (const dart_domain_locality_t *p = leaf; p != NULL; p = p->parent) {
      node_seen = node_seen || p->scope <= DART_LOCALITY_SCOPE_NODE;
      above_numa = above_numa || p->scope < DART_LOCALITY_SCOPE_NUMA;
      if (p->scope == DART_LOCALITY_SCOPE_NODE)
        TEST_CHECK(strncmp(p->host, r->hwinfo.host, strlen(p->host)) == 0);
    }
    TEST_CHECK(node_seen && above_numa);
  }
  return root->num_domains;
}

/*
 * Prints every field of the tree below d (pre-order, one line per domain)
 * and of the unit records: the text to compare trees built by different
 * versions of the builder (the DART_TEST_LOCALITY_DUMP output).
 */
static inline void loc_dump(FILE *f, const dart_domain_locality_t *d)
{
  fprintf(f,
          "%*s%s scope=%d level=%d gidx=%d ridx=%d host='%s' nodes=%d "
          "node=%d cores=%d shm=%d sym=%d team=%d units=%d:",
          2 * d->level, "", d->domain_tag, (int)d->scope, d->level,
          d->global_index, d->relative_index, d->host, d->num_nodes, d->node_id,
          d->num_cores, d->shared_mem_bytes, d->is_symmetric, (int)d->team,
          d->num_units);
  for (int i = 0; i < d->num_units; i++) fprintf(f, " %d", d->unit_ids[i].id);
  fprintf(f, "\n");
  for (int i = 0; i < d->num_domains; i++) loc_dump(f, d->children[i]);
}

static inline void loc_dump_units(FILE *f, dart_unit_locality_t *const *recs,
                                  int n)
{
  for (int u = 0; u < n; u++) {
    const dart_unit_locality_t *r = recs[u];
    fprintf(f, "unit %d team=%d tag=%s host='%s' cores=%d scopes=", r->unit.id,
            (int)r->team, r->domain_tag, r->hwinfo.host, r->hwinfo.num_cores);
    for (int s = 0; s < DART_LOCALITY_MAX_DOMAIN_SCOPES; s++)
      fprintf(f, "%s%d:%d", s ? "," : "", (int)r->hwinfo.scopes[s].scope,
              r->hwinfo.scopes[s].index);
    fprintf(f, " n=%d\n", r->hwinfo.num_scopes);
  }
}

#endif /* DART_TEST_LOC_CHECK_H */
