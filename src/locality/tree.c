/*
 * Builds a team's unit records and domain tree from the hardware info of
 * its units (docs/locality.md, "Tree shape"). MPI-free: the input is a
 * plain array, so tests can feed synthetic machines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locality_internal.h"

#define HOST_MAX DART_LOCALITY_HOST_MAX_SIZE
#define MAX_SCOPES DART_LOCALITY_MAX_DOMAIN_SCOPES

/* Build state shared by the recursive helpers. */
typedef struct {
  dart_team_t team;
  int n;
  const int32_t *gids;
  dart_unit_locality_t *rec; /* [n] unit records (hwinfo sanitised) */
  int *node_of;              /* [n] node index of each unit          */
  int *host_of;              /* [n] index into hosts                 */
  const char **hosts;        /* distinct host names, strcmp order    */
  int *host_node;            /* node index of every distinct host    */
  int num_hosts;
  int num_nodes;
  int num_modules; /* running global index of modules      */
} build_t;

bool dart__locality_is_module_of(const char *host, const char *node)
{
  size_t len = strlen(node);
  if (len == 0 || strncmp(host, node, len) != 0) return false;
  const char *rest = host + len;
  if (strncmp(rest, "-mic", 4) != 0 || rest[4] == '\0') return false;
  for (rest += 4; *rest != '\0'; rest++)
    if (*rest < '0' || *rest > '9') return false;
  return true;
}

/* Makes the hardware info usable: terminated host, scopes[0] == CORE. */
static void sanitize(dart_hwinfo_t *hw)
{
  hw->host[HOST_MAX - 1] = '\0';
  if (hw->num_scopes < 0 || hw->num_scopes > MAX_SCOPES) hw->num_scopes = 0;
  if (hw->num_scopes == 0 || hw->scopes[0].scope != DART_LOCALITY_SCOPE_CORE) {
    if (hw->num_scopes == MAX_SCOPES) hw->num_scopes--;
    memmove(hw->scopes + 1, hw->scopes,
            (size_t)hw->num_scopes * sizeof hw->scopes[0]);
    hw->scopes[0].scope = DART_LOCALITY_SCOPE_CORE;
    hw->scopes[0].index = hw->core_id >= 0 ? hw->core_id : hw->cpu_id;
    hw->num_scopes++;
  }
  for (int i = hw->num_scopes; i < MAX_SCOPES; i++) {
    hw->scopes[i].scope = DART_LOCALITY_SCOPE_UNDEFINED;
    hw->scopes[i].index = -1;
  }
}

typedef struct {
  const char *host;
  int unit;
} host_unit_t;

static int host_cmp(const void *a, const void *b)
{
  const host_unit_t *x = a, *y = b;
  int c = strcmp(x->host, y->host);
  return c != 0 ? c : (x->unit > y->unit) - (x->unit < y->unit);
}

/* Distinct hosts, their nodes, and the node of every unit. */
static int assign_nodes(build_t *b)
{
  host_unit_t *order = malloc((size_t)b->n * sizeof *order);
  if (order == NULL) return -1;
  for (int u = 0; u < b->n; u++)
    order[u] = (host_unit_t){b->rec[u].hwinfo.host, u};
  qsort(order, (size_t)b->n, sizeof *order, host_cmp);
  for (int i = 0; i < b->n; i++) {
    const char *h = order[i].host;
    if (b->num_hosts == 0 || strcmp(b->hosts[b->num_hosts - 1], h) != 0)
      b->hosts[b->num_hosts++] = h;
    b->host_of[order[i].unit] = b->num_hosts - 1;
  }
  free(order);
  /* A host is a node unless it is a module of another host; modules sort
   * after their node, so node indices follow the strcmp order. */
  for (int h = 0; h < b->num_hosts; h++) {
    b->host_node[h] = -1;
    for (int k = 0; k < h && b->host_node[h] < 0; k++)
      if (dart__locality_is_module_of(b->hosts[h], b->hosts[k]))
        b->host_node[h] = b->host_node[k];
    if (b->host_node[h] < 0) b->host_node[h] = b->num_nodes++;
  }
  for (int u = 0; u < b->n; u++) b->node_of[u] = b->host_node[b->host_of[u]];
  return 0;
}

/*
 * Appends a child with the given scope, global index and units (team unit
 * indices, ascending) to parent. Level, tag, team, node and host follow
 * the parent. Returns the child or NULL (out of memory / tag too long).
 */
