/*
 * Registrations of memory that lies inside, or overlaps, a live
 * registration of the same team (issue 24 item 6). MPI forbids attaching
 * overlapping regions to a dynamic window: memory inside a registered
 * region shares its attachment (reference-counted, detached with the last
 * registration in it). Memory that only partly overlaps one is refused on
 * every unit (DART_ERR_INVAL) where all registrations share the team's
 * dynamic window (MPICH), and gets a window of its own where that is the
 * other choice (Open MPI); either way the team's next registration works.
 */
#include <stdint.h>
#include <unistd.h>

#include "dart_mpi.h"
#include "gm_access.h"
#include "transport/probe.h"

enum { N = 128 };

/* Every unit puts (round * 100 + me) into element `at` of its right
 * neighbour's portion of g, checks its own element from the left, reads
 * its put back and waits for all. */
static void ring(dart_gptr_t g, int64_t *mine, int at, int round)
{
  int right = (me + 1) % nunits, left = (me + nunits - 1) % nunits;
  int64_t v = (int64_t)round * 100 + me;
  gm_barrier();
  gm_put(os_at(g, right, (size_t)at * sizeof v), &v, sizeof v);
  TEST_OK(dart_flush(g));
  gm_barrier();
  TEST_CHECK_MSG(mine[at] == (int64_t)round * 100 + left,
                 "round %d: element %d is %lld", round, at,
                 (long long)mine[at]);
  int64_t back = -1;
  gm_get(&back, os_at(g, right, (size_t)at * sizeof back), sizeof back);
  TEST_CHECK(back == v);
  /* Deregistration detaches at once where registrations share the team's
   * dynamic window: no unit may deregister before its left neighbour's
   * get is done (Open MPI's osc/rdma fails that get, MPI_ERR_RMA_RANGE). */
  gm_barrier();
}

/* The line DART logs for a failed MPI call with error code rc. */
static void logged_line(int rc, char *line, size_t n)
{
  fflush(stderr);
  int saved = dup(2);
  FILE *f = tmpfile();
  TEST_CHECK(saved >= 0 && f != NULL);
  dup2(fileno(f), 2);
  dart__mpi_log_error("ring", "MPI_Get", rc);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(f);
  line[0] = '\0';
  TEST_CHECK(fgets(line, (int)n, f) != NULL);
  fclose(f);
}

/* A get from memory its owner has detached fails with MPI_ERR_RMA_RANGE
 * (osc/rdma): the error line points at a deregistration, other errors'
 * lines do not. */
static void range_hint(void)
{
  char line[1024];
  logged_line(MPI_ERR_RMA_RANGE, line, sizeof line);
  TEST_CHECK_MSG(strstr(line, "MPI_Get failed") != NULL &&
                     strstr(line, "deregistered by its owner") != NULL,
                 "logged: %s", line);
  logged_line(MPI_ERR_OTHER, line, sizeof line);
  TEST_CHECK_MSG(strstr(line, "MPI_Get failed") != NULL &&
                     strstr(line, "deregistered") == NULL,
                 "logged: %s", line);
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  static int64_t buf[N];
  bool shared = dart__caps.register_dynamic && nunits > 1;
  dart_gptr_t outer, inner, same, part, next;
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 64, DART_TYPE_LONGLONG, buf,
                                &outer));
  /* inside the outer region, and the very same region once more */
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 8, DART_TYPE_LONGLONG, buf + 8,
                                &inner));
  TEST_OK(
      dart_team_memregister(DART_TEAM_ALL, 64, DART_TYPE_LONGLONG, buf, &same));
  ring(outer, buf, 40, 1);
  ring(inner, buf + 8, 3, 2);
  ring(same, buf, 50, 3);
  /* the outer registration goes first: the inner ones keep the region */
  TEST_OK(dart_team_memderegister(outer));
  ring(inner, buf + 8, 4, 4);
  ring(same, buf, 60, 5);
  TEST_OK(dart_team_memderegister(same));
  ring(inner, buf + 8, 5, 6);
  /* The region of buf[0..64) stays attached for `inner`: memory across
   * its end is refused where registrations share the window. */
  dart_ret_t r = dart_team_memregister(DART_TEAM_ALL, 8, DART_TYPE_LONGLONG,
                                       buf + 60, &part);
  TEST_CHECK_MSG(r == (shared ? DART_ERR_INVAL : DART_OK), "got %d", (int)r);
  if (r == DART_OK) {
    ring(part, buf + 60, 7, 7);
    TEST_OK(dart_team_memderegister(part));
  }
  /* the team's next registration works and ids stay in step */
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, 16, DART_TYPE_LONGLONG,
                                buf + 100, &next));
  ring(next, buf + 100, 9, 8);
  TEST_OK(dart_team_memderegister(next));
  TEST_OK(dart_team_memderegister(inner));
  range_hint();
  TEST_OK(dart_exit());
  if (me == 0) printf("globmem_regnest: OK (%d units)\n", nunits);
  return 0;
}
