/*
 * Locality domains: memory management, tags, unit bookkeeping and the
 * structural operations (create, clone, destroy, assign, find, scope
 * queries, add/move subdomain). MPI-free.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locality_internal.h"

#define TAG_MAX DART_LOCALITY_DOMAIN_TAG_MAX_SIZE

int dart__domvec_push(dart__domvec_t *vec, dart_domain_locality_t *d)
{
  if (vec->n == vec->cap) {
    int cap = vec->cap ? 2 * vec->cap : 16;
    dart_domain_locality_t **v = realloc(vec->v, (size_t)cap * sizeof *v);
    if (v == NULL) return -1;
    vec->v = v;
    vec->cap = cap;
  }
  vec->v[vec->n++] = d;
  return 0;
}

static int ptr_cmp(const void *a, const void *b)
{
  uintptr_t x = (uintptr_t)(*(dart_domain_locality_t *const *)a);
  uintptr_t y = (uintptr_t)(*(dart_domain_locality_t *const *)b);
  return (x > y) - (x < y);
}

void dart__domvec_sort(dart__domvec_t *set)
{
  if (set->n == 0) return;
  qsort(set->v, (size_t)set->n, sizeof *set->v, ptr_cmp);
  int k = 0;
  for (int i = 0; i < set->n; i++)
    if (k == 0 || set->v[k - 1] != set->v[i]) set->v[k++] = set->v[i];
  set->n = k;
}

bool dart__domvec_has(const dart__domvec_t *set,
                      const dart_domain_locality_t *d)
{
  if (set->n == 0) return false;
  return bsearch(&d, set->v, (size_t)set->n, sizeof *set->v, ptr_cmp) != NULL;
}

void dart__domain_defaults(dart_domain_locality_t *d)
{
  memset(d, 0, sizeof *d);
  d->scope = DART_LOCALITY_SCOPE_UNDEFINED;
  d->team = DART_TEAM_NULL;
  d->global_index = -1;
  d->num_units = -1;
  d->num_nodes = -1;
  d->node_id = -1;
  d->num_cores = -1;
  d->shared_mem_bytes = -1;
}

dart_domain_locality_t *dart__domain_new(void)
{
  dart_domain_locality_t *d = malloc(sizeof *d);
  if (d != NULL) dart__domain_defaults(d);
  return d;
}

void dart__domain_clear(dart_domain_locality_t *d)
{
  if (d->children != NULL) {
    for (int i = 0; i < d->num_domains; i++) dart__domain_free(d->children[i]);
  }
  free(d->children);
  free(d->unit_ids);
  free(d->aliases);
  d->children = NULL;
  d->num_domains = 0;
  d->unit_ids = NULL;
  d->num_units = 0;
  d->aliases = NULL;
  d->num_aliases = 0;
}

void dart__domain_free(dart_domain_locality_t *d)
{
  if (d == NULL) return;
  dart__domain_clear(d);
  free(d);
}

int dart__domain_copy(dart_domain_locality_t *dst,
                      const dart_domain_locality_t *src)
{
  *dst = *src;
  dst->aliases = NULL;
  dst->num_aliases = 0;
  dst->unit_ids = NULL;
  dst->children = NULL;
  dst->num_domains = 0;
  if (src->num_units > 0 && src->unit_ids != NULL) {
    size_t bytes = (size_t)src->num_units * sizeof *src->unit_ids;
    dst->unit_ids = malloc(bytes);
    if (dst->unit_ids == NULL) goto fail;
    memcpy(dst->unit_ids, src->unit_ids, bytes);
  }
  if (src->num_domains > 0 && src->children != NULL) {
    dst->children = calloc((size_t)src->num_domains, sizeof *dst->children);
    if (dst->children == NULL) goto fail;
    for (int i = 0; i < src->num_domains; i++) {
      dart_domain_locality_t *c = malloc(sizeof *c);
      if (c == NULL) goto fail;
      if (dart__domain_copy(c, src->children[i]) != 0) {
        free(c);
        goto fail;
      }
      c->parent = dst;
      dst->children[i] = c;
      dst->num_domains = i + 1;
    }
  }
  return 0;
fail:
  dart__domain_clear(dst);
  return -1;
}

static int unit_cmp(const void *a, const void *b)
{
  int32_t x = ((const dart_global_unit_t *)a)->id;
  int32_t y = ((const dart_global_unit_t *)b)->id;
  return (x > y) - (x < y);
}

/* Sorted, duplicate-free union of the children's unit lists. */
static int gather_units(const dart_domain_locality_t *d,
                        dart_global_unit_t **ids_out, int *n_out)
{
  int total = 0;
  for (int i = 0; i < d->num_domains; i++)
    if (d->children[i]->num_units > 0) total += d->children[i]->num_units;
  dart_global_unit_t *ids = NULL;
  int n = 0;
  if (total > 0) {
    ids = malloc((size_t)total * sizeof *ids);
    if (ids == NULL) return -1;
    for (int i = 0; i < d->num_domains; i++) {
      const dart_domain_locality_t *c = d->children[i];
      if (c->num_units > 0 && c->unit_ids != NULL) {
        memcpy(ids + n, c->unit_ids, (size_t)c->num_units * sizeof *ids);
        n += c->num_units;
      }
    }
    qsort(ids, (size_t)n, sizeof *ids, unit_cmp);
    int k = 0;
    for (int i = 0; i < n; i++)
      if (k == 0 || ids[k - 1].id != ids[i].id) ids[k++] = ids[i];
    n = k;
    if (n == 0) {
      free(ids);
      ids = NULL;
    }
  }
  *ids_out = ids;
  *n_out = n;
  return 0;
}