static dart_domain_locality_t *add_child(const build_t *b,
                                         dart_domain_locality_t *parent,
                                         dart_locality_scope_t scope, int gidx,
                                         const int *units, int nu)
{
  dart_domain_locality_t *d = dart__domain_new();
  if (d == NULL) return NULL;
  int k = parent->num_domains;
  dart_domain_locality_t **kids =
      realloc(parent->children, (size_t)(k + 1) * sizeof *kids);
  d->unit_ids = malloc((size_t)nu * sizeof *d->unit_ids);
  if (kids != NULL) parent->children = kids;
  if (kids == NULL || d->unit_ids == NULL ||
      dart__domain_child_tag(parent->domain_tag, k, d->domain_tag) != 0) {
    if (kids != NULL && d->unit_ids != NULL)
      DART_LOG_ERROR("tag below '%s' exceeds %d characters", parent->domain_tag,
                     DART_LOCALITY_DOMAIN_TAG_MAX_SIZE - 1);
    dart__domain_free(d);
    return NULL;
  }
  parent->children[k] = d;
  parent->num_domains = k + 1;
  d->parent = parent;
  d->relative_index = k;
  d->level = parent->level + 1;
  d->team = b->team;
  d->scope = scope;
  d->global_index = gidx;
  d->node_id = parent->node_id;
  d->num_nodes = 1;
  d->is_symmetric = 0;
  memcpy(d->host, parent->host, sizeof d->host);
  d->num_units = nu;
  for (int i = 0; i < nu; i++) d->unit_ids[i].id = b->gids[units[i]];
  return d;
}

/* Key of unit u at a hardware level of the given scope (-1: none). */
static int scope_key(const dart_hwinfo_t *hw, dart_locality_scope_t scope,
                     int level_idx)
{
  if (level_idx < hw->num_scopes && hw->scopes[level_idx].scope == scope)
    return hw->scopes[level_idx].index;
  for (int i = 0; i < hw->num_scopes; i++)
    if (hw->scopes[i].scope == scope) return hw->scopes[i].index;
  return -1;
}

typedef struct {
  int key;
  int unit;
} keyed_t;

static int keyed_cmp(const void *a, const void *b)
{
  const keyed_t *x = a, *y = b;
  if (x->key != y->key) return (x->key > y->key) - (x->key < y->key);
  return (x->unit > y->unit) - (x->unit < y->unit);
}

/* Module-wide parameters of the hardware levels. */
typedef struct {
  const dart_hwinfo_t *first; /* scope list of the module's first unit */
  int cores;
  int units;
} module_t;

/*
 * Creates the hardware levels below d (units: team indices, ascending)
 * from scopes[idx] of the module's first unit down to scopes[0]; at the
 * leaves the unit records get their tag and core count.
 */
static int build_hw(build_t *b, dart_domain_locality_t *d, const int *units,
                    int nu, int idx, const module_t *m)
{
  if (idx < 0) {
    for (int i = 0; i < nu; i++) {
      dart_unit_locality_t *r = &b->rec[units[i]];
      memcpy(r->domain_tag, d->domain_tag, sizeof r->domain_tag);
      int per_unit = d->num_cores / nu;
      r->hwinfo.num_cores = per_unit > 0 ? per_unit : 1;
    }
    return 0;
  }
  dart_locality_scope_t scope = m->first->scopes[idx].scope;
  keyed_t *kv = malloc((size_t)nu * sizeof *kv);
  int *sub = malloc((size_t)nu * sizeof *sub);
  int rc = (kv == NULL || sub == NULL) ? -1 : 0;
  for (int i = 0; rc == 0 && i < nu; i++)
    kv[i] =
        (keyed_t){scope_key(&b->rec[units[i]].hwinfo, scope, idx), units[i]};
  if (rc == 0) qsort(kv, (size_t)nu, sizeof *kv, keyed_cmp);
  for (int i = 0; rc == 0 && i < nu;) {
    int ns = 0, key = kv[i].key;
    for (; i < nu && kv[i].key == key; i++) sub[ns++] = kv[i].unit;
    dart_domain_locality_t *c = add_child(b, d, scope, key, sub, ns);
    if (c == NULL) {
      rc = -1;
      break;
    }
    long cores = (long)m->cores * ns / (m->units > 0 ? m->units : 1);
    c->num_cores = cores > 0 ? (int)cores : 1;
    c->shared_mem_bytes = -1;
    rc = build_hw(b, c, sub, ns, idx - 1, m);
  }
  free(kv);
  free(sub);
  return rc;
}

/* Core count of a module: its first unit's view, or its distinct cores. */
static int module_cores(const build_t *b, const int *units, int nu)
{
  int cores = b->rec[units[0]].hwinfo.num_cores;
  if (cores > 0) return cores;
  cores = 0;
  for (int i = 0; i < nu; i++) {
    bool seen = false;
    int key = b->rec[units[i]].hwinfo.scopes[0].index;
    for (int j = 0; j < i && !seen; j++)
      seen = b->rec[units[j]].hwinfo.scopes[0].index == key;
    cores += !seen;
  }
  return cores > 0 ? cores : 1;
}

