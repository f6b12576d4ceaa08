/*
 * Locality of teams: the MPI side. Detects the caller's hardware once per
 * dart_init and publishes it in a window of one record per unit. Nothing
 * of other units is gathered at init: a team's unit records and domain
 * tree (tree.c) are built when a program first asks for them
 * (dart_domain_team_locality, dart_unit_locality), from the records read
 * with one-sided gets under the window's lock_all epoch. That read is not
 * collective, so units may ask in any order, or never.
 *
 * Node identity: the tree groups units into nodes by host name. DART's own
 * node view (dart__g.my_node, which honours DART_SIM_NODE_SIZE) is
 * made to agree with it: with simulated nodes, or whenever host names and
 * the node view disagree (e.g. containers sharing a host name), every host
 * name becomes "<host>#<k>" with k the zero-padded DART node index. The
 * check costs one broadcast within each node and an allgather of one
 * 64-bit word per unit (names.c); each unit renames its own record before
 * publishing it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "team/dart_team.h"
#include "locality_internal.h"
#include "globmem/dart_segment.h"
#include "transport/probe.h"
#include "transport/transport.h"
#include "transport/wait.h"

#define HOST_MAX DART_LOCALITY_HOST_MAX_SIZE
/* Gets in flight before a flush while reading a team's records. */
#define GETS_PER_FLUSH 1024

/* Hardware of this process (host name already in its final form). */
static dart_hwinfo_t dart__locality_self;
/* Window of DART_TEAM_ALL holding every unit's record at displacement 0,
 * for readers on other nodes (MPI_WIN_NULL with one unit, and when every
 * unit shares the caller's node); locked (lock_all) while it exists. */
static dart__side_window_t rec_sw = {MPI_WIN_NULL, NULL, false, false};
/* Node-shared side window of DART_TEAM_ALL's node communicator holding the
 * records of the caller's node, read by loads (MPI_WIN_NULL when the
 * caller is alone on its node). Before it, the first read of a node
 * peer's record was an MPI_Get on rec_sw, which on one node waited until
 * that peer entered MPI (issue 36). */
static dart__side_window_t rec_shm = {MPI_WIN_NULL, NULL, false, true};

/*
 * Collective over DART_TEAM_ALL: do host names and DART's node view agree?
 * Broadcasts the node leader's host name within each node and allgathers
 * one word per unit (see names.c). *disagree is the same on every unit.
 */
static dart_ret_t hosts_disagree(dart__team_t *all, bool *disagree)
{
  char leader[HOST_MAX];
  memcpy(leader, dart__locality_self.host, HOST_MAX);
  DART__MPI(MPI_Bcast(leader, HOST_MAX, MPI_CHAR, 0, all->node_comm));
  leader[HOST_MAX - 1] = '\0';
  uint64_t mine = strncmp(leader, dart__locality_self.host, HOST_MAX) == 0
                      ? dart__locality_host_hash(leader)
                      : 0;
  uint64_t *words = malloc((size_t)all->size * sizeof *words);
  DART__CHECK(words != NULL, DART_ERR_NOMEM,
              "out of memory for %d host name words", all->size);
  dart_ret_t ret = DART_OK;
  DART__MPI_GOTO(dart__mpi_allgather(&mine, 1, MPI_UINT64_T, words, all->comm),
                 ret, out);
  *disagree =
      dart__locality_hosts_disagree(words, all->size, dart__g.num_nodes);
out:
  free(words);
  return ret;
}

/* Frees whichever of the record windows exist (dart_init failure, exit). */
static void records_free(const char *func)
{
  dart__side_window_free(func, "the locality records' node window", &rec_shm);
  dart__side_window_free(func, "the locality records' window", &rec_sw);
}

/* Publishes this unit's record to every unit (collective, dart_init):
 * node peers read it from rec_shm by loads, units on other nodes from
 * rec_sw by gets. */
static dart_ret_t publish_record(void)
{
  if (dart__g.size == 1) return DART_OK; /* read locally */
  const dart__team_t *all = dart__team_get(DART_TEAM_ALL);
  /* the same decisions on every unit: node_size is the same on a node,
   * num_nodes everywhere, the probe's results are agreed */
  bool shared = all->node_size > 1 &&
                (!dart__caps.ran || dart__caps.cap[DART__CAP_WIN_SHARED]);
  dart_ret_t ret = DART_OK;
  if (shared)
    ret = dart__side_window_create_shared(
        "dart_init", "the locality records' node window", all->node_comm,
        sizeof dart__locality_self, &dart__locality_self, &rec_shm);
  if (ret == DART_OK && (!shared || all->num_nodes > 1))
    ret = dart__side_window_create("dart_init", "the locality records' window",
                                   dart__g.comm, sizeof dart__locality_self, 1,
                                   &dart__locality_self, &rec_sw);
  /* every record is in place before anyone reads one */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  int rc = MPI_SUCCESS;
  if (ret == DART_OK) {
    rc = dart__mpi_rendezvous(dart__g.comm);
    if (rc == MPI_SUCCESS) return DART_OK;
    dart__mpi_log_error("dart_init", "the locality records' window", rc);
  }
  records_free("dart_init");
  return DART_ERR_OTHER;
}

/* Reads the records of the team's units into hw[team->size]: loads for
 * node peers, one get per other unit from rec_sw (not collective), the
 * caller's own from memory. */
