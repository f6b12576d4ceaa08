/*
 * Per-object memory must not grow with the number of units (issue 23).
 *
 * Measures heap bytes (mallinfo2: in-use bytes of every arena plus mmapped
 * blocks) per live team allocation, on a small team (of at most 2 units;
 * single units when the job has 2; one unit alone has nothing to compare
 * and skips) and on DART_TEAM_ALL, in the same run: the difference per
 * allocation between the two is what one allocation costs per additional unit,
 * and must stay below 8 bytes per unit on the unit where it grows least (one
 * pointer per unit per allocation,
 * the former layout, fails this). Also measures the bytes of a live 2-unit
 * team, and of a live registration on the pair and on all units: the latter may
 * exceed the former by at most 64 bytes, not counting what the MPI keeps
 * per window where each registration has one (Open MPI; measured with
 * bare windows alongside). Prints "SCALE alloc|team|reg P=<units>
 * team=<size> bytes=<per object>" lines for the scale report. Every
 * allocation and registration is written and read back.
 */
#include <dash/dart/if/dart.h>
#include <malloc.h>
#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "globmem/dart_segment.h"
#include "dart_test.h"

enum { NSEG = 16, ROUNDS = 6, ELEMS = 8 };

static size_t heap_bytes(void)
{
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

static int me, nunits;
/* Units per small team: pairs, or single units when there are only two
 * (then the small team still has fewer units than DART_TEAM_ALL). */
static int width = 2;

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
  dart_gptr_t g[NSEG], x = DART_GPTR_NULL;
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
    TEST_OK(dart_team_memfree(x));
    /* Frees are deferred to the next collective creation (docs/design.md
     * 3.1): this one collects them outside the measurement, and x stays
     * live through the next round so that nothing is collected there. */
    TEST_OK(dart_team_memalloc_aligned(team, 1, DART_TYPE_LONGLONG, &x));
  }
  TEST_OK(dart_team_memfree(x));
  return best;
}

/*
 * Smallest heap growth per live registration (dart_team_memregister of
 * ELEMS int64 of the caller's memory) over ROUNDS rounds of NSEG on team,
 * after a warm-up round. Every unit registers memory at its own address,
 * so displacements differ between units. Each registration is written and
 * read back through the next unit's portion; deregistration is local, the
 * records are freed at the next collective creation (one after each round).
 */
static double bytes_per_reg(dart_team_t team)
{
  static int64_t mem[NSEG][ELEMS + 1];
  dart_gptr_t g[NSEG];
  double best = 1e30;
  for (int round = 0; round <= ROUNDS; round++) {
    TEST_OK(dart_barrier(team));
    size_t before = heap_bytes();
    for (int i = 0; i < NSEG; i++)
      /* one element in: the address differs from the segment's start */
      TEST_OK(dart_team_memregister(team, ELEMS, DART_TYPE_LONGLONG,
                                    &mem[i][me % 2], &g[i]));
    size_t after = heap_bytes();
    double per = ((double)after - (double)before) / NSEG;
    if (round > 0 && per < best) best = per;
    for (int i = 0; i < NSEG; i++) check_data(team, g[i], 100 + i);
    for (int i = 0; i < NSEG; i++) TEST_OK(dart_team_memderegister(g[i]));
    /* the next collective creation frees the deregistered windows */
    dart_gptr_t x;
    TEST_OK(dart_team_memalloc_aligned(team, 1, DART_TYPE_LONGLONG, &x));
    TEST_OK(dart_team_memfree(x));
  }
  return best;
}

/*
 * Heap bytes the MPI itself keeps per live window of 8 bytes on comm (best
 * of ROUNDS rounds of NSEG, in a lock_all epoch as DART's): where every
 * registration has a window of its own (Open MPI), that much of its cost
 * is the MPI's, which DART cannot shrink.
 */
static double bytes_per_mpi_window(MPI_Comm comm)
{
  static int64_t mem[NSEG];
  MPI_Win w[NSEG];
  double best = 1e30;
  MPI_Info info; /* DART's hint */
  TEST_CHECK(MPI_Info_create(&info) == MPI_SUCCESS);
  TEST_CHECK(MPI_Info_set(info, "same_disp_unit", "true") == MPI_SUCCESS);
  for (int round = 0; round <= ROUNDS; round++) {
    MPI_Barrier(comm);
    size_t before = heap_bytes();
    for (int i = 0; i < NSEG; i++) {
      TEST_CHECK(MPI_Win_create(&mem[i], sizeof mem[i], 1, info, comm, &w[i]) ==
                 MPI_SUCCESS);
      TEST_CHECK(MPI_Win_lock_all(MPI_MODE_NOCHECK, w[i]) == MPI_SUCCESS);
    }
    size_t after = heap_bytes();
    double per = ((double)after - (double)before) / NSEG;
    if (round > 0 && per < best) best = per;
    for (int i = 0; i < NSEG; i++) {
      TEST_CHECK(MPI_Win_unlock_all(w[i]) == MPI_SUCCESS);
      TEST_CHECK(MPI_Win_free(&w[i]) == MPI_SUCCESS);
    }
  }
  MPI_Info_free(&info);
  return best;
}

/* Does a registration on team create a window of its own? */
static bool reg_has_window(dart_team_t team)
{
  static int64_t x;
  dart_gptr_t g;
  int before = dart__globmem_live_windows();
  TEST_OK(dart_team_memregister(team, 1, DART_TYPE_LONGLONG, &x, &g));
  bool own = dart__globmem_live_windows() > before;
  TEST_OK(dart_team_memderegister(g));
  return own;
}

