/*
 * dart_group_locality_split: splits a group along the domains of a scope
 * (team_group.md). Local and MPI-free.
 */
#include <stdlib.h>

#include "dart_group_set.h"
#include "locality_internal.h"

/* New group: the members of g that lie in doms[first..last). */
static dart__group_t *members_in(const dart__group_t *g,
                                 dart_domain_locality_t *const *doms,
                                 size_t first, size_t last)
{
  dart__group_t *part = dart__group_new(0);
  for (size_t d = first; part != NULL && d < last; d++) {
    for (int i = 0; i < doms[d]->num_units; i++) {
      int32_t id = doms[d]->unit_ids[i].id;
      if (dart__group_contains(g, id) && dart__group_insert(part, id) != 0) {
        dart__group_free(part);
        return NULL;
      }
    }
  }
  return part;
}

dart_ret_t dart_group_locality_split(const dart_group_t g,
                                     dart_domain_locality_t *domain,
                                     dart_locality_scope_t scope, size_t n,
                                     size_t *nout, dart_group_t *gout)
{
  DART__CHECK_NOTNULL(g);
  DART__CHECK_NOTNULL(domain);
  DART__CHECK_NOTNULL(nout);
  DART__CHECK_NOTNULL(gout);
  DART__CHECK_ARG(n >= 1, "n is 0");
  dart__domvec_t doms = {0};
  if (dart__domain_collect(domain, scope, &doms) != 0) {
    free(doms.v);
    DART_LOG_ERROR("out of memory");
    return DART_ERR_NOMEM;
  }
  size_t total = (size_t)doms.n;
  DART__CHECK(total > 0, DART_ERR_NOTFOUND, "no domain of scope %d below '%s'",
              (int)scope, domain->domain_tag);
  if (n > total) n = total;
  size_t per = (total + n - 1) / n;
  dart__group_t **parts = calloc(n, sizeof *parts);
  bool ok = parts != NULL;
  for (size_t i = 0; ok && i < n; i++) {
    size_t first = i * per < total ? i * per : total;
    size_t last = first + per < total ? first + per : total;
    parts[i] = members_in(g, doms.v, first, last);
    ok = parts[i] != NULL;
  }
  free(doms.v);
  if (!ok) {
    for (size_t i = 0; parts != NULL && i < n; i++) dart__group_free(parts[i]);
    free(parts);
    DART_LOG_ERROR("out of memory");
    return DART_ERR_NOMEM;
  }
  for (size_t i = 0; i < n; i++) gout[i] = parts[i];
  free(parts);
  *nout = n;
  return DART_OK;
}
