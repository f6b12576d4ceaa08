/*
 * Locality of teams: the MPI side. Detects the caller's hardware once per
 * dart_init, exchanges it within a team (MPI_Allgather of fixed-size
 * records) and builds the team's unit records and domain tree (tree.c).
 *
 * Node identity: the tree groups units into nodes by host name. DART's own
 * node view (dart__g.node_of_unit, which honours DART_SIM_NODE_SIZE) is
 * made to agree with it: with simulated nodes, or whenever host names and
 * the node view disagree (e.g. containers sharing a host name), every host
 * name becomes "<host>#<k>" with k the zero-padded DART node index.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_team.h"
#include "locality_internal.h"

#define HOST_MAX DART_LOCALITY_HOST_MAX_SIZE

/* Hardware of this process (host name already in its final form). */
static dart_hwinfo_t dart__locality_self;

static int host_ptr_cmp(const void *a, const void *b)
{
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * True unless "same host name" <=> "same DART node" holds for all units.
 * O(n log n); a failed allocation answers true (renaming is always safe).
 */
static bool hosts_disagree(const dart_hwinfo_t *all, const int *node_of, int n,
                           int num_nodes)
{
  int *rep = malloc((size_t)num_nodes * sizeof *rep);
  const char **names = malloc((size_t)num_nodes * sizeof *names);
  bool disagree = rep == NULL || names == NULL;
  for (int k = 0; !disagree && k < num_nodes; k++) rep[k] = -1;
  for (int u = 0; !disagree && u < n; u++) {
    int k = node_of[u];
    if (k < 0 || k >= num_nodes)
      disagree = true;
    else if (rep[k] < 0)
      rep[k] = u;
    else
      disagree = strcmp(all[u].host, all[rep[k]].host) != 0;
  }
  for (int k = 0; !disagree && k < num_nodes; k++) {
    disagree = rep[k] < 0;
    if (!disagree) names[k] = all[rep[k]].host;
  }
  if (!disagree) {
    qsort(names, (size_t)num_nodes, sizeof *names, host_ptr_cmp);
    for (int k = 1; k < num_nodes && !disagree; k++)
      disagree = strcmp(names[k - 1], names[k]) == 0;
  }
  free(rep);
  free(names);
  return disagree;
}

/* Renames every host to "<host>#<node>" (node zero-padded to sort right). */
static void name_nodes(dart_hwinfo_t *all, const int *node_of, int n,
                       int num_nodes)
{
  int width = 1;
  for (int k = num_nodes - 1; k >= 10; k /= 10) width++;
  for (int u = 0; u < n; u++) {
    char host[HOST_MAX];
    snprintf(host, sizeof host, "%.*s#%0*d", HOST_MAX - 2 - width - 10,
             all[u].host, width, node_of[u]);
    memcpy(all[u].host, host, sizeof host);
  }
}

/* Collective over the team: exchange hardware info and build the tree. */
static dart_ret_t build_team_locality(dart__team_t *team, bool is_all)
{
  dart_ret_t ret = DART_OK;
  dart_hwinfo_t *all = malloc((size_t)team->size * sizeof *all);
  DART__CHECK(all != NULL, DART_ERR_NOMEM, "out of memory (team %d)",
              (int)team->id);
  DART__MPI_GOTO(dart__mpi_allgather(&dart__locality_self,
                                     (int)sizeof(dart_hwinfo_t), MPI_BYTE, all,
                                     team->comm),
                 ret, out);
  if (is_all && (dart__env.sim_node_size > 0 ||
                 hosts_disagree(all, dart__g.node_of_unit, team->size,
                                dart__g.num_nodes))) {
    name_nodes(all, dart__g.node_of_unit, team->size, dart__g.num_nodes);
    memcpy(dart__locality_self.host, all[team->myid].host, HOST_MAX);
  }
  ret = dart__locality_build(team->id, team->size, team->l2g, all,
                             &team->locality);
  if (ret != DART_OK)
    DART_LOG_ERROR("building the locality of team %d failed: %s", (int)team->id,
                   dart__strerror(ret));
out:
  free(all);
  return ret;
}

dart_ret_t dart__locality_init(void)
{
  dart__hwinfo_detect(&dart__locality_self, dart__env.use_hwloc != 0);
  long mbps = dart__env.max_shmem_mbps;
  dart__locality_self.max_shmem_mbps =
      (mbps > 0 && mbps <= INT32_MAX) ? (int)mbps : 1235;
  dart__team_t *all = dart__team_get(DART_TEAM_ALL);
  DART__CHECK(all != NULL, DART_ERR_OTHER, "team DART_TEAM_ALL missing");
  return build_team_locality(all, true);
}

void dart__locality_fini(void)
{
  for (int id = 0; id <= DART__TEAM_ID_MAX; id++) {
    dart__team_t *t = dart__team_table[id];
    if (t != NULL) dart__locality_team_fini(t);
  }
}

void dart__locality_team_fini(dart__team_t *team)
{
  dart__locality_free(team->locality);
  team->locality = NULL;
}

/* The team's locality data, or NULL after logging why there is none. */
static dart__locality_t *team_locality(const char *func, dart_team_t teamid)
{
  dart__team_t *team = dart__team_lookup(func, teamid);
  if (team == NULL) return NULL;
  if (team->locality == NULL)
    dart__log(DART__LOG_ERROR, func,
              "team %d has no locality data (call "
              "dart_team_locality_init)",
              (int)teamid);
  return team->locality;
}

dart_ret_t dart_team_locality_init(dart_team_t teamid)
{
  DART__TEAM_OR_RETURN(team, teamid);
  DART__CHECK_ARG(team->locality == NULL,
                  "locality of team %d is already initialized", (int)teamid);
  return build_team_locality(team, false);
}

dart_ret_t dart_team_locality_finalize(dart_team_t teamid)
{
  DART__TEAM_OR_RETURN(team, teamid);
  DART__CHECK_ARG(team->locality != NULL,
                  "team %d has no locality data to finalize", (int)teamid);
  dart__locality_team_fini(team);
  return DART_OK;
}

dart_ret_t dart_domain_team_locality(dart_team_t teamid, const char *domain_tag,
                                     dart_domain_locality_t **team_domain_out)
{
  DART__CHECK_NOTNULL(team_domain_out);
  *team_domain_out = NULL;
  DART__CHECK_NOTNULL(domain_tag);
  dart__locality_t *loc = team_locality(__func__, teamid);
  if (loc == NULL) return DART_ERR_INVAL;
  *team_domain_out = dart__domain_lookup(loc->root, domain_tag);
  if (*team_domain_out == NULL) {
    DART_LOG_DEBUG("team %d has no domain '%s'", (int)teamid, domain_tag);
    return DART_ERR_NOTFOUND;
  }
  return DART_OK;
}

dart_ret_t dart_unit_locality(dart_team_t teamid, dart_team_unit_t unit,
                              dart_unit_locality_t **loc_out)
{
  DART__CHECK_NOTNULL(loc_out);
  *loc_out = NULL;
  dart__locality_t *loc = team_locality(__func__, teamid);
  if (loc == NULL) return DART_ERR_INVAL;
  DART__CHECK_ARG(unit.id >= 0 && unit.id < loc->num_units,
                  "unit %d out of range for team %d (size %d)", (int)unit.id,
                  (int)teamid, loc->num_units);
  *loc_out = &loc->units[unit.id];
  return DART_OK;
}
