/* Teams: creation, destruction and id agreement (the runtime: they run every
 * module's team hooks). The team record, the table and the lookups are the
 * teams layer's (src/team/team.c). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "dart_group_set.h"
#include "dart_modules.h"
#include "globmem/dart_segment.h"
#include "team/dart_team.h"
#include "dart_watch.h"
#include "transport/wait.h"

/* Next team id this unit proposes; agreed as the max over the parent. */
static int dart__next_team_id = 1;

/* Begins the wait of a collective call on team t for the watchdog, next
 * in t's sequence of collectives (every member makes the same calls of
 * team creation and destruction in the same order). */
static void watch_team(const char *func, const char *what, dart__team_t *t)
{
  DART__WATCH(func, what, (int)t->id, DART__WATCH_NONE, DART__WATCH_NONE,
              ++t->coll_seq);
}

/* Frees t and its communicators (func: the caller, for the watchdog and
 * the log; communicator frees are collective). */
static void dart__team_free(const char *func, dart__team_t *t)
{
  if (t == NULL) return;
  dart__mpi_objects_add(-(t->node_comm != MPI_COMM_NULL) -
                        (t->comm != MPI_COMM_NULL));
  if (t->node_comm != MPI_COMM_NULL) {
    watch_team(func, "MPI_Comm_free (node communicator)", t);
    dart__watch_end_mpi(func, "MPI_Comm_free (node communicator)",
                        MPI_Comm_free(&t->node_comm));
  }
  if (t->comm != MPI_COMM_NULL) {
    watch_team(func, "MPI_Comm_free (team communicator)", t);
    dart__watch_end_mpi(func, "MPI_Comm_free (team communicator)",
                        MPI_Comm_free(&t->comm));
  }
  free(t->l2g);
  free(t->node_idx);
  free(t);
}

/* Fills the node view of a team whose comm, size, myid and l2g are set. */
static dart_ret_t dart__team_build_nodes(const char *func, dart__team_t *t)
{
  int mynode = dart__g.my_node;
  const char *rdv = "MPI_Ibarrier (before the node split)",
             *split = "MPI_Comm_split (node communicator)",
             *nodes = "MPI_Allgather (node indices)",
             *count = "MPI_Allreduce (node count)";
  watch_team(func, rdv, t);
  dart_ret_t ret =
      dart__watch_end_mpi(func, rdv, dart__mpi_rendezvous(t->comm));
  if (ret != DART_OK) return ret;
  watch_team(func, split, t);
  ret = dart__watch_end_mpi(
      func, split, MPI_Comm_split(t->comm, mynode, t->myid, &t->node_comm));
  if (ret != DART_OK) return ret;
  dart__mpi_objects_add(1);
  DART__MPI(MPI_Comm_set_errhandler(t->node_comm, MPI_ERRORS_RETURN));
  DART__MPI(MPI_Comm_size(t->node_comm, &t->node_size));
  DART__MPI(MPI_Comm_rank(t->node_comm, &t->node_rank));
  /* node_idx first holds every member's node index; the node split keeps
   * team order (key = team rank), so a peer's node rank is the number of
   * the caller's node peers before it in the team */
  watch_team(func, nodes, t);
  ret = dart__watch_end_mpi(
      func, nodes,
      dart__mpi_allgather(&mynode, 1, MPI_INT32_T, t->node_idx, t->comm));
  if (ret != DART_OK) return ret;
  int32_t peers = 0;
  for (int u = 0; u < t->size; u++)
    t->node_idx[u] = t->node_idx[u] == mynode ? peers++ : -1;
  DART__CHECK(peers == t->node_size && t->node_idx[t->myid] == t->node_rank,
              DART_ERR_OTHER, "team %d: node view out of step (%d peers)",
              (int)t->id, (int)peers);
  /* a unit is the first of its node in the team iff its node rank is 0 */
  int first = t->node_rank == 0;
  watch_team(func, count, t);
  ret = dart__watch_end_mpi(
      func, count,
      dart__mpi_allreduce(&first, &t->num_nodes, 1, MPI_INT, MPI_SUM, t->comm));
  if (ret != DART_OK) return ret;
  t->single_node = (t->node_size == t->size);
  return DART_OK;
}

/* Creates the team object for communicator comm (ownership passes);
 * func: the public call, for the watchdog and the log. */
