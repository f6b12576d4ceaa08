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

/*
 * Build state shared by the recursive helpers. Everything is grouped by
 * sorting or counting, never by scanning all units per node or comparing
 * every host with every other: O(P log P) for P units.
 */
typedef struct {
  dart_team_t team;
  int n;
  const int32_t *gids;
  dart_unit_locality_t *rec; /* [n] unit records (hwinfo sanitised)     */
  int *host_of;              /* [n] index into hosts                     */
  const char **hosts;        /* distinct host names, strcmp order        */
  int *host_node;            /* node index of every distinct host        */
  int *host_units;           /* [n] units grouped by host, ascending     */
  int *host_off;             /* [num_hosts+1] offsets into host_units    */
  int *node_units;           /* [n] units grouped by node, ascending     */
  int *node_off;             /* [num_nodes+1] offsets into node_units    */
  int *node_hosts;           /* hosts grouped by node, strcmp order      */
  int *node_hoff;            /* [num_nodes+1] offsets into node_hosts    */
  int num_hosts;
  int num_nodes;
  int num_modules; /* running global index of modules          */
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

/*
 * Length of the node name `host` would be a module of ("<node>-mic<digits>",
 * see dart__locality_is_module_of), or 0 if it has no module form.
 */
static size_t module_base_length(const char *host)
{
  size_t len = strlen(host), d = len;
  while (d > 0 && host[d - 1] >= '0' && host[d - 1] <= '9') d--;
  if (d == len || d < 5 || strncmp(host + d - 4, "-mic", 4) != 0) return 0;
  return d - 4;
}

/* Index of the distinct host named by the first len bytes of name among
 * hosts[0..nh-1] (strcmp order), or -1. */
static int find_host(const build_t *b, int nh, const char *name, size_t len)
{
  int lo = 0, hi = nh - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    const char *h = b->hosts[mid];
    int c = strncmp(h, name, len);
    if (c == 0) c = h[len] != '\0'; /* h longer than name: h > name */
    if (c == 0) return mid;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Stable counting sort: items 0..n-1 grouped by key[i] in [0, nk);
 * off gets nk+1 offsets. */
static void group_by(const int *key, int n, int nk, int *out, int *off)
{
  memset(off, 0, (size_t)(nk + 1) * sizeof *off);
  for (int i = 0; i < n; i++) off[key[i] + 1]++;
  for (int k = 0; k < nk; k++) off[k + 1] += off[k];
  for (int i = 0; i < n; i++) out[off[key[i]]++] = i;
  for (int k = nk; k > 0; k--) off[k] = off[k - 1];
  off[0] = 0;
}

/* Distinct hosts, their nodes, and units and hosts grouped by node. */
static int assign_nodes(build_t *b)
{
  host_unit_t *order = malloc((size_t)b->n * sizeof *order);
  int *node_of = malloc((size_t)b->n * sizeof *node_of);
  int rc = order == NULL || node_of == NULL ? -1 : 0;
  for (int u = 0; rc == 0 && u < b->n; u++)
    order[u] = (host_unit_t){b->rec[u].hwinfo.host, u};
  if (rc == 0) qsort(order, (size_t)b->n, sizeof *order, host_cmp);
  for (int i = 0; rc == 0 && i < b->n; i++) {
    const char *h = order[i].host;
    if (b->num_hosts == 0 || strcmp(b->hosts[b->num_hosts - 1], h) != 0)
      b->hosts[b->num_hosts++] = h;
    b->host_of[order[i].unit] = b->num_hosts - 1;
  }
  free(order);
  /* A host is a node unless it is a module of another host. The node name
   * of a module is a proper prefix, so it sorts earlier and is resolved
   * first: node indices follow the strcmp order. */
  for (int h = 0; rc == 0 && h < b->num_hosts; h++) {
    size_t len = module_base_length(b->hosts[h]);
    int k = len > 0 ? find_host(b, h, b->hosts[h], len) : -1;
    b->host_node[h] = k >= 0 ? b->host_node[k] : b->num_nodes++;
  }
  b->host_off = malloc((size_t)(b->num_hosts + 1) * sizeof *b->host_off);
  b->node_off = malloc((size_t)(b->num_nodes + 1) * sizeof *b->node_off);
  b->node_hoff = malloc((size_t)(b->num_nodes + 1) * sizeof *b->node_hoff);
  if (b->host_off == NULL || b->node_off == NULL || b->node_hoff == NULL)
    rc = -1;
  if (rc == 0) {
    for (int u = 0; u < b->n; u++) node_of[u] = b->host_node[b->host_of[u]];
    group_by(b->host_of, b->n, b->num_hosts, b->host_units, b->host_off);
    group_by(node_of, b->n, b->num_nodes, b->node_units, b->node_off);
    group_by(b->host_node, b->num_hosts, b->num_nodes, b->node_hosts,
             b->node_hoff);
  }
  free(node_of);
  return rc;
}

/* Makes room for exactly `count` children of d (filled by add_child). */
static int reserve_children(dart_domain_locality_t *d, int count)
{
  d->children = malloc((size_t)count * sizeof *d->children);
  return d->children == NULL ? -1 : 0;
}

/*
 * Appends a child with the given scope, global index and units (team unit
 * indices, ascending) to parent, whose children array has room for it
 * (reserve_children). Level, tag, team, node and host follow the parent.
 * Returns the child or NULL (out of memory / tag too long).
 */
static dart_domain_locality_t *add_child(const build_t *b,
                                         dart_domain_locality_t *parent,
                                         dart_locality_scope_t scope, int gidx,
                                         const int *units, int nu)
{
  dart_domain_locality_t *d = dart__domain_new();
  if (d == NULL) return NULL;
  int k = parent->num_domains;
  d->unit_ids = malloc((size_t)nu * sizeof *d->unit_ids);
  if (d->unit_ids == NULL ||
      dart__domain_child_tag(parent->domain_tag, k, d->domain_tag) != 0) {
    if (d->unit_ids != NULL)
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
  if (rc == 0) {
    qsort(kv, (size_t)nu, sizeof *kv, keyed_cmp);
    int keys = 1;
    for (int i = 1; i < nu; i++) keys += kv[i].key != kv[i - 1].key;
    rc = reserve_children(d, keys);
  }
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

static int int_cmp(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Core count of a module: its first unit's view, or its distinct cores
 * (-1: out of memory). */
static int module_cores(const build_t *b, const int *units, int nu)
{
  int cores = b->rec[units[0]].hwinfo.num_cores;
  if (cores > 0) return cores;
  int *keys = malloc((size_t)nu * sizeof *keys);
  if (keys == NULL) return -1;
  for (int i = 0; i < nu; i++)
    keys[i] = b->rec[units[i]].hwinfo.scopes[0].index;
  qsort(keys, (size_t)nu, sizeof *keys, int_cmp);
  cores = 0;
  for (int i = 0; i < nu; i++) cores += i == 0 || keys[i] != keys[i - 1];
  free(keys);
  return cores > 0 ? cores : 1;
}

/* Builds node n: its modules (hosts in strcmp order, the node's own host
 * first since "x" < "x-mic0") and their hardware levels. */
static int build_node(build_t *b, dart_domain_locality_t *root, int n)
{
  const int *units = b->node_units + b->node_off[n];
  int nu = b->node_off[n + 1] - b->node_off[n];
  dart_domain_locality_t *node =
      add_child(b, root, DART_LOCALITY_SCOPE_NODE, n, units, nu);
  if (node == NULL) return -1;
  const int *hosts = b->node_hosts + b->node_hoff[n];
  int nh = b->node_hoff[n + 1] - b->node_hoff[n];
  node->node_id = n;
  node->shared_mem_bytes = -1;
  node->num_cores = 0;
  snprintf(node->host, sizeof node->host, "%s", b->hosts[hosts[0]]);
  if (reserve_children(node, nh) != 0) return -1;
  for (int i = 0; i < nh; i++) {
    int h = hosts[i];
    const int *sub = b->host_units + b->host_off[h];
    int ns = b->host_off[h + 1] - b->host_off[h];
    dart_domain_locality_t *mod = add_child(b, node, DART_LOCALITY_SCOPE_MODULE,
                                            b->num_modules++, sub, ns);
    if (mod == NULL) return -1;
    snprintf(mod->host, sizeof mod->host, "%s", b->hosts[h]);
    mod->shared_mem_bytes = -1;
    module_t m = {&b->rec[sub[0]].hwinfo, module_cores(b, sub, ns), ns};
    if (m.cores < 0) return -1;
    mod->num_cores = m.cores;
    node->num_cores += m.cores;
    if (build_hw(b, mod, sub, ns, m.first->num_scopes - 1, &m) != 0) return -1;
  }
  return 0;
}

static dart_domain_locality_t *build_tree(build_t *b)
{
  dart_domain_locality_t *root = dart__domain_new();
  if (root == NULL) return NULL;
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
  if (root->unit_ids == NULL || reserve_children(root, b->num_nodes) != 0)
    goto fail;
  for (int u = 0; u < b->n; u++) root->unit_ids[u].id = b->gids[u];
  for (int n = 0; n < b->num_nodes; n++) {
    if (build_node(b, root, n) != 0) goto fail;
    root->num_cores += root->children[n]->num_cores;
  }
  return root;
fail:
  dart__domain_free(root);
  return NULL;
}

/* Frees the build state (not the records, which the result keeps). */
static void build_free(build_t *b)
{
  free(b->host_of);
  free(b->hosts);
  free(b->host_node);
  free(b->host_units);
  free(b->host_off);
  free(b->node_units);
  free(b->node_off);
  free(b->node_hosts);
  free(b->node_hoff);
}

dart_ret_t dart__locality_build(dart_team_t team, int n, const int32_t *gids,
                                const dart_hwinfo_t *hw, dart__locality_t **out)
{
  *out = NULL;
  if (n < 1 || gids == NULL || hw == NULL) return DART_ERR_INVAL;
  build_t b = {.team = team, .n = n, .gids = gids};
  dart__locality_t *loc = calloc(1, sizeof *loc);
  b.rec = calloc((size_t)n, sizeof *b.rec);
  b.host_of = malloc((size_t)n * sizeof *b.host_of);
  b.hosts = malloc((size_t)n * sizeof *b.hosts);
  b.host_node = malloc((size_t)n * sizeof *b.host_node);
  b.host_units = malloc((size_t)n * sizeof *b.host_units);
  b.node_units = malloc((size_t)n * sizeof *b.node_units);
  b.node_hosts = malloc((size_t)n * sizeof *b.node_hosts);
  dart_ret_t ret = DART_ERR_NOMEM;
  if (loc == NULL || b.rec == NULL || b.host_of == NULL || b.hosts == NULL ||
      b.host_node == NULL || b.host_units == NULL || b.node_units == NULL ||
      b.node_hosts == NULL)
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
  build_free(&b);
  return ret;
}

void dart__locality_free(dart__locality_t *loc)
{
  if (loc == NULL) return;
  dart__domain_free(loc->root);
  free(loc->units);
  free(loc);
}