int dart__domain_refresh(dart_domain_locality_t *d, bool emptied)
{
  if (d->num_domains <= 0 || d->children == NULL) {
    if (emptied) {
      free(d->children);
      free(d->unit_ids);
      d->children = NULL;
      d->num_domains = 0;
      d->unit_ids = NULL;
      d->num_units = 0;
      d->num_cores = 0;
      d->num_nodes = 0;
    }
    return 0;
  }
  dart_global_unit_t *ids;
  int n;
  if (gather_units(d, &ids, &n) != 0) return -1;
  free(d->unit_ids);
  d->unit_ids = ids;
  d->num_units = n;

  int cores = 0, nodes = 0;
  bool same_node = true;
  for (int i = 0; i < d->num_domains; i++) {
    const dart_domain_locality_t *c = d->children[i];
    if (c->num_cores > 0) cores += c->num_cores;
    if (c->num_nodes > 0) nodes += c->num_nodes;
    if (c->node_id < 0 || c->node_id != d->children[0]->node_id)
      same_node = false;
  }
  d->num_cores = cores > 0 ? cores : -1;
  /* Group domains take the node of their content; for all other scopes
   * the node is a structural property set when the domain was built. */
  if (d->scope == DART_LOCALITY_SCOPE_GROUP)
    d->node_id = same_node ? d->children[0]->node_id : -1;
  d->num_nodes = d->node_id >= 0 ? 1 : (nodes > 0 ? nodes : -1);
  return 0;
}

int dart__domain_refresh_up(dart_domain_locality_t *d,
                            const dart_domain_locality_t *top)
{
  for (;;) {
    if (dart__domain_refresh(d, false) != 0) return -1;
    if (d == top || d->parent == NULL) return 0;
    d = d->parent;
  }
}

int dart__domain_child_tag(const char *parent, int k, char *out)
{
  int len = strcmp(parent, ".") == 0
                ? snprintf(out, TAG_MAX, ".%d", k)
                : snprintf(out, TAG_MAX, "%s.%d", parent, k);
  return (len < 0 || len >= TAG_MAX) ? -1 : 0;
}

int dart__domain_next_tag_number(const dart_domain_locality_t *d)
{
  int next = d->num_domains;
  for (int i = 0; i < d->num_domains; i++) {
    const char *dot = strrchr(d->children[i]->domain_tag, '.');
    if (dot == NULL) continue;
    char *end;
    long v = strtol(dot + 1, &end, 10);
    if (end != dot + 1 && *end == '\0' && v >= 0 && v < INT32_MAX &&
        v + 1 > next)
      next = (int)v + 1;
  }
  return next;
}

static size_t num_digits(int k)
{
  size_t n = 1;
  while (k >= 10) {
    k /= 10;
    n++;
  }
  return n;
}

/* Longest tag below a domain whose own tag has length len ("." if dot). */
static size_t retag_length(const dart_domain_locality_t *d, size_t len,
                           bool dot)
{
  size_t max = len;
  for (int i = 0; i < d->num_domains; i++) {
    size_t child_len = (dot ? 0 : len) + 1 + num_digits(i);
    size_t sub = retag_length(d->children[i], child_len, false);
    if (sub > max) max = sub;
  }
  return max;
}