static dart_ret_t dart__team_build(const char *func, MPI_Comm comm,
                                   dart_team_t id, dart__team_t **out)
{
  dart_ret_t ret = DART_OK;
  dart__team_t *t = calloc(1, sizeof *t);
  if (t == NULL) return DART_ERR_NOMEM;
  t->id = id;
  t->comm = comm;
  dart__mpi_objects_add(1);
  t->node_comm = MPI_COMM_NULL;
  DART__MPI_GOTO(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), ret, fail);
  DART__MPI_GOTO(MPI_Comm_size(comm, &t->size), ret, fail);
  DART__MPI_GOTO(MPI_Comm_rank(comm, &t->myid), ret, fail);
  t->l2g = malloc((size_t)t->size * sizeof *t->l2g);
  t->node_idx = malloc((size_t)t->size * sizeof *t->node_idx);
  if (!t->l2g || !t->node_idx) {
    ret = DART_ERR_NOMEM;
    goto fail;
  }
  int32_t me = dart__g.myid;
  const char *ids = "MPI_Allgather (unit ids)";
  watch_team(func, ids, t);
  ret = dart__watch_end_mpi(
      func, ids, dart__mpi_allgather(&me, 1, MPI_INT32_T, t->l2g, comm));
  if (ret != DART_OK) goto fail;
  /* dart__team_g2l searches l2g: it must ascend (MPI_Comm_split orders
   * by the key, the global id; never seen otherwise). */
  for (int u = 1; u < t->size && ret == DART_OK; u++)
    if (t->l2g[u] <= t->l2g[u - 1]) ret = DART_ERR_OTHER;
  if (ret != DART_OK) {
    DART_LOG_ERROR("team %d: unit ids not in ascending order", id);
    goto fail;
  }
  ret = dart__team_build_nodes(func, t);
  if (ret != DART_OK) goto fail;
  dart__team_table[id] = t;
  ret = dart__modules_team_init(func, t);
  if (ret != DART_OK) {
    dart__team_table[id] = NULL;
    goto fail;
  }
  *out = t;
  return DART_OK;
fail:
  if (ret == DART_ERR_NOMEM)
    DART_LOG_ERROR("out of memory building team %d", id);
  dart__team_free(func, t);
  return ret;
}

/* Releases a team: module state first, then communicators. */
static dart_ret_t dart__team_release(const char *func, dart__team_t *t)
{
  dart_ret_t ret = dart__modules_team_fini(func, t);
  dart__team_table[t->id] = NULL;
  dart__team_free(func, t);
  return ret;
}

dart_ret_t dart__teams_init(void)
{
  memset(dart__team_table, 0, sizeof dart__team_table);
  dart__next_team_id = 1;
  MPI_Comm comm;
  MPI_Request req;
  DART__MPI(MPI_Comm_idup(dart__g.comm, &comm, &req));
  DART__MPI(dart__mpi_wait(&req));
  dart__team_t *all = NULL;
  dart_ret_t ret = dart__team_build("dart_init", comm, DART_TEAM_ALL, &all);
  return ret;
}

dart_ret_t dart__teams_fini(void)
{
  dart_ret_t ret = DART_OK;
  /* Teams the application did not destroy, newest first, then ALL. */
  for (int id = DART__TEAM_ID_MAX; id >= 0; id--) {
    dart__team_t *t = dart__team_table[id];
    if (t == NULL) continue;
    if (id != DART_TEAM_ALL) DART_LOG_DEBUG("releasing team %d at exit", id);
    dart_ret_t r = dart__team_release("dart_exit", t);
    if (r != DART_OK) ret = r;
  }
  return ret;
}

/*
 * Agrees on a new team id over the parent: the maximum of every member's
 * next id; fails on all members with DART_ERR_INVAL if `bad` is true on
 * any. When ids run out (they are int16_t), falls back to the lowest id
 * unused by every parent member.
 */
static dart_ret_t dart__team_agree_id(const char *func, dart__team_t *parent,
                                      bool bad, int *id)
{
  /* {next id, argument check failed here, out of MPI objects (2 per
   * team)}: one MPI_Allreduce(MAX). */
  int v[3] = {dart__next_team_id, bad, dart__mpi_objects_left() < 2};
  const char *agree = "MPI_Allreduce (team id agreement)";
  watch_team(func, agree, parent);
  dart_ret_t ret = dart__watch_end_mpi(
      func, agree,
      dart__mpi_allreduce(MPI_IN_PLACE, v, 3, MPI_INT, MPI_MAX, parent->comm));
  if (ret != DART_OK) return ret;
  if (v[1]) {
    if (!bad)
      dart__log(DART__LOG_ERROR, func,
                "the arguments were rejected on another unit of team %d",
                (int)parent->id);
    return DART_ERR_INVAL;
  }
  if (v[2]) return dart__mpi_objects_refuse(func, 2);
  *id = v[0];
  if (*id <= DART__TEAM_ID_MAX) {
    dart__next_team_id = *id + 1;
    return DART_OK;
  }
  enum { NWORDS = (DART__TEAM_ID_MAX + 1) / 64 };
  uint64_t *used = calloc(NWORDS, sizeof *used);
  DART__CHECK(used != NULL, DART_ERR_NOMEM, "out of memory");
  for (int t = 0; t <= DART__TEAM_ID_MAX; t++) {
    if (dart__team_table[t] != NULL) used[t / 64] |= 1ull << (t % 64);
  }
  const char *unused = "MPI_Allreduce (unused team ids)";
  watch_team(func, unused, parent);
  ret = dart__watch_end_mpi(func, unused,
                            dart__mpi_allreduce(MPI_IN_PLACE, used, NWORDS,
                                                MPI_UINT64_T, MPI_BOR,
                                                parent->comm));
  *id = -1;
  for (int t = 1; ret == DART_OK && t <= DART__TEAM_ID_MAX && *id < 0; t++) {
    if (!(used[t / 64] & (1ull << (t % 64)))) *id = t;
  }
  free(used);
  if (ret != DART_OK) return ret;
  DART__CHECK(*id > 0, DART_ERR_OTHER, "no free team id left");
  return DART_OK;
}

