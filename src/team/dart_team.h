/*
 * Internal: the teams layer (above base, below the transport): the team
 * record, the O(1) team table, unit translation and the lookup every layer
 * uses to address a unit. Teams are built and released by the runtime
 * (runtime/team.c), which runs the modules' team hooks (dart_modules.h).
 */
#ifndef DART__TEAM_H
#define DART__TEAM_H

#include <dash/dart/if/dart_team_group.h>

#include "dart_mpi.h"

struct dart__segtable;  /* globmem: segments of the team          */
struct dart__locality;  /* locality: unit records + domain tree   */
struct dart__lock_list; /* locks: locks registered on the team    */

typedef struct dart__team {
  dart_team_t id;
  MPI_Comm comm; /* team communicator; rank == team unit id      */
  int size;      /* number of team units                         */
  int myid;      /* caller's team unit id                        */
  int32_t *l2g;  /* [size] global id of each team unit, strictly
                    ascending (every team communicator is split with
                    the global id as key); global -> team id is a
                    binary search on it (dart__team_g2l), so a team
                    holds nothing sized by the whole job           */

  /* Node view of the team (follows DART_SIM_NODE_SIZE). */
  MPI_Comm node_comm; /* team units on the caller's node              */
  int node_size;      /* size of node_comm                            */
  int node_rank;      /* caller's rank in node_comm                   */
  int num_nodes;      /* distinct nodes spanned by the team           */
  int32_t *node_idx;  /* [size] rank in node_comm of each team unit on
                         the caller's node, -1 for units elsewhere:
                         segments index their mapped bases by it    */
  bool single_node;   /* every team unit is on the caller's node      */
  long coll_seq;      /* collectives started on the team (watchdog)   */

  /* Per-module state, owned and released by the modules themselves. */
  struct dart__segtable *segs;
  struct dart__locality *locality;
  struct dart__lock_list *locks;
} dart__team_t;

/* Largest valid team id (team ids are int16_t and non-negative). */
#define DART__TEAM_ID_MAX INT16_MAX

/* O(1) lookup table: team id -> team (NULL if the caller is not a member). */
extern dart__team_t *dart__team_table[DART__TEAM_ID_MAX + 1] DART__HIDDEN;

/* Returns the team or NULL (no logging; hot path). */
static inline dart__team_t *dart__team_get(dart_team_t id)
{
  if (__builtin_expect(id < 0, 0)) return NULL;
  return dart__team_table[id];
}

/*
 * Looks up a team for a public function: logs "func: invalid team id N"
 * and returns NULL for DART_TEAM_NULL, negative ids and unknown teams.
 */
DART__HIDDEN dart__team_t *dart__team_lookup(const char *func, dart_team_t id);

#define DART__TEAM_OR_RETURN(var, teamid)                                      \
  dart__team_t *var = dart__team_lookup(__func__, (teamid));                   \
  if (var == NULL) return DART_ERR_INVAL

/* Is team unit u of team t on the caller's node? */
static inline bool dart__team_unit_is_local_node(const dart__team_t *t, int u)
{
  return t->node_idx[u] >= 0;
}

/* Team unit id of global unit g in team t, or -1 if g is no member:
 * binary search on the ascending l2g (O(log size), no job-sized array). */
static inline int dart__team_g2l(const dart__team_t *t, int32_t g)
{
  int lo = 0, hi = t->size - 1;
  while (lo <= hi) {
    int mid = lo + (hi - lo) / 2;
    int32_t v = t->l2g[mid];
    if (v == g) return mid;
    if (v < g)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

#endif /* DART__TEAM_H */
