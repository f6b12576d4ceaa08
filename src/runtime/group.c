/* Public group API: local operations on sets of global unit ids. */
#include <limits.h>

#include <dash/dart/if/dart_team_group.h>

#include "dart_group_set.h"
#include "dart_mpi.h"

#define DART__GROUP_CHECK(g)                                                   \
  DART__CHECK_ARG((g) != NULL, "group '%s' is NULL", #g)

dart_ret_t dart_group_create(dart_group_t *group)
{
  DART__CHECK_NOTNULL(group);
  *group = dart__group_new(0);
  DART__CHECK(*group != NULL, DART_ERR_NOMEM, "out of memory");
  return DART_OK;
}

dart_ret_t dart_group_destroy(dart_group_t *group)
{
  DART__CHECK_NOTNULL(group);
  dart__group_free(*group);
  *group = DART_GROUP_NULL;
  return DART_OK;
}

dart_ret_t dart_group_clone(const dart_group_t gin, dart_group_t *gout)
{
  DART__CHECK_NOTNULL(gout);
  *gout = DART_GROUP_NULL;
  DART__GROUP_CHECK(gin);
  *gout = dart__group_copy(gin);
  DART__CHECK(*gout != NULL, DART_ERR_NOMEM, "out of memory");
  return DART_OK;
}

typedef dart__group_t *(*dart__group_binop_t)(const dart__group_t *,
                                              const dart__group_t *);

/* Shared body of union and intersection; logs under the public name. */
static dart_ret_t dart__group_combine(const char *func, const dart_group_t g1,
                                      const dart_group_t g2, dart_group_t *gout,
                                      dart__group_binop_t op)
{
  if (gout == NULL) {
    dart__log(DART__LOG_ERROR, func, "argument 'gout' is NULL");
    return DART_ERR_INVAL;
  }
  *gout = DART_GROUP_NULL;
  if (g1 == NULL || g2 == NULL) {
    dart__log(DART__LOG_ERROR, func, "group '%s' is NULL",
              g1 == NULL ? "g1" : "g2");
    return DART_ERR_INVAL;
  }
  *gout = op(g1, g2);
  if (*gout == NULL) {
    dart__log(DART__LOG_ERROR, func, "out of memory");
    return DART_ERR_NOMEM;
  }
  return DART_OK;
}

dart_ret_t dart_group_union(const dart_group_t g1, const dart_group_t g2,
                            dart_group_t *gout)
{
  return dart__group_combine(__func__, g1, g2, gout, dart__group_union);
}

dart_ret_t dart_group_intersect(const dart_group_t g1, const dart_group_t g2,
                                dart_group_t *gout)
{
  return dart__group_combine(__func__, g1, g2, gout, dart__group_intersect);
}

dart_ret_t dart_group_addmember(dart_group_t g, dart_global_unit_t unitid)
{
  DART__GROUP_CHECK(g);
  DART__CHECK_ARG(unitid.id >= 0, "invalid unit id %d", unitid.id);
  DART__CHECK_ARG(!dart__g.initialized || unitid.id < dart__g.size,
                  "unit id %d out of range [0,%d)", unitid.id, dart__g.size);
  DART__CHECK(dart__group_insert(g, unitid.id) == 0, DART_ERR_NOMEM,
              "out of memory");
  return DART_OK;
}

dart_ret_t dart_group_delmember(dart_group_t g, dart_global_unit_t unitid)
{
  DART__GROUP_CHECK(g);
  dart__group_remove(g, unitid.id);
  return DART_OK;
}

dart_ret_t dart_group_ismember(const dart_group_t g, dart_global_unit_t unitid,
                               int32_t *ismember)
{
  DART__CHECK_NOTNULL(ismember);
  *ismember = 0;
  DART__GROUP_CHECK(g);
  *ismember = dart__group_contains(g, unitid.id) ? 1 : 0;
  return DART_OK;
}

dart_ret_t dart_group_size(const dart_group_t g, size_t *size)
{
  DART__CHECK_NOTNULL(size);
  DART__GROUP_CHECK(g);
  *size = g->n;
  return DART_OK;
}

dart_ret_t dart_group_getmembers(const dart_group_t g,
                                 dart_global_unit_t *unitids)
{
  DART__GROUP_CHECK(g);
  DART__CHECK_ARG(unitids != NULL || g->n == 0, "argument 'unitids' is NULL");
  for (size_t i = 0; i < g->n; i++) unitids[i].id = g->ids[i];
  return DART_OK;
}

dart_ret_t dart_group_split(const dart_group_t g, size_t n, size_t *nout,
                            dart_group_t *gout)
{
  DART__GROUP_CHECK(g);
  DART__CHECK_NOTNULL(nout);
  DART__CHECK_NOTNULL(gout);
  DART__CHECK_ARG(n >= 1 && n <= INT_MAX, "invalid number of groups %zu", n);
  long nonempty = dart__group_split(g, n, gout);
  DART__CHECK(nonempty >= 0, DART_ERR_NOMEM, "out of memory");
  *nout = (size_t)nonempty;
  return DART_OK;
}
