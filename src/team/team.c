/*
 * The teams layer: the O(1) team table, the lookup every layer uses to
 * address a unit of a team, and the public queries that only read a team
 * record (unit ids, sizes, unit translation). Teams are created and
 * destroyed by the runtime (src/runtime/team.c), which runs every module's
 * team hooks; nothing here calls above base.
 */
#include "team/dart_team.h"

dart__team_t *dart__team_table[DART__TEAM_ID_MAX + 1];

dart__team_t *dart__team_lookup(const char *func, dart_team_t id)
{
  if (__builtin_expect(!dart__g.initialized, 0)) {
    dart__log(DART__LOG_ERROR, func, "DART is not initialized");
    return NULL;
  }
  dart__team_t *t = dart__team_get(id);
  if (__builtin_expect(t == NULL, 0)) {
    dart__log(DART__LOG_ERROR, func, "invalid team id %d%s", (int)id,
              id == DART_TEAM_NULL ? " (DART_TEAM_NULL)" : "");
  }
  return t;
}

dart_ret_t dart_team_myid(dart_team_t teamid, dart_team_unit_t *myid)
{
  DART__CHECK_NOTNULL(myid);
  myid->id = DART_UNDEFINED_UNIT_ID;
  DART__TEAM_OR_RETURN(t, teamid);
  myid->id = t->myid;
  return DART_OK;
}

dart_ret_t dart_team_size(dart_team_t teamid, size_t *size)
{
  DART__CHECK_NOTNULL(size);
  DART__TEAM_OR_RETURN(t, teamid);
  *size = (size_t)t->size;
  return DART_OK;
}

dart_ret_t dart_myid(dart_global_unit_t *myid)
{
  DART__CHECK_NOTNULL(myid);
  myid->id = DART_UNDEFINED_UNIT_ID;
  DART__CHECK(dart__g.initialized, DART_ERR_OTHER, "DART is not initialized");
  myid->id = dart__g.myid;
  return DART_OK;
}

dart_ret_t dart_size(size_t *size)
{
  DART__CHECK_NOTNULL(size);
  *size = 0;
  DART__CHECK(dart__g.initialized, DART_ERR_OTHER, "DART is not initialized");
  *size = (size_t)dart__g.size;
  return DART_OK;
}

dart_ret_t dart_team_unit_l2g(dart_team_t team, dart_team_unit_t localid,
                              dart_global_unit_t *globalid)
{
  DART__CHECK_NOTNULL(globalid);
  globalid->id = DART_UNDEFINED_UNIT_ID;
  DART__TEAM_OR_RETURN(t, team);
  DART__CHECK_ARG(localid.id >= 0 && localid.id < t->size,
                  "unit %d out of range for team %d of size %d", localid.id,
                  (int)team, t->size);
  globalid->id = t->l2g[localid.id];
  return DART_OK;
}

dart_ret_t dart_team_unit_g2l(dart_team_t team, dart_global_unit_t globalid,
                              dart_team_unit_t *localid)
{
  DART__CHECK_NOTNULL(localid);
  localid->id = DART_UNDEFINED_UNIT_ID;
  DART__TEAM_OR_RETURN(t, team);
  if (globalid.id >= 0 && globalid.id < dart__g.size) {
    int u = dart__team_g2l(t, globalid.id);
    if (u >= 0) localid->id = u;
  }
  return DART_OK;
}
