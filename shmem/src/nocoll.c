/*
 * Stand-in for the team and collective part of the OpenSHMEM layer (helper
 * S2's shmem/src/team.c, coll*.c): compiled ONLY while
 * shmem/src/coll_sources.cmake does not exist. It provides the world team,
 * shmem_barrier_all and shmem_sync_all so that the core can be built and
 * tested alone; everything else of teams and collectives is absent.
 */
#include "shmem_internal.h"

static struct shmemi_team_stub {
  int id;
} world_stub = {0};
shmem_team_t SHMEM_TEAM_WORLD = (shmem_team_t)&world_stub;
shmem_team_t SHMEM_TEAM_SHARED = SHMEM_TEAM_INVALID;

int shmemi_team_init(void)
{
  return 0;
}
void shmemi_team_fini(void) {}
int shmemi_team_valid(shmem_team_t team)
{
  return team == SHMEM_TEAM_WORLD;
}
dart_team_t shmemi_team_dart(shmem_team_t team)
{
  return team == SHMEM_TEAM_WORLD ? DART_TEAM_ALL : DART_TEAM_NULL;
}
int shmemi_team_world_pe(shmem_team_t team, int pe)
{
  if (team != SHMEM_TEAM_WORLD || pe < 0 || pe >= shmemi_g.n_pes) return -1;
  return pe;
}

void shmem_barrier_all(void)
{
  shmemi_check_init(__func__);
  shmemi_quiet_all();
  if (dart_barrier(DART_TEAM_ALL) != DART_OK)
    shmemi_fatal(__func__, "dart_barrier failed");
}
SHMEMI_ALIAS(shmem_barrier_all);

void shmem_sync_all(void)
{
  shmemi_check_init(__func__);
  if (dart_barrier(DART_TEAM_ALL) != DART_OK)
    shmemi_fatal(__func__, "dart_barrier failed");
}
SHMEMI_ALIAS(shmem_sync_all);
