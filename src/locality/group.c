/*
 * dart_domain_group: combines domains of a tree into a new domain of scope
 * DART_LOCALITY_SCOPE_GROUP. MPI-free.
 *
 * P is the lowest common ancestor of the listed domains. If they are all
 * children of P they are moved under the new group G (appended to P);
 * otherwise G (an alias of P) receives copies of P's children reduced to
 * the listed domains, which are removed from their former place. G and
 * everything moved or copied below it are tagged below G's tag, which is
 * unique among P's children. All allocations happen before the tree is
 * modified, so a failure leaves the tree unchanged.
 */
#include <stdlib.h>
#include <string.h>

#include "locality_internal.h"

#define TAG_MAX DART_LOCALITY_DOMAIN_TAG_MAX_SIZE
#define PATH_MAX_DEPTH 64

/* Is d strictly below a, looking no further up than top? */
static bool strictly_below(const dart_domain_locality_t *d,
                           const dart_domain_locality_t *a,
                           const dart_domain_locality_t *top)
{
  if (d == top) return false;
  for (const dart_domain_locality_t *p = d->parent; p != NULL; p = p->parent) {
    if (p == a) return true;
    if (p == top) break;
  }
  return false;
}

/* Drops listed domains that lie inside another listed domain. */
static void drop_nested(dart__domvec_t *set, const dart_domain_locality_t *top)
{
  int k = 0;
  for (int i = 0; i < set->n; i++) {
    bool nested = false;
    for (const dart_domain_locality_t *p = set->v[i];
         p != top && p->parent != NULL && !nested; p = p->parent)
      nested = dart__domvec_has(set, p->parent);
    if (!nested) set->v[k++] = set->v[i];
  }
  set->n = k; /* still sorted */
}

/* Lowest domain strictly above every listed domain (within top). */
static dart_domain_locality_t *common_ancestor(const dart__domvec_t *set,
                                               dart_domain_locality_t *top)
{
  for (dart_domain_locality_t *a = set->v[0]->parent; a != NULL;
       a = a->parent) {
    bool all = true;
    for (int i = 0; i < set->n && all; i++)
      all = strictly_below(set->v[i], a, top);
    if (all || a == top) return all ? a : NULL;
  }
  return NULL;
}

/* New empty group domain for parent P. */
static dart_domain_locality_t *new_group(const dart_domain_locality_t *p,
                                         int capacity)
{
  dart_domain_locality_t *g = dart__domain_new();
  if (g == NULL) return NULL;
  g->scope = DART_LOCALITY_SCOPE_GROUP;
  g->team = p->team;
  memcpy(g->host, p->host, sizeof g->host);
  g->num_units = 0;
  g->children =
      calloc((size_t)(capacity > 0 ? capacity : 1), sizeof *g->children);
  if (g->children == NULL) {
    free(g);
    return NULL;
  }
  return g;
}

/* Do the children of g fit below tag when retagged by position? */
static bool group_tags_fit(const dart_domain_locality_t *g, const char *tag)
{
  return strlen(tag) < (size_t)TAG_MAX &&
         dart__domain_retag_length(g, tag) < (size_t)TAG_MAX;
}

/* Case (a): every listed domain is a child of p; move them into g. */
static dart_ret_t group_children(dart_domain_locality_t *p,
                                 const dart__domvec_t *set, const char *tag,
                                 dart_domain_locality_t **g_out)
{
  dart_domain_locality_t *g = new_group(p, set->n);
  if (g == NULL) return DART_ERR_NOMEM;
  for (int i = 0; i < p->num_domains; i++)
    if (dart__domvec_has(set, p->children[i]))
      g->children[g->num_domains++] = p->children[i];
  if (!group_tags_fit(g, tag)) {
    g->num_domains = 0; /* the children are not g's yet */
    dart__domain_free(g);
    return DART_ERR_INVAL;
  }
  int kept = 0;
  for (int i = 0; i < p->num_domains; i++)
    if (!dart__domvec_has(set, p->children[i]))
      p->children[kept++] = p->children[i];
  p->children[kept] = g; /* at most as many children as before */
  p->num_domains = kept + 1;
  dart__domain_reindex(p);
  dart__domain_adopt(p, g, kept, tag);
  *g_out = g;
  return DART_OK;
}

/* The copy of `orig` (below src) in the copy `dst` of src, or NULL. */
static dart_domain_locality_t *map_into_copy(const dart_domain_locality_t *src,
                                             const dart_domain_locality_t *orig,
                                             dart_domain_locality_t *dst)
{
  int path[PATH_MAX_DEPTH], depth = 0;
  for (const dart_domain_locality_t *d = orig; d != src; d = d->parent) {
    if (depth == PATH_MAX_DEPTH || d->parent == NULL) return NULL;
    path[depth++] = d->relative_index;
  }
  while (depth > 0) {
    int idx = path[--depth];
    if (idx < 0 || idx >= dst->num_domains) return NULL;
    dst = dst->children[idx];
  }
  return dst;
}

