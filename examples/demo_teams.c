/*
 * demo_teams: the "hello world" of DART teams.
 *
 * Every unit reports who and where it is, DART_TEAM_ALL is split into two
 * halves with dart_group_split + dart_team_create (as DASH's Team::split
 * does), each half synchronises on its own barrier, and the halves report
 * their team ids and sizes. Run: mpiexec -n 4 ./demo_teams
 */
#define _POSIX_C_SOURCE 200809L
#include <dash/dart/if/dart.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    dart_ret_t r_ = (call);                                                    \
    if (r_ != DART_OK) {                                                       \
      fprintf(stderr, "%s failed: %d\n", #call, (int)r_);                      \
      dart_abort(DART_EXIT_ABORT);                                             \
    }                                                                          \
  } while (0)

/* Prints one line per unit, in unit order, on the given team. */
static void ordered_print(dart_team_t team, const char *line)
{
  dart_team_unit_t me;
  size_t n;
  CHECK(dart_team_myid(team, &me));
  CHECK(dart_team_size(team, &n));
  for (size_t u = 0; u < n; u++) {
    if ((size_t)me.id == u) {
      printf("%s\n", line);
      fflush(stdout);
    }
    CHECK(dart_barrier(team));
  }
}

int main(int argc, char **argv)
{
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n;
  CHECK(dart_myid(&me));
  CHECK(dart_size(&n));
  char host[64] = "?", line[256];
  gethostname(host, sizeof host);
  snprintf(line, sizeof line, "unit %d of %zu on host %s", me.id, n, host);
  ordered_print(DART_TEAM_ALL, line);

  dart_group_t all, halves[2];
  size_t nparts = 0;
  CHECK(dart_team_get_group(DART_TEAM_ALL, &all));
  CHECK(dart_group_split(all, 2, &nparts, halves));
  dart_team_t team[2];
  for (int i = 0; i < 2; i++) {
    CHECK(dart_team_create(DART_TEAM_ALL, halves[i], &team[i]));
  }
  for (int i = 0; i < 2; i++) {
    if (team[i] == DART_TEAM_NULL) continue;
    dart_team_unit_t tme;
    size_t tsize;
    CHECK(dart_team_myid(team[i], &tme));
    CHECK(dart_team_size(team[i], &tsize));
    for (int round = 0; round < 100; round++) CHECK(dart_barrier(team[i]));
    snprintf(
        line, sizeof line,
        "unit %d: member %d of %zu in team %d (half %d), 100 barriers done",
        me.id, tme.id, tsize, (int)team[i], i);
  }
  ordered_print(DART_TEAM_ALL, line);
  for (int i = 0; i < 2; i++) {
    CHECK(dart_team_destroy(&team[i]));
    CHECK(dart_group_destroy(&halves[i]));
  }
  CHECK(dart_group_destroy(&all));
  if (me.id == 0)
    printf("demo_teams: %zu non-empty halves, all teams released\n", nparts);
  CHECK(dart_exit());
  return 0;
}
