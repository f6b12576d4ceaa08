/*
 * Synthetic machines for the MPI-free locality tests: hardware info as
 * another unit would report it, without detecting anything.
 */
#ifndef DART_TEST_SYNTH_H
#define DART_TEST_SYNTH_H

#include <stdio.h>

#include "locality/locality_internal.h"

/* A unit on `host`, NUMA domain `numa`, core `core` of a node with
 * `cores` cores; scopes CORE < NUMA (like a one-package machine). */
static inline void synth_hw(dart_hwinfo_t *hw, const char *host, int numa,
                            int core, int cores)
{
  dart__hwinfo_clear(hw);
  snprintf(hw->host, sizeof hw->host, "%s", host);
  hw->num_cores = cores;
  hw->core_id = hw->cpu_id = core;
  hw->numa_id = numa;
  hw->num_numa = 2;
  hw->scopes[0] = (dart_locality_scope_pos_t){DART_LOCALITY_SCOPE_CORE, core};
  hw->scopes[1] = (dart_locality_scope_pos_t){DART_LOCALITY_SCOPE_NUMA, numa};
  hw->num_scopes = 2;
}

/*
 * 8 units on 2 nodes with 2 NUMA domains of 2 cores each. Units 0-3 are
 * on "nodeB", 4-7 on "nodeA" (so node ".0" holds units 4-7); unit u runs
 * on core u%4, NUMA (u%4)/2. gids[u] = 10 + u (non-trivial global ids).
 */
static inline dart__locality_t *synth_8units(dart_team_t team, int32_t *gids)
{
  dart_hwinfo_t hw[8];
  for (int u = 0; u < 8; u++) {
    synth_hw(&hw[u], u < 4 ? "nodeB" : "nodeA", (u % 4) / 2, u % 4, 4);
    gids[u] = 10 + u;
  }
  dart__locality_t *loc = NULL;
  if (dart__locality_build(team, 8, gids, hw, &loc) != DART_OK) return NULL;
  return loc;
}

/* Records of a locality as the pointer array loc_check_team_tree wants. */
static inline void synth_recs(dart__locality_t *loc,
                              dart_unit_locality_t **recs)
{
  for (int u = 0; u < loc->num_units; u++) recs[u] = &loc->units[u];
}

#endif /* DART_TEST_SYNTH_H */