size_t dart__domain_retag_length(const dart_domain_locality_t *d,
                                 const char *tag)
{
  return retag_length(d, strlen(tag), strcmp(tag, ".") == 0);
}

void dart__domain_adopt(dart_domain_locality_t *parent,
                        dart_domain_locality_t *d, int k, const char *tag)
{
  d->parent = parent;
  d->relative_index = k;
  d->level = parent->level + 1;
  d->team = parent->team;
  snprintf(d->domain_tag, TAG_MAX, "%s", tag);
  for (int i = 0; i < d->num_domains; i++) {
    char child_tag[TAG_MAX];
    if (dart__domain_child_tag(d->domain_tag, i, child_tag) != 0)
      child_tag[0] = '\0'; /* excluded by the caller's length check */
    dart__domain_adopt(d, d->children[i], i, child_tag);
  }
}

void dart__domain_reindex(dart_domain_locality_t *d)
{
  for (int i = 0; i < d->num_domains; i++) d->children[i]->relative_index = i;
}

bool dart__domain_contains(const dart_domain_locality_t *root,
                           const dart_domain_locality_t *d)
{
  if (root == d) return true;
  for (int i = 0; i < root->num_domains; i++)
    if (dart__domain_contains(root->children[i], d)) return true;
  return false;
}

dart_domain_locality_t *dart__domain_lookup(const dart_domain_locality_t *root,
                                            const char *tag)
{
  if (strncmp(root->domain_tag, tag, TAG_MAX) == 0)
    return (dart_domain_locality_t *)root;
  for (int i = 0; i < root->num_domains; i++) {
    dart_domain_locality_t *found = dart__domain_lookup(root->children[i], tag);
    if (found != NULL) return found;
  }
  return NULL;
}

int dart__domain_collect(const dart_domain_locality_t *d,
                         dart_locality_scope_t scope, dart__domvec_t *out)
{
  if (d->scope == scope)
    return dart__domvec_push(out, (dart_domain_locality_t *)d);
  for (int i = 0; i < d->num_domains; i++)
    if (dart__domain_collect(d->children[i], scope, out) != 0) return -1;
  return 0;
}

/* ---- public API ------------------------------------------------------- */

dart_ret_t dart_domain_create(dart_domain_locality_t **domain_out)
{
  DART__CHECK_NOTNULL(domain_out);
  *domain_out = dart__domain_new();
  DART__CHECK(*domain_out != NULL, DART_ERR_NOMEM, "out of memory");
  return DART_OK;
}

dart_ret_t dart_domain_clone(const dart_domain_locality_t *domain_in,
                             dart_domain_locality_t **domain_out)
{
  DART__CHECK_NOTNULL(domain_out);
  *domain_out = NULL;
  DART__CHECK_NOTNULL(domain_in);
  dart_domain_locality_t *copy = malloc(sizeof *copy);
  DART__CHECK(copy != NULL, DART_ERR_NOMEM, "out of memory");
  if (dart__domain_copy(copy, domain_in) != 0) {
    free(copy);
    DART_LOG_ERROR("out of memory copying domain '%s'", domain_in->domain_tag);
    return DART_ERR_NOMEM;
  }
  *domain_out = copy;
  return DART_OK;
}

dart_ret_t dart_domain_destroy(dart_domain_locality_t *domain)
{
  dart__domain_free(domain);
  return DART_OK;
}

dart_ret_t dart_domain_assign(dart_domain_locality_t *domain_lhs,
                              const dart_domain_locality_t *domain_rhs)
{
  DART__CHECK_NOTNULL(domain_lhs);
  DART__CHECK_NOTNULL(domain_rhs);
  if (domain_lhs == domain_rhs) return DART_OK;
  /* Copy first: rhs may live inside lhs's subtree. */
  dart_domain_locality_t tmp;
  if (dart__domain_copy(&tmp, domain_rhs) != 0) {
    DART_LOG_ERROR("out of memory copying domain '%s'", domain_rhs->domain_tag);
    return DART_ERR_NOMEM;
  }
  /* The copy takes rhs's parent, unless that parent is freed right now
   * (rhs inside lhs): then lhs keeps its own place. */
  if (domain_lhs->num_domains > 0 &&
      dart__domain_contains(domain_lhs, domain_rhs))
    tmp.parent = domain_lhs->parent;
  dart__domain_clear(domain_lhs);
  *domain_lhs = tmp;
  for (int i = 0; i < domain_lhs->num_domains; i++)
    domain_lhs->children[i]->parent = domain_lhs;
  return DART_OK;
}

