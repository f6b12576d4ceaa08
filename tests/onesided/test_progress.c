/*
 * Progress: unit 0 goes away from DART (sleeps, then computes) while the
 * others put, get and atomically update its memory, allocated and
 * registered. The property checked: every origin's operations complete
 * while the target makes no DART call at all. The target stays away until
 * the origins have told it so through its own memory (each origin adds 1
 * to a "done" word with a flushed accumulate after its last operation) and
 * reads that word with plain loads; on the MPI path this needs the DART
 * progress thread. No wall-clock bound decides the outcome: a watchdog of
 * AWAY_MAX seconds only turns a lost progress (origins stuck forever) into
 * a failure instead of a hang. The worst single operation of each kind is
 * printed per origin, for information.
 */
#include <mpi.h>
#include <unistd.h>

#include "os_common.h"

enum { SLOTS = 64, CTR = SLOTS, DONE = SLOTS + 1 };
static const double AWAY_MAX = 60.0; /* hang guard only */

/* The target, away from DART until the origins' done word reaches want
 * (sleeping or computing between looks); returns the seconds it waited. */
static double away_until_done(int sleeping, long *mine, long want)
{
  double t0 = os_now(), dt = 0;
  volatile double x = 1;
  while (__atomic_load_n(&mine[DONE], __ATOMIC_ACQUIRE) < want) {
    dt = os_now() - t0;
    TEST_CHECK_MSG(dt < AWAY_MAX,
                   "the origins' operations did not complete in %.0f s "
                   "while unit 0 was away from DART (done %ld of %ld): no "
                   "progress without the target",
                   AWAY_MAX, __atomic_load_n(&mine[DONE], __ATOMIC_ACQUIRE),
                   want);
    if (sleeping)
      usleep(10000);
    else
      for (int i = 0; i < 100000; i++) x = x * 1.0000001 + 1e-9;
  }
  return os_now() - t0;
}

enum { NOPS = 5, ROUNDS = 20 };
static const char *const op_name[NOPS] = {"put", "get", "fetch_and_op",
                                          "accumulate", "put_handle"};

/* One timed access of kind op to unit 0; returns its duration. */
static double access_once(dart_gptr_t g, int op, long v)
{
  long got = -1, one = 1, old;
  dart_gptr_t slot = os_at(g, 0, (size_t)me * sizeof(long));
  dart_gptr_t ctr = os_at(g, 0, CTR * sizeof(long));
  double t0 = os_now();
  switch (op) {
  case 0:
    TEST_OK(dart_put_blocking(slot, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    break;
  case 1:
    TEST_OK(dart_get_blocking(&got, slot, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    TEST_CHECK(got == v);
    break;
  case 2:
    TEST_OK(dart_fetch_and_op(ctr, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
    TEST_OK(dart_flush(ctr));
    break;
  case 3:
    TEST_OK(dart_accumulate(ctr, &one, 1, DART_TYPE_LONG, DART_OP_SUM));
    TEST_OK(dart_flush(ctr));
    break;
  default: {
    dart_handle_t h;
    TEST_OK(dart_put_handle(slot, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG, &h));
    TEST_OK(dart_wait(&h));
  }
  }
  return os_now() - t0;
}

/* Origins: ROUNDS rounds of timed accesses to unit 0 while it is away;
 * worst[op] is each kind's slowest single operation. */
static void accesses(dart_gptr_t g, int phase, double worst[NOPS])
{
  long v = 1000 * phase + me;
  for (int op = 0; op < NOPS; op++) worst[op] = 0;
  for (int r = 0; r < ROUNDS; r++)
    for (int op = 0; op < NOPS; op++) {
      double dt = access_once(g, op, v);
      if (dt > worst[op]) worst[op] = dt;
    }
}

/* Origins: tells the target that all of this origin's operations of the
 * phase have completed (the accumulate is flushed, so it is in the
 * target's memory when the flush returns). */
static void tell_done(dart_gptr_t g)
{
  long one = 1;
  dart_gptr_t done = os_at(g, 0, DONE * sizeof(long));
  TEST_OK(dart_accumulate(done, &one, 1, DART_TYPE_LONG, DART_OP_SUM));
  TEST_OK(dart_flush(done));
}

/* One round of both phases on memory g (mine: unit 0's portion). */
static void run(dart_gptr_t g, long *mine, const char *kind)
{
  memset(mine, 0, (SLOTS + 8) * sizeof(long));
  os_barrier();
  for (int phase = 0; phase < 2; phase++) {
    /* phase 0: the target sleeps; phase 1: it computes */
    os_barrier();
    if (me == 0) {
      long want = (long)(nunits - 1) * (phase + 1);
      double dt = away_until_done(phase == 0, mine, want);
      printf("  unit 0, %s, %s: away from DART %.1f ms until the origins "
             "were done\n",
             kind, phase ? "computing" : "sleeping", 1e3 * dt);
    } else {
      double worst[NOPS], t0 = os_now();
      accesses(g, phase, worst);
      tell_done(g);
      double total = os_now() - t0;
      char line[256];
      int len = 0;
      for (int op = 0; op < NOPS; op++)
        len += snprintf(line + len, sizeof line - (size_t)len, " %s %.1f",
                        op_name[op], 1e3 * worst[op]);
      printf("  unit %d, %s, %s: all %.1f ms; worst ms:%s\n", me, kind,
             phase ? "computing" : "sleeping", 1e3 * total, line);
    }
    os_barrier();
    if (me == 0) {
      for (int u = 1; u < nunits; u++) TEST_CHECK(mine[u] == 1000 * phase + u);
      TEST_CHECK(mine[CTR] == 2L * ROUNDS * (nunits - 1) * (phase + 1));
      TEST_CHECK(mine[DONE] == (long)(nunits - 1) * (phase + 1));
    }
  }
  os_barrier();
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_MULTIPLE) {
    /* No progress thread below MPI_THREAD_MULTIPLE (e.g. Open MPI's
     * osc/pt2pt, which refuses windows there): a target away from DART
     * stalls its origins by design (docs/design.md 5.4). */
    if (me == 0)
      printf("test_progress: skipped: MPI thread level %d, no progress "
             "thread\n",
             level);
    TEST_OK(dart_exit());
    return 77;
  }
  const size_t bytes = (SLOTS + 8) * sizeof(long);
  dart_gptr_t g;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &g));
  run(g, os_local(g), "allocated");
  TEST_OK(dart_team_memfree(g));
  long *buf = calloc(1, bytes);
  TEST_CHECK(buf != NULL);
  TEST_OK(dart_team_memregister(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, buf, &g));
  run(g, buf, "registered");
  TEST_OK(dart_team_memderegister(g));
  free(buf);
  TEST_OK(dart_exit());
  if (me == 0) printf("test_progress: OK (%d units)\n", nunits);
  return 0;
}
