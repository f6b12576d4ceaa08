/*
 * No non-collective call waits for its peer to enter DART (issue 36 item
 * 4, docs/design.md §5.4 "Lazy reads"). Every unit but the first sets up
 * what the queries below read lazily (a registration, dart_memalloc growth,
 * a cloned team) and then only polls its own memory with plain loads: a
 * flag in a team allocation that unit 0 sets at the end. Unit 0 makes each
 * query that reads another unit's state on first use, for every peer:
 *   - dart_unit_locality and dart_domain_team_locality on DART_TEAM_ALL and
 *     on a clone (the unit records),
 *   - a get from each peer's registration (its displacement, fetched from
 *     the registration directory),
 *   - a get from each peer's dart_memalloc growth block (its committed
 *     size and address, read from the peer's pool page),
 * and then sets every peer's flag. A query that needs the peer inside
 * MPI never returns: the peer gives up after DEADLINE seconds with a line
 * naming itself and fails the job (the hang of issue 36: the first
 * dart_unit_locality of a node peer on one node).
 *
 * Gets from registrations and growth memory are RMA on the peer's memory:
 * they rely on the progress thread (§5.4 rule 3), so with
 * DART_PROGRESS=none only the locality queries are made.
 */
#define _DEFAULT_SOURCE
#include <dash/dart/if/dart.h>
#include <dash/dart/if/dart_locality.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dart_test.h"

enum { DEADLINE = 20, REG_LONGS = 64 };

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every query on team for every other unit (unit 0 only). */
static void locality_queries(dart_team_t team, int n)
{
  for (int u = 1; u < n; u++) {
    dart_unit_locality_t *loc = NULL;
    TEST_OK(dart_unit_locality(team, (dart_team_unit_t){u}, &loc));
    TEST_CHECK(loc != NULL && loc->unit.id == u && loc->hwinfo.host[0] != 0);
  }
  dart_domain_locality_t *root = NULL;
  TEST_OK(dart_domain_team_locality(team, ".", &root));
  TEST_CHECK(root != NULL && root->num_units == n);
}

/* Every unit but 0 polls its own flag with plain loads until unit 0 has
 * run `queries` and set it; then all meet in a barrier. */
static void away(int me, int n, volatile long *mine, dart_gptr_t flag,
                 void (*queries)(void *), void *arg)
{
  *mine = 0;
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  if (me != 0) {
    double t0 = now();
    while (*mine == 0) {
      if (now() - t0 > DEADLINE) {
        fprintf(stderr,
                "[unit %d] FAIL: unit 0 did not set the flag within %d s: "
                "one of its queries waited for this unit to enter DART\n",
                me, DEADLINE);
        fflush(stderr);
        _exit(1);
      }
      usleep(100);
    }
  } else {
    queries(arg);
    long one = 1;
    for (int u = 1; u < n; u++) {
      dart_gptr_t g = flag;
      g.unitid = u;
      TEST_OK(dart_put_blocking(g, &one, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    }
  }
  TEST_OK(dart_barrier(DART_TEAM_ALL));
}

typedef struct {
  int n;
  dart_team_t clone;
  dart_gptr_t rg;
  dart_gptr_t *grown;
} state_t;

/* Phase 1: nothing yet has started a progress thread on one node. */
static void phase_locality(void *arg)
{
  state_t *st = arg;
  locality_queries(DART_TEAM_ALL, st->n);
  TEST_OK(dart_team_locality_init(st->clone));
  locality_queries(st->clone, st->n);
}

/* Phase 2: registrations and growth memory (the peers' threads serve). */
static void phase_rma(void *arg)
{
  state_t *st = arg;
  for (int u = 1; u < st->n; u++) {
    long v = -1;
    dart_gptr_t g = st->rg;
    g.unitid = u;
    g.addr_or_offs.offset = 5 * sizeof(long);
    TEST_OK(dart_get_blocking(&v, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_CHECK_MSG(v == 1000L * u + 5, "registration of unit %d: %ld", u, v);
    v = -1;
    TEST_OK(
        dart_get_blocking(&v, st->grown[u], 1, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_CHECK_MSG(v == 7000L + u, "growth block of unit %d: %ld", u, v);
  }
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t size;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&size));
  int n = (int)size;
  const char *prog = getenv("DART_PROGRESS");
  bool rma = prog == NULL || strcmp(prog, "none") != 0;

  dart_gptr_t flag;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &flag));
  void *addr = NULL;
  flag.unitid = me.id;
  TEST_OK(dart_gptr_getaddr(flag, &addr));
  volatile long *mine = addr;
  state_t st = {n, DART_TEAM_NULL, DART_GPTR_NULL, NULL};
  TEST_OK(dart_team_clone(DART_TEAM_ALL, &st.clone));
  away(me.id, n, mine, flag, phase_locality, &st);

  /* A registration at a different offset on every unit (so that its
   * displacements differ where registrations share a dynamic window). */
  static long regbuf[REG_LONGS + 64];
  long *reg = regbuf + 8 * (me.id % 8);
  for (int i = 0; i < REG_LONGS; i++) reg[i] = 1000L * me.id + i;
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, REG_LONGS, DART_TYPE_LONG, reg,
                                &st.rg));
  /* dart_memalloc growth: more than the pool (DART_LOCAL_POOL_SIZE=1M). */
  size_t big = (size_t)4 << 20;
  dart_gptr_t grown;
  TEST_OK(dart_memalloc(big / sizeof(long), DART_TYPE_LONG, &grown));
  long *gp = NULL;
  TEST_OK(dart_gptr_getaddr(grown, (void **)&gp));
  gp[0] = 7000L + me.id;
  st.grown = calloc(size, sizeof *st.grown);
  TEST_CHECK(st.grown != NULL);
  TEST_OK(dart_allgather(&grown, st.grown, sizeof grown, DART_TYPE_BYTE,
                         DART_TEAM_ALL));
  if (rma) away(me.id, n, mine, flag, phase_rma, &st);

  /* the peers' answers too, now that everybody is back */
  if (me.id != 0) locality_queries(DART_TEAM_ALL, n);
  free(st.grown);
  TEST_OK(dart_memfree(grown));
  TEST_OK(dart_team_memderegister(st.rg));
  TEST_OK(dart_team_destroy(&st.clone));
  TEST_OK(dart_team_memfree(flag));
  TEST_OK(dart_exit());
  if (me.id == 0) printf("peer_away: %d units ok\n", n);
  return 0;
}