dart_ret_t dart_domain_find(const dart_domain_locality_t *domain_in,
                            const char *domain_tag,
                            dart_domain_locality_t **subdomain_out)
{
  DART__CHECK_NOTNULL(subdomain_out);
  *subdomain_out = NULL;
  DART__CHECK_NOTNULL(domain_in);
  DART__CHECK_NOTNULL(domain_tag);
  *subdomain_out = dart__domain_lookup(domain_in, domain_tag);
  if (*subdomain_out == NULL) {
    DART_LOG_DEBUG("no domain '%s' below '%s'", domain_tag,
                   domain_in->domain_tag);
    return DART_ERR_NOTFOUND;
  }
  return DART_OK;
}

/* Domains of `scope` below domain_in for the public scope queries. */
static dart_ret_t scope_query(const char *func,
                              const dart_domain_locality_t *domain_in,
                              dart_locality_scope_t scope, dart__domvec_t *vec)
{
  *vec = (dart__domvec_t){0};
  if (domain_in == NULL) {
    dart__log(DART__LOG_ERROR, func, "argument 'domain_in' is NULL");
    return DART_ERR_INVAL;
  }
  if (dart__domain_collect(domain_in, scope, vec) != 0) {
    free(vec->v);
    *vec = (dart__domvec_t){0};
    dart__log(DART__LOG_ERROR, func, "out of memory");
    return DART_ERR_NOMEM;
  }
  if (vec->n == 0) {
    if (DART__LOG_DEBUG <= dart__log_level)
      dart__log(DART__LOG_DEBUG, func, "no domain of scope %d below '%s'",
                (int)scope, domain_in->domain_tag);
    return DART_ERR_NOTFOUND;
  }
  return DART_OK;
}

dart_ret_t dart_domain_scope_domains(const dart_domain_locality_t *domain_in,
                                     dart_locality_scope_t scope,
                                     int *num_domains_out,
                                     dart_domain_locality_t ***domains_out)
{
  DART__CHECK_NOTNULL(num_domains_out);
  *num_domains_out = 0;
  DART__CHECK_NOTNULL(domains_out);
  *domains_out = NULL;
  dart__domvec_t vec;
  dart_ret_t ret = scope_query(__func__, domain_in, scope, &vec);
  if (ret == DART_OK) {
    *num_domains_out = vec.n;
    *domains_out = vec.v;
  }
  return ret;
}

dart_ret_t dart_domain_scope_tags(const dart_domain_locality_t *domain_in,
                                  dart_locality_scope_t scope,
                                  int *num_domains_out, char ***domain_tags_out)
{
  DART__CHECK_NOTNULL(num_domains_out);
  *num_domains_out = 0;
  DART__CHECK_NOTNULL(domain_tags_out);
  *domain_tags_out = NULL;
  dart__domvec_t vec;
  dart_ret_t ret = scope_query(__func__, domain_in, scope, &vec);
  if (ret != DART_OK) return ret;
  char **tags = calloc((size_t)vec.n, sizeof *tags);
  for (int i = 0; tags != NULL && i < vec.n; i++) {
    tags[i] = strdup(vec.v[i]->domain_tag);
    if (tags[i] == NULL) {
      for (int j = 0; j < i; j++) free(tags[j]);
      free(tags);
      tags = NULL;
    }
  }
  free(vec.v);
  DART__CHECK(tags != NULL, DART_ERR_NOMEM, "out of memory");
  *num_domains_out = vec.n;
  *domain_tags_out = tags;
  return DART_OK;
}

/*
 * Refreshes the unit lists of d and its ancestors. The walk stops at a
 * domain that its parent does not list as child: a clone keeps the parent
 * pointer of its source, which must not be modified through the clone.
 */
static int refresh_chain(dart_domain_locality_t *d)
{
  for (; d != NULL; d = d->parent) {
    if (dart__domain_refresh(d, false) != 0) return -1;
    const dart_domain_locality_t *p = d->parent;
    if (p == NULL || d->relative_index < 0 ||
        d->relative_index >= p->num_domains ||
        p->children[d->relative_index] != d)
      break;
  }
  return 0;
}

/*
 * Checks that `sub` can become a child of `parent` (tag lengths), writes
 * its new tag and makes room for one more child. Nothing observable changes
 * on failure.
 */
