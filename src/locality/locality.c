/*
 * Locality of teams: the MPI side. Detects the caller's hardware once per
 * dart_init and publishes it in a window of one record per unit. Nothing
 * of other units is gathered at init: a team's unit records and domain
 * tree (tree.c) are built when a program first asks for them
 * (dart_domain_team_locality, dart_unit_locality), from the records read
 * without the record's owner taking part: node peers' records by loads
 * from a shared-memory window on the node, others' with one-sided gets
 * under a lock_all epoch, served by the progress thread the job already
 * runs for its memory spanning nodes (docs/design.md §5.4). That read is
 * not collective and never waits for the owner to enter DART, so units may
 * ask in any order, or never, while others compute or poll their memory.
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

#include "dart_team.h"
#include "locality_internal.h"
#include "transport/probe.h"
#include "transport/transport.h"

#define HOST_MAX DART_LOCALITY_HOST_MAX_SIZE
/* Gets in flight before a flush while reading a team's records. */
#define GETS_PER_FLUSH 1024

/* Hardware of this process (host name already in its final form). */
static dart_hwinfo_t dart__locality_self;
/* Window of DART_TEAM_ALL holding every unit's record at displacement 0,
 * for readers on other nodes (MPI_WIN_NULL with one unit, and when every
 * unit shares the caller's node); locked (lock_all) while it exists. */
static MPI_Win rec_win = MPI_WIN_NULL;
static dart_hwinfo_t *rec_mem; /* this unit's record in rec_win */
static bool rec_own_memory;    /* rec_mem is malloc'ed (MPI_Win_create) */
static bool rec_locked;        /* rec_win is in its lock_all epoch */
/* Shared-memory window of DART_TEAM_ALL's node communicator holding the
 * records of the caller's node, read by loads (MPI_WIN_NULL when the
 * caller is alone on its node). Before it, the first read of a node
 * peer's record was an MPI_Get on rec_win, which on one node waited until
 * that peer entered MPI (issue 36). */
static MPI_Win rec_shm = MPI_WIN_NULL;

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

/* Makes rec_win: over a malloc'ed record, or (where the MPI creates no
 * window over existing memory, dart__caps) over memory of its own. */
static int records_window(void)
{
  int rc = dart__mpi_rendezvous(dart__g.comm);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Aint bytes = (MPI_Aint)sizeof *rec_mem;
  rec_own_memory = !dart__caps.ran || dart__caps.cap[DART__CAP_WIN_CREATE];
  if (rec_own_memory) {
    rec_mem = malloc(sizeof *rec_mem);
    if (rec_mem == NULL) return MPI_ERR_NO_MEM;
    *rec_mem = dart__locality_self; /* in place before the window exists */
    return MPI_Win_create(rec_mem, bytes, 1, MPI_INFO_NULL, dart__g.comm,
                          &rec_win);
  }
  void *base = NULL;
  rc = MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, dart__g.comm, &base, &rec_win);
  rec_mem = base;
  if (rc == MPI_SUCCESS) *rec_mem = dart__locality_self;
  return rc;
}

/* Makes rec_shm over the node communicator of team all and writes this
 * unit's record into it. Returns an MPI error code. */
static int records_shared(const dart__team_t *all)
{
  dart_hwinfo_t *mine = NULL;
  int rc = MPI_Win_allocate_shared((MPI_Aint)sizeof *mine, 1, MPI_INFO_NULL,
                                   all->node_comm, &mine, &rec_shm);
  if (rc != MPI_SUCCESS) {
    rec_shm = MPI_WIN_NULL;
    return rc;
  }
  dart__mpi_objects_add(1);
  *mine = dart__locality_self;
  return MPI_Win_set_errhandler(rec_shm, MPI_ERRORS_RETURN);
}

