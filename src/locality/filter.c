/*
 * In-place filters on domain trees: dart_domain_select, dart_domain_exclude
 * and dart_domain_split_scope. MPI-free.
 *
 * Both filters work on domain identities, not on tag prefixes: the listed
 * tags are first resolved to domain pointers (a sorted set), then one
 * recursive pass decides for every domain whether it stays. Duplicate or
 * nested entries in the list are therefore harmless.
 */
#include <stdlib.h>
#include <string.h>

#include "locality_internal.h"

dart_ret_t dart__domain_resolve(const char *func, dart_domain_locality_t *root,
                                int n, const char **tags, bool skip_unknown,
                                dart__domvec_t *out)
{
  *out = (dart__domvec_t){0};
  if (n < 0 || (n > 0 && tags == NULL)) {
    dart__log(DART__LOG_ERROR, func, "invalid tag list (%d tags at %p)", n,
              (const void *)tags);
    return DART_ERR_INVAL;
  }
  for (int i = 0; i < n; i++) {
    if (tags[i] == NULL) {
      dart__log(DART__LOG_ERROR, func, "tag %d is NULL", i);
      free(out->v);
      *out = (dart__domvec_t){0};
      return DART_ERR_INVAL;
    }
    dart_domain_locality_t *d = dart__domain_lookup(root, tags[i]);
    if (d == NULL && skip_unknown) {
      if (DART__LOG_DEBUG <= dart__log_level)
        dart__log(DART__LOG_DEBUG, func, "skipping unknown domain '%s'",
                  tags[i]);
      continue;
    }
    if (d == NULL || dart__domvec_push(out, d) != 0) {
      if (d == NULL)
        dart__log(DART__LOG_ERROR, func, "no domain '%s' below '%s'", tags[i],
                  root->domain_tag);
      else
        dart__log(DART__LOG_ERROR, func, "out of memory");
      free(out->v);
      *out = (dart__domvec_t){0};
      return d == NULL ? DART_ERR_NOTFOUND : DART_ERR_NOMEM;
    }
  }
  dart__domvec_sort(out);
  return DART_OK;
}

/* Outcome of filtering below one domain. */
enum { F_NOMEM = -1, F_SAME = 0, F_CHANGED = 1, F_EMPTIED = 2 };

/*
 * Filters the subtree below d. select: a listed domain keeps its subtree,
 * any other domain survives only if something below it survives. exclude:
 * a listed domain is removed with its subtree, and so is a domain that
 * loses all of its children. Removed domains are freed, the survivors are
 * re-indexed (tags unchanged) and changed domains refreshed bottom-up.
 */
static int filter_children(dart_domain_locality_t *d, const dart__domvec_t *set,
                           bool select)
{
  if (d->num_domains == 0) return F_SAME;
  int kept = 0;
  bool changed = false, nomem = false;
  for (int i = 0; i < d->num_domains; i++) {
    dart_domain_locality_t *c = d->children[i];
    bool listed = dart__domvec_has(set, c);
    int sub = listed ? (select ? F_SAME : F_EMPTIED)
                     : filter_children(c, set, select);
    if (sub == F_NOMEM) nomem = true;
    if (sub != F_SAME) changed = true;
    bool keep = select ? listed || (sub != F_EMPTIED && c->num_domains > 0)
                       : sub != F_EMPTIED;
    if (keep) {
      d->children[kept++] = c;
    } else {
      dart__domain_free(c);
      changed = true;
    }
  }
  d->num_domains = kept;
  dart__domain_reindex(d);
  if (kept == 0) {
    dart__domain_refresh(d, true);
    return F_EMPTIED;
  }
  if (changed && dart__domain_refresh(d, false) != 0) nomem = true;
  return nomem ? F_NOMEM : changed ? F_CHANGED : F_SAME;
}

int dart__domain_select_set(dart_domain_locality_t *d,
                            const dart__domvec_t *keep)
{
  if (dart__domvec_has(keep, d)) return 0;
  return filter_children(d, keep, true) == F_NOMEM ? -1 : 0;
}

int dart__domain_exclude_set(dart_domain_locality_t *d,
                             const dart__domvec_t *drop)
{
  return filter_children(d, drop, false) == F_NOMEM ? -1 : 0;
}