static dart_ret_t prepare_insert(const char *func,
                                 dart_domain_locality_t *parent,
                                 const dart_domain_locality_t *sub,
                                 char tag[TAG_MAX])
{
  if (dart__domain_child_tag(parent->domain_tag,
                             dart__domain_next_tag_number(parent), tag) != 0 ||
      dart__domain_retag_length(sub, tag) >= TAG_MAX) {
    dart__log(DART__LOG_ERROR, func,
              "tags below '%s' would exceed %d "
              "characters",
              parent->domain_tag, TAG_MAX - 1);
    return DART_ERR_INVAL;
  }
  dart_domain_locality_t **children = realloc(
      parent->children, (size_t)(parent->num_domains + 1) * sizeof *children);
  if (children == NULL) {
    dart__log(DART__LOG_ERROR, func, "out of memory");
    return DART_ERR_NOMEM;
  }
  parent->children = children;
  return DART_OK;
}

/* Second half of an insertion prepared by prepare_insert. */
static void place_child(dart_domain_locality_t *parent,
                        dart_domain_locality_t *sub, int pos, const char *tag)
{
  dart_domain_locality_t **children = parent->children;
  memmove(children + pos + 1, children + pos,
          (size_t)(parent->num_domains - pos) * sizeof *children);
  children[pos] = sub;
  parent->num_domains++;
  dart__domain_reindex(parent);
  dart__domain_adopt(parent, sub, pos, tag);
}

dart_ret_t dart_domain_add_subdomain(dart_domain_locality_t *domain,
                                     dart_domain_locality_t *subdomain,
                                     int subdomain_rel_id)
{
  DART__CHECK_NOTNULL(domain);
  DART__CHECK_NOTNULL(subdomain);
  DART__CHECK_ARG(subdomain_rel_id <= domain->num_domains,
                  "subdomain_rel_id %d out of range (0..%d)", subdomain_rel_id,
                  domain->num_domains);
  DART__CHECK_ARG(!dart__domain_contains(subdomain, domain),
                  "domain '%s' is inside the subdomain to add",
                  domain->domain_tag);
  char tag[TAG_MAX];
  dart_ret_t ret = prepare_insert(__func__, domain, subdomain, tag);
  if (ret != DART_OK) return ret;
  int pos = subdomain_rel_id < 0 ? domain->num_domains : subdomain_rel_id;
  place_child(domain, subdomain, pos, tag);
  DART__CHECK(refresh_chain(domain) == 0, DART_ERR_NOMEM, "out of memory");
  return DART_OK;
}

dart_ret_t dart_domain_move_subdomain(dart_domain_locality_t *domain,
                                      dart_domain_locality_t *new_parent_domain,
                                      int new_domain_rel_id)
{
  DART__CHECK_NOTNULL(domain);
  DART__CHECK_NOTNULL(new_parent_domain);
  dart_domain_locality_t *old = domain->parent;
  DART__CHECK_ARG(old != NULL && domain->relative_index >= 0 &&
                      domain->relative_index < old->num_domains &&
                      old->children[domain->relative_index] == domain,
                  "domain '%s' is not a child of its parent",
                  domain->domain_tag);
  DART__CHECK_ARG(!dart__domain_contains(domain, new_parent_domain),
                  "new parent '%s' is inside the moved domain '%s'",
                  new_parent_domain->domain_tag, domain->domain_tag);
  int slots = new_parent_domain->num_domains - (old == new_parent_domain);
  DART__CHECK_ARG(new_domain_rel_id <= slots,
                  "new_domain_rel_id %d out of range (0..%d)",
                  new_domain_rel_id, slots);
  char tag[TAG_MAX];
  dart_ret_t ret = prepare_insert(__func__, new_parent_domain, domain, tag);
  if (ret != DART_OK) return ret;

  /* Detach from the old parent (cannot fail), then insert. */
  int idx = domain->relative_index;
  memmove(old->children + idx, old->children + idx + 1,
          (size_t)(old->num_domains - idx - 1) * sizeof *old->children);
  old->num_domains--;
  dart__domain_reindex(old);
  bool emptied = old->num_domains == 0 && old != new_parent_domain;
  if (emptied) {
    free(old->children);
    old->children = NULL;
  }
  int pos = new_domain_rel_id < 0 ? new_parent_domain->num_domains
                                  : new_domain_rel_id;
  place_child(new_parent_domain, domain, pos, tag);
  /* Refresh both chains; the second pass fixes common ancestors. */
  DART__CHECK(dart__domain_refresh(old, emptied) == 0 &&
                  refresh_chain(new_parent_domain) == 0 &&
                  refresh_chain(old) == 0,
              DART_ERR_NOMEM, "out of memory");
  return DART_OK;
}
