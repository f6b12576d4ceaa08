/*
 * Teams of the OpenSHMEM layer (team.c): SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED
 * (the PEs of the caller's node, from DART's locality hierarchy) and the
 * teams made by shmem_team_split_strided / shmem_team_split_2d.
 *
 * Every team is a DART team (dart_team_create over the parent's DART team)
 * plus the order OpenSHMEM gives its PEs: team PE i is world PE world[i].
 * DART numbers team units by ascending global id, a strided split with a
 * negative stride numbers them the other way round, so each team also keeps
 * dart_unit[i], the DART team-relative id of team PE i (identity when
 * `ordered`), which the collectives use to permute blocks.
 */
#ifndef SHMEM_TEAM_H_INCLUDED
#define SHMEM_TEAM_H_INCLUDED

#include <stddef.h>

#include "shmem_internal.h"

struct shmemi_team {
  unsigned magic;    /* SHMEMI_TEAM_MAGIC while the team is alive */
  dart_team_t dteam; /* the DART team of the members */
  int size;          /* number of PEs */
  int my_pe;         /* the caller's team PE */
  int ordered;       /* dart_unit[i] == i for every i */
  int predefined;    /* WORLD or SHARED: not destroyable */
  int *world;        /* team PE -> world PE (size entries) */
  int *dart_unit;    /* team PE -> DART team-relative id */
  int *team_of_dart; /* DART team-relative id -> team PE */
  shmem_team_config_t config;
  long config_mask;
  struct shmemi_team *next; /* list of live teams */
};

#define SHMEMI_TEAM_MAGIC 0x7e4d5e11u

/* shmemi_team_init/fini, _valid, _world_pe and _dart: shmem_internal.h. */
/* Live-team check that logs "shmem: <func>: invalid team <ptr>" on failure. */
SHMEMI_HIDDEN int shmemi_team_check(const char *func, shmem_team_t team);

#endif /* SHMEM_TEAM_H_INCLUDED */