/* Shared body of dart_domain_select (select) and dart_domain_exclude. */
static dart_ret_t filter_api(const char *func,
                             dart_domain_locality_t *domain_in, int n,
                             const char **tags, bool select)
{
  if (domain_in == NULL) {
    dart__log(DART__LOG_ERROR, func, "argument 'domain_in' is NULL");
    return DART_ERR_INVAL;
  }
  dart__domvec_t set;
  /* Exclude skips unknown tags: removing what is not there succeeds. */
  dart_ret_t ret =
      dart__domain_resolve(func, domain_in, n, tags, !select, &set);
  if (ret != DART_OK) return ret;
  if (!select && dart__domvec_has(&set, domain_in)) {
    free(set.v);
    dart__log(DART__LOG_ERROR, func, "cannot exclude the domain '%s' itself",
              domain_in->domain_tag);
    return DART_ERR_INVAL;
  }
  int rc = select ? dart__domain_select_set(domain_in, &set)
                  : dart__domain_exclude_set(domain_in, &set);
  free(set.v);
  if (rc != 0) {
    dart__log(DART__LOG_ERROR, func, "out of memory refreshing '%s'",
              domain_in->domain_tag);
    return DART_ERR_NOMEM;
  }
  return DART_OK;
}

dart_ret_t dart_domain_select(dart_domain_locality_t *domain_in,
                              int num_subdomain_tags,
                              const char **subdomain_tags)
{
  return filter_api(__func__, domain_in, num_subdomain_tags, subdomain_tags,
                    true);
}

dart_ret_t dart_domain_exclude(dart_domain_locality_t *domain_in,
                               int num_subdomain_tags,
                               const char **subdomain_tags)
{
  return filter_api(__func__, domain_in, num_subdomain_tags, subdomain_tags,
                    false);
}

/*
 * Fills *part with a copy of domain_in reduced to the scope domains with
 * positions [first, last) (positions in the copy's own pre-order list).
 */
static dart_ret_t split_part(const dart_domain_locality_t *domain_in,
                             dart_locality_scope_t scope, int first, int last,
                             dart_domain_locality_t *part)
{
  if (dart__domain_copy(part, domain_in) != 0) return DART_ERR_NOMEM;
  dart__domvec_t all = {0};
  if (dart__domain_collect(part, scope, &all) != 0) goto nomem;
  dart__domvec_t keep = {all.v + first, last - first, last - first};
  dart__domvec_sort(&keep);
  int rc = dart__domain_select_set(part, &keep);
  free(all.v);
  if (rc != 0) goto nomem;
  return DART_OK;
nomem:
  free(all.v);
  dart__domain_clear(part);
  return DART_ERR_NOMEM;
}

dart_ret_t dart_domain_split_scope(const dart_domain_locality_t *domain_in,
                                   dart_locality_scope_t scope, int num_parts,
                                   dart_domain_locality_t *split_domain_out)
{
  DART__CHECK_NOTNULL(domain_in);
  DART__CHECK_NOTNULL(split_domain_out);
  DART__CHECK_ARG(num_parts >= 1, "num_parts %d < 1", num_parts);
  dart__domvec_t all = {0};
  if (dart__domain_collect(domain_in, scope, &all) != 0) {
    free(all.v);
    DART_LOG_ERROR("out of memory");
    return DART_ERR_NOMEM;
  }
  int total = all.n;
  free(all.v);
  DART__CHECK(total > 0, DART_ERR_NOTFOUND, "no domain of scope %d below '%s'",
              (int)scope, domain_in->domain_tag);
  int chunk = (total + num_parts - 1) / num_parts;
  for (int p = 0; p < num_parts; p++) {
    int first = p * chunk < total ? p * chunk : total;
    int last = first + chunk < total ? first + chunk : total;
    if (split_part(domain_in, scope, first, last, &split_domain_out[p]) !=
        DART_OK) {
      for (int q = 0; q < p; q++) dart__domain_clear(&split_domain_out[q]);
      DART_LOG_ERROR("out of memory splitting '%s' into %d parts",
                     domain_in->domain_tag, num_parts);
      return DART_ERR_NOMEM;
    }
  }
  return DART_OK;
}