/* Local checks of dart_team_create's arguments (logged as func's). */
static dart_ret_t team_create_check(const char *func,
                                    const dart__team_t *parent,
                                    const dart_group_t group,
                                    dart_team_t *newteam)
{
  if (newteam == NULL) {
    dart__log(DART__LOG_ERROR, func, "argument 'newteam' is NULL");
    return DART_ERR_INVAL;
  }
  if (group == NULL) {
    dart__log(DART__LOG_ERROR, func, "group is NULL");
    return DART_ERR_INVAL;
  }
  for (size_t i = 0; i < group->n; i++) {
    int32_t g = group->ids[i];
    if (g < 0 || g >= dart__g.size || dart__team_g2l(parent, g) < 0) {
      dart__log(DART__LOG_ERROR, func,
                "unit %d of the group is not a member of team %d", g,
                (int)parent->id);
      return DART_ERR_INVAL;
    }
  }
  return DART_OK;
}

/* dart_team_create on behalf of func (dart_team_create, dart_team_clone). */
static dart_ret_t team_create(const char *func, dart_team_t teamid,
                              const dart_group_t group, dart_team_t *newteam)
{
  if (newteam != NULL) *newteam = DART_TEAM_NULL;
  dart__team_t *parent = dart__team_lookup(func, teamid);
  if (parent == NULL) return DART_ERR_INVAL;
  /* A bad argument on one unit fails the call on all: the check's result
   * travels with the id agreement, so nobody is left in MPI_Comm_split. */
  dart_ret_t ret = team_create_check(func, parent, group, newteam);
  int id = 0;
  dart_ret_t agreed = dart__team_agree_id(func, parent, ret != DART_OK, &id);
  if (agreed != DART_OK) return ret != DART_OK ? ret : agreed;
  if (ret != DART_OK) return ret;
  int member = dart__group_contains(group, dart__g.myid);
  MPI_Comm comm = MPI_COMM_NULL;
  const char *split = "MPI_Comm_split (new team)";
  watch_team(func, split, parent);
  ret = dart__watch_end_mpi(func, split,
                            MPI_Comm_split(parent->comm,
                                           member ? 0 : MPI_UNDEFINED,
                                           dart__g.myid, &comm));
  if (ret != DART_OK || !member) return ret;
  dart__team_t *t = NULL;
  ret = dart__team_build(func, comm, (dart_team_t)id, &t);
  if (ret != DART_OK) return ret;
  *newteam = (dart_team_t)id;
  return DART_OK;
}

dart_ret_t dart_team_create(dart_team_t teamid, const dart_group_t group,
                            dart_team_t *newteam)
{
  return team_create(__func__, teamid, group, newteam);
}

dart_ret_t dart_team_destroy(dart_team_t *teamid)
{
  DART__CHECK_NOTNULL(teamid);
  if (*teamid == DART_TEAM_NULL) return DART_OK;
  DART__TEAM_OR_RETURN(t, *teamid);
  DART__CHECK_ARG(*teamid != DART_TEAM_ALL,
                  "DART_TEAM_ALL cannot be destroyed (dart_exit does that)");
  /* The teardown's collective frees (windows of the team's segments,
   * communicators) are waits of their own; this one gives them the name
   * of the call, which the modules freeing the windows do not know. */
  DART__WATCH(__func__, "the team's teardown", (int)t->id, DART__WATCH_NONE,
              DART__WATCH_NONE, -1);
  dart_ret_t ret = dart__team_release(__func__, t);
  dart__watch_end();
  *teamid = DART_TEAM_NULL;
  return ret;
}

dart_ret_t dart_team_get_group(dart_team_t teamid, dart_group_t *group)
{
  DART__CHECK_NOTNULL(group);
  *group = DART_GROUP_NULL;
  DART__TEAM_OR_RETURN(t, teamid);
  dart__group_t *g = dart__group_new((size_t)t->size);
  DART__CHECK(g != NULL, DART_ERR_NOMEM, "out of memory");
  memcpy(g->ids, t->l2g, (size_t)t->size * sizeof *g->ids);
  g->n = (size_t)t->size;
  *group = g;
  return DART_OK;
}

dart_ret_t dart_team_clone(dart_team_t team, dart_team_t *newteam)
{
  /* A NULL newteam on one unit must not leave the others in the id
   * agreement: the check is dart_team_create's, agreed with the id. */
  if (newteam != NULL) *newteam = DART_TEAM_NULL;
  dart_group_t g = DART_GROUP_NULL;
  dart_ret_t ret = dart_team_get_group(team, &g);
  if (ret != DART_OK) return ret;
  ret = team_create(__func__, team, g, newteam);
  dart__group_free(g);
  return ret;
}