/* Frees whichever of the record windows exist (dart_init failure, exit). */
static void records_free(void)
{
  if (rec_shm != MPI_WIN_NULL) {
    DART__MPI_LOG(MPI_Win_free(&rec_shm));
    dart__mpi_objects_add(-1);
  }
  if (rec_win != MPI_WIN_NULL) {
    if (rec_locked) DART__MPI_LOG(MPI_Win_unlock_all(rec_win));
    rec_locked = false;
    DART__MPI_LOG(MPI_Win_free(&rec_win));
    dart__mpi_objects_add(-1);
  }
  if (rec_own_memory) free(rec_mem);
  rec_mem = NULL;
}

/* Makes rec_win (every unit: reached from other nodes) and locks it. */
static int records_rma(void)
{
  int rc = records_window();
  if (rec_win == MPI_WIN_NULL) return rc == MPI_SUCCESS ? MPI_ERR_WIN : rc;
  dart__mpi_objects_add(1);
  int *model = NULL, flag = 0;
  rc = MPI_Win_set_errhandler(rec_win, MPI_ERRORS_RETURN);
  if (rc == MPI_SUCCESS)
    rc = MPI_Win_get_attr(rec_win, MPI_WIN_MODEL, &model, &flag);
  if (rc == MPI_SUCCESS && (!flag || *model != MPI_WIN_UNIFIED)) {
    DART_LOG_ERROR("dart_init: the MPI window of the locality records is "
                   "not in the unified memory model");
    rc = MPI_ERR_WIN;
  }
  if (rc == MPI_SUCCESS) rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, rec_win);
  rec_locked = rc == MPI_SUCCESS;
  return rc;
}

/* Publishes this unit's record to every unit (collective, dart_init):
 * node peers read it from rec_shm, units on other nodes from rec_win. */
static dart_ret_t publish_record(void)
{
  if (dart__g.size == 1) return DART_OK; /* read locally */
  const dart__team_t *all = dart__team_get(DART_TEAM_ALL);
  int rc = MPI_SUCCESS;
  /* the same decisions on every unit: node_size is the same on a node,
   * num_nodes everywhere, the probe's results are agreed */
  bool shared = all->node_size > 1 &&
                (!dart__caps.ran || dart__caps.cap[DART__CAP_WIN_SHARED]);
  if (shared) rc = records_shared(all);
  if (rc == MPI_SUCCESS && (!shared || all->num_nodes > 1)) rc = records_rma();
  /* every record is in place before anyone reads one */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (rc == MPI_SUCCESS) rc = dart__mpi_rendezvous(dart__g.comm);
  if (rc != MPI_SUCCESS) {
    dart__mpi_log_error("dart_init", "the locality records' window", rc);
    records_free();
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* Reads the records of the team's units into hw[team->size]: one get per
 * unit from rec_win (not collective), the caller's own from memory. */
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
    if (rec_shm != MPI_WIN_NULL && r >= 0) { /* a node peer: loads */
      MPI_Aint sz;
      int du;
      dart_hwinfo_t *rec = NULL;
      int rc = MPI_Win_shared_query(rec_shm, r, &sz, &du, &rec);
      if (rc != MPI_SUCCESS) {
        dart__mpi_log_error(func, "reading the locality records", rc);
        return DART_ERR_OTHER;
      }
      hw[u] = *rec;
      continue;
    }
    int rc = rec_win == MPI_WIN_NULL
                 ? MPI_ERR_WIN
                 : dart__mpi_get_bytes(rec_win, g, 0, &hw[u], (int)sizeof *hw);
    if (rc == MPI_SUCCESS && ++pending == GETS_PER_FLUSH) {
      rc = dart__mpi_flush_win(func, rec_win);
      pending = 0;
    }
    if (rc != MPI_SUCCESS) {
      dart__mpi_log_error(func, "reading the locality records", rc);
      if (pending > 0) dart__mpi_flush_win(func, rec_win);
      return DART_ERR_OTHER;
    }
  }
  if (pending > 0) {
    int rc = dart__mpi_flush_win(func, rec_win);
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
  if (rec_win != MPI_WIN_NULL || rec_shm != MPI_WIN_NULL) {
    /* nobody reads a record any more once everyone is here */
    DART__MPI_LOG(dart__mpi_rendezvous(dart__g.comm));
    records_free();
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