/* Builds node n: its modules and their hardware levels. */
static int build_node(build_t *b, dart_domain_locality_t *root, int n,
                      int *units, int *sub)
{
  int nu = 0;
  for (int u = 0; u < b->n; u++)
    if (b->node_of[u] == n) units[nu++] = u;
  dart_domain_locality_t *node =
      add_child(b, root, DART_LOCALITY_SCOPE_NODE, n, units, nu);
  if (node == NULL) return -1;
  node->node_id = n;
  node->shared_mem_bytes = -1;
  node->num_cores = 0;
  node->host[0] = '\0';
  for (int h = 0; h < b->num_hosts; h++) {
    if (b->host_node[h] != n) continue;
    /* The node's own host sorts before its modules ("x" < "x-mic0"). */
    if (node->host[0] == '\0')
      snprintf(node->host, sizeof node->host, "%s", b->hosts[h]);
    int ns = 0;
    for (int i = 0; i < nu; i++)
      if (b->host_of[units[i]] == h) sub[ns++] = units[i];
    dart_domain_locality_t *mod = add_child(b, node, DART_LOCALITY_SCOPE_MODULE,
                                            b->num_modules++, sub, ns);
    if (mod == NULL) return -1;
    snprintf(mod->host, sizeof mod->host, "%s", b->hosts[h]);
    mod->shared_mem_bytes = -1;
    module_t m = {&b->rec[sub[0]].hwinfo, module_cores(b, sub, ns), ns};
    mod->num_cores = m.cores;
    node->num_cores += m.cores;
    if (build_hw(b, mod, sub, ns, m.first->num_scopes - 1, &m) != 0) return -1;
  }
  return 0;
}

static dart_domain_locality_t *build_tree(build_t *b)
{
  dart_domain_locality_t *root = dart__domain_new();
  int *units = malloc((size_t)b->n * sizeof *units);
  int *sub = malloc((size_t)b->n * sizeof *sub);
  if (root == NULL || units == NULL || sub == NULL) goto fail;
  snprintf(root->domain_tag, sizeof root->domain_tag, ".");
  root->scope = DART_LOCALITY_SCOPE_GLOBAL;
  root->team = b->team;
  root->global_index = 0;
  root->relative_index = 0;
  root->num_nodes = b->num_nodes;
  root->num_cores = 0;
  root->shared_mem_bytes = 0;
  root->num_units = b->n;
  root->unit_ids = malloc((size_t)b->n * sizeof *root->unit_ids);
  if (root->unit_ids == NULL) goto fail;
  for (int u = 0; u < b->n; u++) root->unit_ids[u].id = b->gids[u];
  for (int n = 0; n < b->num_nodes; n++) {
    if (build_node(b, root, n, units, sub) != 0) goto fail;
    root->num_cores += root->children[n]->num_cores;
  }
  free(units);
  free(sub);
  return root;
fail:
  free(units);
  free(sub);
  dart__domain_free(root);
  return NULL;
}

dart_ret_t dart__locality_build(dart_team_t team, int n, const int32_t *gids,
                                const dart_hwinfo_t *hw, dart__locality_t **out)
{
  *out = NULL;
  if (n < 1 || gids == NULL || hw == NULL) return DART_ERR_INVAL;
  build_t b = {.team = team, .n = n, .gids = gids};
  dart__locality_t *loc = calloc(1, sizeof *loc);
  b.rec = calloc((size_t)n, sizeof *b.rec);
  b.node_of = malloc((size_t)n * sizeof *b.node_of);
  b.host_of = malloc((size_t)n * sizeof *b.host_of);
  b.hosts = malloc((size_t)n * sizeof *b.hosts);
  b.host_node = malloc((size_t)n * sizeof *b.host_node);
  dart_ret_t ret = DART_ERR_NOMEM;
  if (loc == NULL || b.rec == NULL || b.node_of == NULL || b.host_of == NULL ||
      b.hosts == NULL || b.host_node == NULL)
    goto done;
  for (int u = 0; u < n; u++) {
    b.rec[u].unit.id = u;
    b.rec[u].team = team;
    b.rec[u].hwinfo = hw[u];
    sanitize(&b.rec[u].hwinfo);
  }
  if (assign_nodes(&b) != 0) goto done;
  loc->root = build_tree(&b);
  if (loc->root == NULL) {
    ret = DART_ERR_OTHER; /* out of memory or tag overflow (logged) */
    goto done;
  }
  loc->team = team;
  loc->num_units = n;
  loc->units = b.rec;
  b.rec = NULL;
  *out = loc;
  loc = NULL;
  ret = DART_OK;
done:
  free(loc);
  free(b.rec);
  free(b.node_of);
  free(b.host_of);
  free(b.hosts);
  free(b.host_node);
  return ret;
}

void dart__locality_free(dart__locality_t *loc)
{
  if (loc == NULL) return;
  dart__domain_free(loc->root);
  free(loc->units);
  free(loc);
}