/* Copy of child c of P reduced to the listed domains inside it. */
static dart_ret_t reduced_copy(dart_domain_locality_t *c,
                               const dart__domvec_t *set,
                               dart_domain_locality_t *top,
                               dart_domain_locality_t **out)
{
  *out = NULL;
  dart__domvec_t keep = {0};
  for (int i = 0; i < set->n; i++)
    if ((set->v[i] == c || strictly_below(set->v[i], c, top)) &&
        dart__domvec_push(&keep, set->v[i]) != 0)
      goto nomem;
  if (keep.n == 0) return DART_OK;
  dart_domain_locality_t *copy = malloc(sizeof *copy);
  if (copy == NULL || dart__domain_copy(copy, c) != 0) {
    free(copy);
    goto nomem;
  }
  for (int i = 0; i < keep.n; i++) {
    keep.v[i] = map_into_copy(c, keep.v[i], copy);
    if (keep.v[i] == NULL) {
      dart__domain_free(copy);
      free(keep.v);
      return DART_ERR_OTHER;
    }
  }
  dart__domvec_sort(&keep);
  int rc = dart__domain_select_set(copy, &keep);
  free(keep.v);
  if (rc != 0) {
    dart__domain_free(copy);
    return DART_ERR_NOMEM;
  }
  *out = copy;
  return DART_OK;
nomem:
  free(keep.v);
  return DART_ERR_NOMEM;
}

/* Case (b): g gets reduced copies; the listed domains leave their place. */
static dart_ret_t group_copies(dart_domain_locality_t *p,
                               const dart__domvec_t *set,
                               dart_domain_locality_t *top, const char *tag,
                               dart_domain_locality_t **g_out)
{
  dart_domain_locality_t *g = new_group(p, p->num_domains);
  dart_domain_locality_t **kids =
      malloc((size_t)(p->num_domains + 1) * sizeof *kids);
  if (g != NULL) g->aliases = malloc(sizeof *g->aliases);
  dart_ret_t ret = DART_ERR_NOMEM;
  if (g == NULL || kids == NULL || g->aliases == NULL) goto fail;
  g->aliases[0] = p;
  g->num_aliases = 1;
  for (int i = 0; i < p->num_domains; i++) {
    dart_domain_locality_t *copy;
    ret = reduced_copy(p->children[i], set, top, &copy);
    if (ret != DART_OK) goto fail;
    if (copy != NULL) g->children[g->num_domains++] = copy;
  }
  ret = DART_ERR_INVAL;
  if (!group_tags_fit(g, tag)) goto fail;
  ret = DART_ERR_NOMEM;
  if (dart__domain_exclude_set(p, set) != 0) goto fail_modified;
  /* p may have lost children (or all of them); kids has room for all. */
  if (p->num_domains > 0)
    memcpy(kids, p->children, (size_t)p->num_domains * sizeof *kids);
  free(p->children);
  p->children = kids;
  p->children[p->num_domains++] = g;
  dart__domain_reindex(p);
  dart__domain_adopt(p, g, p->num_domains - 1, tag);
  *g_out = g;
  return DART_OK;
fail_modified:
  DART_LOG_ERROR("out of memory after removing the grouped domains");
fail:
  free(kids);
  dart__domain_free(g);
  return ret;
}

dart_ret_t dart_domain_group(dart_domain_locality_t *domain_in,
                             int num_group_subdomains,
                             const char **group_subdomain_tags,
                             char *group_domain_tag_out)
{
  DART__CHECK_NOTNULL(domain_in);
  DART__CHECK_NOTNULL(group_domain_tag_out);
  group_domain_tag_out[0] = '\0';
  DART__CHECK_ARG(num_group_subdomains >= 1, "num_group_subdomains %d < 1",
                  num_group_subdomains);
  dart__domvec_t set;
  dart_ret_t ret =
      dart__domain_resolve(__func__, domain_in, num_group_subdomains,
                           group_subdomain_tags, false, &set);
  if (ret != DART_OK) return ret;
  if (dart__domvec_has(&set, domain_in)) {
    free(set.v);
    DART_LOG_ERROR("cannot group the domain '%s' itself",
                   domain_in->domain_tag);
    return DART_ERR_INVAL;
  }
  drop_nested(&set, domain_in);
  dart_domain_locality_t *p = common_ancestor(&set, domain_in);
  char tag[TAG_MAX];
  if (p == NULL ||
      dart__domain_child_tag(p->domain_tag, dart__domain_next_tag_number(p),
                             tag) != 0) {
    free(set.v);
    DART_LOG_ERROR("cannot place a group below '%s' (inconsistent tree or "
                   "tag longer than %d characters)",
                   p ? p->domain_tag : domain_in->domain_tag, TAG_MAX - 1);
    return DART_ERR_INVAL;
  }
  bool siblings = true;
  for (int i = 0; i < set.n; i++) siblings = siblings && set.v[i]->parent == p;
  dart_domain_locality_t *g = NULL;
  ret = siblings ? group_children(p, &set, tag, &g)
                 : group_copies(p, &set, domain_in, tag, &g);
  free(set.v);
  if (ret != DART_OK) {
    DART_LOG_ERROR("grouping %d domains below '%s' failed: %s",
                   num_group_subdomains, p->domain_tag, dart__strerror(ret));
    return ret;
  }
  DART__CHECK(dart__domain_refresh(g, false) == 0 &&
                  dart__domain_refresh_up(p, domain_in) == 0,
              DART_ERR_NOMEM, "out of memory refreshing '%s'", p->domain_tag);
  memcpy(group_domain_tag_out, g->domain_tag, TAG_MAX);
  return DART_OK;
}
