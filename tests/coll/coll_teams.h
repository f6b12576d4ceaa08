/*
 * Test helper: the teams every collective test runs on. Each unit belongs
 * to DART_TEAM_ALL, to one half of dart_group_split(ALL, 2) (contiguous
 * ids) and to the odd or even units (a non-contiguous sub-team).
 */
#ifndef COLL_TEAMS_H
#define COLL_TEAMS_H

#include "dart_test.h"

#define COLL_NTEAMS 3

typedef struct {
  dart_team_t id;
  int size;
  int me;
  const char *name;
} coll_team_t;

static inline void coll_team_info(coll_team_t *t, dart_team_t id,
                                  const char *name)
{
  size_t n;
  dart_team_unit_t me;
  TEST_CHECK(id != DART_TEAM_NULL);
  TEST_OK(dart_team_size(id, &n));
  TEST_OK(dart_team_myid(id, &me));
  t->id = id;
  t->size = (int)n;
  t->me = me.id;
  t->name = name;
}

/* Creates the sub-teams; teams[i] are the caller's teams. */
static inline void coll_teams_create(coll_team_t teams[COLL_NTEAMS])
{
  dart_global_unit_t gme;
  size_t n, nout = 0;
  TEST_OK(dart_myid(&gme));
  TEST_OK(dart_size(&n));
  coll_team_info(&teams[0], DART_TEAM_ALL, "all");

  dart_group_t all, halves[2], parity[2];
  TEST_OK(dart_team_get_group(DART_TEAM_ALL, &all));
  TEST_OK(dart_group_split(all, 2, &nout, halves));
  TEST_OK(dart_group_create(&parity[0]));
  TEST_OK(dart_group_create(&parity[1]));
  for (size_t u = 0; u < n; u++)
    TEST_OK(dart_group_addmember(parity[u % 2], (dart_global_unit_t){(int)u}));
  for (int k = 0; k < 2; k++) {
    dart_team_t t = DART_TEAM_NULL;
    TEST_OK(dart_team_create(DART_TEAM_ALL, halves[k], &t));
    if (t != DART_TEAM_NULL) coll_team_info(&teams[1], t, "half");
  }
  for (int k = 0; k < 2; k++) {
    dart_team_t t = DART_TEAM_NULL;
    TEST_OK(dart_team_create(DART_TEAM_ALL, parity[k], &t));
    if (t != DART_TEAM_NULL) coll_team_info(&teams[2], t, "parity");
  }
  for (int k = 0; k < 2; k++) {
    TEST_OK(dart_group_destroy(&halves[k]));
    TEST_OK(dart_group_destroy(&parity[k]));
  }
  TEST_OK(dart_group_destroy(&all));
}

static inline void coll_teams_destroy(coll_team_t teams[COLL_NTEAMS])
{
  for (int i = 1; i < COLL_NTEAMS; i++)
    TEST_OK(dart_team_destroy(&teams[i].id));
}

#endif /* COLL_TEAMS_H */