static dart_ret_t read_records(const char *func, const dart__team_t *team,
                               dart_hwinfo_t *hw)
{
  const dart__team_t *all = dart__team_get(DART_TEAM_ALL);
  int pending = 0;
  for (int u = 0; u < team->size; u++) {
    int32_t g = team->l2g[u];
    if (g == dart__g.myid || dart__g.size == 1) {
      hw[u] = dart__locality_self;
      continue;
    }
    int r = all->node_idx[g];
    if (rec_shm.win != MPI_WIN_NULL && r >= 0) { /* a node peer: loads */
      void *rec = NULL;
      dart_ret_t ret = dart__side_window_peer(
          func, "reading the locality records", &rec_shm, r, &rec);
      if (ret != DART_OK) return ret;
      hw[u] = *(const dart_hwinfo_t *)rec;
      continue;
    }
    int rc =
        rec_sw.win == MPI_WIN_NULL
            ? MPI_ERR_WIN
            : dart__mpi_get_bytes(rec_sw.win, g, 0, &hw[u], (int)sizeof *hw);
    if (rc == MPI_SUCCESS && ++pending == GETS_PER_FLUSH) {
      rc = dart__mpi_flush_win(func, rec_sw.win);
      pending = 0;
    }
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error(func, "reading the locality records", rc);
      if (pending > 0) dart__mpi_flush_win(func, rec_sw.win);
      return DART_ERR_OTHER;
    }
  }
  if (pending > 0) {
    int rc = dart__mpi_flush_win(func, rec_sw.win);
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error(func, "reading the locality records", rc);
      return DART_ERR_OTHER;
    }
  }
  return DART_OK;
}

/* Builds the unit records and domain tree of the team if not built yet. */
static dart_ret_t expand_team_locality(const char *func, dart__team_t *team)
{
  dart__locality_t *loc = team->locality;
  if (loc->root != NULL) return DART_OK;
  dart_hwinfo_t *hw = malloc((size_t)team->size * sizeof *hw);
  DART__CHECK(hw != NULL, DART_ERR_NOMEM, "%s: out of memory (team %d)", func,
              (int)team->id);
  dart__locality_t *built = NULL;
  dart_ret_t ret = read_records(func, team, hw);
  if (ret == DART_OK)
    ret = dart__locality_build(team->id, team->size, team->l2g, hw, &built);
  free(hw);
  if (ret != DART_OK) {
    dart__log(DART__LOG_ERROR, func, "building the locality of team %d: %s",
              (int)team->id, dart__strerror(ret));
    return ret;
  }
  loc->units = built->units;
  loc->root = built->root;
  free(built);
  return DART_OK;
}

/* Locality data of a team, its tree not built yet (no communication). */
static dart_ret_t new_team_locality(dart__team_t *team)
{
  team->locality = calloc(1, sizeof *team->locality);
  DART__CHECK(team->locality != NULL, DART_ERR_NOMEM, "out of memory (team %d)",
              (int)team->id);
  team->locality->team = team->id;
  team->locality->num_units = team->size;
  return DART_OK;
}

dart_ret_t dart__locality_init(void)
{
  dart__hwinfo_detect(&dart__locality_self, dart__env.use_hwloc != 0);
  long mbps = dart__env.max_shmem_mbps;
  dart__locality_self.max_shmem_mbps =
      (mbps > 0 && mbps <= INT32_MAX) ? (int)mbps : 1235;
  dart__team_t *all = dart__team_get(DART_TEAM_ALL);
  DART__CHECK(all != NULL, DART_ERR_OTHER, "team DART_TEAM_ALL missing");
  bool rename = dart__env.sim_node_size > 0;
  if (!rename) {
    dart_ret_t ret = hosts_disagree(all, &rename);
    if (ret != DART_OK) return ret;
  }
  if (rename)
    dart__locality_node_name(dart__locality_self.host, dart__g.my_node,
                             dart__g.num_nodes);
  dart_ret_t ret = publish_record();
  return ret == DART_OK ? new_team_locality(all) : ret;
}

void dart__locality_fini(void)
{
  for (int id = 0; id <= DART__TEAM_ID_MAX; id++) {
    dart__team_t *t = dart__team_table[id];
    if (t != NULL) dart__locality_team_fini(t);
  }
  if (rec_sw.win != MPI_WIN_NULL || rec_shm.win != MPI_WIN_NULL) {
    /* nobody reads a record any more once everyone is here */
    DART__MPI_LOG(dart__mpi_rendezvous(dart__g.comm));
    records_free("dart_exit");
  }
}

void dart__locality_team_fini(dart__team_t *team)
{
  dart__locality_free(team->locality);
  team->locality = NULL;
}

/* The team's locality data with its tree built, or NULL after logging why
 * there is none. */
static dart__locality_t *team_locality(const char *func, dart_team_t teamid)
{
  dart__team_t *team = dart__team_lookup(func, teamid);
  if (team == NULL) return NULL;
  if (team->locality == NULL) {
    dart__log(DART__LOG_ERROR, func,
              "team %d has no locality data (call "
              "dart_team_locality_init)",
              (int)teamid);
    return NULL;
  }
  return expand_team_locality(func, team) == DART_OK ? team->locality : NULL;
}

dart_ret_t dart_team_locality_init(dart_team_t teamid)
{
  DART__TEAM_OR_RETURN(team, teamid);
  DART__CHECK_ARG(team->locality == NULL,
                  "locality of team %d is already initialized", (int)teamid);
  return new_team_locality(team);
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
