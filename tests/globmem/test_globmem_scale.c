/*
 * Per-object memory must not grow with the number of units (issue 23).
 *
 * Measures heap bytes (mallinfo2: in-use bytes of every arena plus mmapped
 * blocks) per live team allocation, on a team of (at most) 2 units and on
 * DART_TEAM_ALL, in the same run: the difference per allocation between
 * the two is what one allocation costs per additional unit, and must stay
 * below 8 bytes per unit (one pointer per unit per allocation, the former
 * layout, fails this). Also measures the bytes of a live 2-unit team.
 * Prints "SCALE alloc|team P=<units> team=<size> bytes=<per object>" lines
 * for the scale report. Every allocation is written and read back.
 */
#include <dash/dart/if/dart.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>

#include "dart_test.h"

enum { NSEG = 16, ROUNDS = 3, ELEMS = 8 };

static size_t heap_bytes(void)
{
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

static int me, nunits;

/* Unit ids of one member as seen from a team. */
static dart_team_unit_t my_team_id(dart_team_t t)
{
  dart_team_unit_t id;
  TEST_OK(dart_team_myid(t, &id));
  return id;
}

/* Writes a pattern into the caller's portion of g and reads it back from
 * the next unit of the team (after a barrier), checking the values. */
static void check_data(dart_team_t team, dart_gptr_t g, int tag)
{
  size_t n = 0;
  TEST_OK(dart_team_size(team, &n));
  dart_team_unit_t tid = my_team_id(team);
  int64_t v[ELEMS], r[ELEMS];
  for (int i = 0; i < ELEMS; i++) v[i] = (int64_t)tag * 1000 + tid.id * 10 + i;
  dart_gptr_t mine = g;
  TEST_OK(dart_gptr_setunit(&mine, tid));
  TEST_OK(dart_put_blocking(mine, v, ELEMS, DART_TYPE_LONGLONG,
                            DART_TYPE_LONGLONG));
  TEST_OK(dart_barrier(team));
  dart_team_unit_t next = {(tid.id + 1) % (int)n};
  dart_gptr_t other = g;
  TEST_OK(dart_gptr_setunit(&other, next));
  TEST_OK(dart_get_blocking(r, other, ELEMS, DART_TYPE_LONGLONG,
                            DART_TYPE_LONGLONG));
  for (int i = 0; i < ELEMS; i++)
    TEST_CHECK_MSG(r[i] == (int64_t)tag * 1000 + next.id * 10 + i,
                   "segment %d elem %d: %lld", tag, i, (long long)r[i]);
  TEST_OK(dart_barrier(team));
}

/*
 * Smallest heap growth per live allocation over ROUNDS rounds of NSEG
 * allocations on team (after one warm-up round, which creates the team's
 * heap chunk and whatever the MPI caches).
 */
static double bytes_per_alloc(dart_team_t team)
{
  dart_gptr_t g[NSEG];
  double best = 1e30;
  for (int round = 0; round <= ROUNDS; round++) {
    TEST_OK(dart_barrier(team));
    size_t before = heap_bytes();
    for (int i = 0; i < NSEG; i++)
      TEST_OK(
          dart_team_memalloc_aligned(team, ELEMS, DART_TYPE_LONGLONG, &g[i]));
    size_t after = heap_bytes();
    double per = ((double)after - (double)before) / NSEG;
    if (round > 0 && per < best) best = per;
    for (int i = 0; i < NSEG; i++) check_data(team, g[i], i);
    for (int i = 0; i < NSEG; i++) TEST_OK(dart_team_memfree(g[i]));
  }
  return best;
}

/* The caller's pair team: units {2k, 2k+1} (the last unit alone if the
 * count is odd). Every unit takes part in every creation. */
static dart_team_t pair_team(void)
{
  dart_team_t mine = DART_TEAM_NULL;
  for (int k = 0; 2 * k < nunits; k++) {
    dart_group_t grp;
    TEST_OK(dart_group_create(&grp));
    for (int u = 2 * k; u < 2 * k + 2 && u < nunits; u++)
      TEST_OK(dart_group_addmember(grp, (dart_global_unit_t){u}));
    dart_team_t t = DART_TEAM_NULL;
    TEST_OK(dart_team_create(DART_TEAM_ALL, grp, &t));
    TEST_OK(dart_group_destroy(&grp));
    TEST_CHECK((t != DART_TEAM_NULL) == (me / 2 == k));
    if (t != DART_TEAM_NULL) mine = t;
  }
  return mine;
}

/* Heap bytes per live team of the caller's pair (best of ROUNDS, after a
 * warm-up team). */
static double bytes_per_team(void)
{
  double best = 1e30;
  for (int round = 0; round <= ROUNDS; round++) {
    TEST_OK(dart_barrier(DART_TEAM_ALL));
    size_t before = heap_bytes();
    dart_team_t t = pair_team();
    size_t after = heap_bytes();
    double per = (double)after - (double)before;
    if (round > 0 && per < best) best = per;
    TEST_OK(dart_barrier(t));
    TEST_OK(dart_team_destroy(&t));
  }
  return best;
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t id;
  size_t n;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&n));
  me = id.id;
  nunits = (int)n;

  dart_team_t pair = pair_team();
  size_t psize = 0;
  TEST_OK(dart_team_size(pair, &psize));
  double small = bytes_per_alloc(pair);
  double all = bytes_per_alloc(DART_TEAM_ALL);
  double team = bytes_per_team();
  TEST_OK(dart_team_destroy(&pair));
  if (me == 0) {
    printf("SCALE alloc P=%d team=%zu bytes=%.1f\n", nunits, psize, small);
    printf("SCALE alloc P=%d team=%d bytes=%.1f\n", nunits, nunits, all);
    printf("SCALE team P=%d team=%zu bytes=%.1f\n", nunits, psize, team);
  }
  /* The growth from the pair's size to the whole job's, per unit more. */
  int more = nunits - (int)psize;
  if (more > 0)
    TEST_CHECK_MSG(all - small < 8.0 * more,
                   "an allocation costs %.1f bytes on %zu units, %.1f on %d: "
                   "a per-unit term",
                   small, psize, all, nunits);
  TEST_OK(dart_exit());
  return 0;
}