/* The caller's small team: units {w k, ..., w k + w - 1} for w = width
 * (the last team smaller if the count is not a multiple). Every unit takes
 * part in every creation. */
static dart_team_t pair_team(void)
{
  dart_team_t mine = DART_TEAM_NULL;
  for (int k = 0; width * k < nunits; k++) {
    dart_group_t grp;
    TEST_OK(dart_group_create(&grp));
    for (int u = width * k; u < width * k + width && u < nunits; u++)
      TEST_OK(dart_group_addmember(grp, (dart_global_unit_t){u}));
    dart_team_t t = DART_TEAM_NULL;
    TEST_OK(dart_team_create(DART_TEAM_ALL, grp, &t));
    TEST_OK(dart_group_destroy(&grp));
    TEST_CHECK((t != DART_TEAM_NULL) == (me / width == k));
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
  if (nunits == 1) { /* no larger team to compare with */
    TEST_OK(dart_exit());
    printf("test_globmem_scale: skipped (one unit: nothing to compare)\n");
    return 77;
  }
  width = nunits == 2 ? 1 : 2;

  dart_team_t pair = pair_team();
  size_t psize = 0;
  TEST_OK(dart_team_size(pair, &psize));
  double small = bytes_per_alloc(pair);
  double all = bytes_per_alloc(DART_TEAM_ALL);
  double team = bytes_per_team();
  double reg_small = bytes_per_reg(pair);
  double reg_all = bytes_per_reg(DART_TEAM_ALL);
  /* DART's share: without the MPI's per-window bytes where registrations
   * have windows of their own (measured on communicators of the same
   * sizes in the same run). */
  double win_small = 0, win_all = 0;
  if (reg_has_window(DART_TEAM_ALL)) {
    MPI_Comm pc;
    TEST_CHECK(MPI_Comm_split(MPI_COMM_WORLD, me / width, me, &pc) ==
               MPI_SUCCESS);
    win_small = bytes_per_mpi_window(pc);
    win_all = bytes_per_mpi_window(MPI_COMM_WORLD);
    TEST_CHECK(MPI_Comm_free(&pc) == MPI_SUCCESS);
  }
  /* The MPI's bytes per window vary from rank to rank by a few hundred
   * bytes around 45 KB (Open MPI): compare the means over all units. */
  /* A one-unit pair team (odd unit counts) registers without a window. */
  if (!reg_has_window(pair)) win_small = 0;
  double m[2] = {reg_small - win_small, reg_all - win_all};
  TEST_CHECK(MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_DOUBLE, MPI_SUM,
                           MPI_COMM_WORLD) == MPI_SUCCESS);
  double dart_small = m[0] / nunits, dart_all = m[1] / nunits;
  TEST_OK(dart_team_destroy(&pair));
  if (me == 0) {
    printf("SCALE alloc P=%d team=%zu bytes=%.1f\n", nunits, psize, small);
    printf("SCALE alloc P=%d team=%d bytes=%.1f\n", nunits, nunits, all);
    printf("SCALE team P=%d team=%zu bytes=%.1f\n", nunits, psize, team);
    printf("SCALE reg P=%d team=%zu bytes=%.1f mpi_window=%.1f "
           "dart_mean=%.1f\n",
           nunits, psize, reg_small, win_small, dart_small);
    printf("SCALE reg P=%d team=%d bytes=%.1f mpi_window=%.1f "
           "dart_mean=%.1f\n",
           nunits, nunits, reg_all, win_all, dart_all);
  }
  /* The growth from the pair's size to the whole job's, per unit more. */
  int more = nunits - (int)psize;
  TEST_CHECK(more > 0);
  /* Every unit holds the allocation's record, so a per-unit term of
   * DART's shows on every unit; the MPI's own heap traffic during an
   * allocation (free lists that grow, unexpected messages when the cores
   * are oversubscribed) lands on one unit or another now and then. The
   * smallest growth over the units is therefore DART's. */
  double growth = all - small;
  TEST_CHECK(MPI_Allreduce(MPI_IN_PLACE, &growth, 1, MPI_DOUBLE, MPI_MIN,
                           MPI_COMM_WORLD) == MPI_SUCCESS);
  if (more > 0)
    TEST_CHECK_MSG(growth < 8.0 * more,
                   "an allocation costs %.1f bytes on %zu units, %.1f on %d "
                   "(%.1f more on the unit that grew least): a per-unit term",
                   small, psize, all, nunits, growth);
  /* Where each registration has an MPI window of its own (Open MPI), the
   * MPI's bytes for DART's window and for the bare window measured above
   * differ from run to run by up to ~120 B at 3-4 units and ~100 B at
   * 16-32 units (seen in CI and here), noise this subtraction cannot
   * remove: there the bound allows 160 B of it plus 8 B per extra unit,
   * so at 32 units a per-unit term of DART's own shows from ~16 B per
   * unit (the size of the displacement array it replaced).
   * Without windows (MPICH) the bound is exact: 64 B in all. */
  double slack = win_all > 0 ? 160.0 + 8.0 * more : 0.0;
  if (more > 0)
    TEST_CHECK_MSG(dart_all <= dart_small + 64.0 + slack,
                   "a registration costs DART %.1f bytes on %zu units, %.1f "
                   "on %d (mean over units, MPI windows not counted): a "
                   "per-unit term",
                   dart_small, psize, dart_all, nunits);
  TEST_OK(dart_exit());
  return 0;
}
