/*
 * The handle tests never block: while a peer is busy outside DART for
 * about a second (sleeping, no MPI call), a unit tests handles of puts and
 * gets directed at it with dart_test_local, dart_test, dart_testall and
 * dart_testall_local, timing every call. No call may wait for the peer:
 * a call that lasts longer than bound_s and returns only when the peer's
 * busy time is over fails (a call that waits cannot return before). A
 * call that is merely slow, because the machine is loaded and the unit
 * was not scheduled, returns while the peer is still busy and passes: the
 * test checks that calls do not wait, not how fast they are. Each test
 * loop must eventually report done, and the data must be in place. Across
 * simulated
 * nodes the transfers go through MPI RMA; with the application starting
 * MPI there is no progress thread, so the peer serves nothing while busy.
 */
#include <stdbool.h>
#include <unistd.h>

#include "os_common.h"

enum {
  BLK = 512,         /* longs per put block and per get */
  NPUT = 4,          /* put blocks per origin            */
  SLOT = NPUT * BLK, /* longs per origin on a target     */
  GET_OFF = 0,       /* get area: the first 2 * BLK longs */
  PUT_OFF = 2 * BLK, /* origin o's slot: PUT_OFF + o * SLOT */
  NGET = 5           /* gets issued per round             */
};

static const double busy_s = 1.0;  /* the peer's time outside DART */
static const double bound_s = 0.2; /* a call longer than this must   */
static const double slack_s = 0.1; /* have returned this long before
                                      the peer could serve it again   */
static const double cap_s = 30.0;  /* a test loop longer than this fails */

static double worst;   /* longest test call seen */
static double free_at; /* when the busy peer is back in DART (at the
                          earliest, as this unit's clock sees it)   */
static int slow;       /* calls longer than bound_s (load, not waits) */

static long put_val(int origin, int round, int blk, int i)
{
  return ((long)origin * 1000 + round * 100 + blk) * 10000 + i;
}

static long get_val(int target, int round, int i)
{
  return -(((long)target * 1000 + round) * 100000 + i);
}

/* The busy unit that unit u works on when it is an origin: its partner of
 * opposite parity (the unit itself when it is alone). */
static int peer_of(int u)
{
  if (nunits == 1) return u;
  return (u ^ 1) < nunits ? (u ^ 1) : u - 1;
}

static void check_time(double t0, const char *call)
{
  double t1 = os_now(), dt = t1 - t0;
  if (dt > worst) worst = dt;
  if (dt < bound_s) return;
  slow++;
  TEST_CHECK_MSG(t1 < free_at - slack_s,
                 "%s took %.3f s and returned only %.3f s before the peer "
                 "was back (busy for %.1f s): it waited for the peer",
                 call, dt, free_at - t1, busy_s);
}

/* Calls one test on a single handle unless it is done; times it. */
static void test1(dart_handle_t *h, bool remote, int32_t *done)
{
  if (*done) return;
  double t0 = os_now();
  if (remote)
    TEST_OK(dart_test(h, done));
  else
    TEST_OK(dart_test_local(h, done));
  check_time(t0, remote ? "dart_test" : "dart_test_local");
  if (*done) TEST_CHECK(*h == DART_HANDLE_NULL);
}

/* Calls one testall unless done; times it. */
static void testn(dart_handle_t *hs, size_t n, bool remote, int32_t *done)
{
  if (*done) return;
  double t0 = os_now();
  if (remote)
    TEST_OK(dart_testall(hs, n, done));
  else
    TEST_OK(dart_testall_local(hs, n, done));
  check_time(t0, remote ? "dart_testall" : "dart_testall_local");
  if (*done)
    for (size_t i = 0; i < n; i++) TEST_CHECK(hs[i] == DART_HANDLE_NULL);
}

static bool all_set(const int32_t *d, int n)
{
  for (int i = 0; i < n; i++)
    if (!d[i]) return false;
  return true;
}

/* Origin side of a round: issues everything at once, then tests all
 * handles in turn until all are done. */
static void origin(dart_gptr_t g, int target, int round,
                   dart_datatype_t strided)
{
  static long src[NPUT][BLK], got[NGET][BLK];
  for (int b = 0; b < NPUT; b++)
    for (int i = 0; i < BLK; i++) src[b][i] = put_val(me, round, b, i);
  memset(got, 0, sizeof got);
  size_t slot = sizeof(long) * (size_t)(PUT_OFF + me * SLOT);
  dart_handle_t h[NPUT + NGET];
  for (int b = 0; b < NPUT; b++)
    TEST_OK(dart_put_handle(os_at(g, target, slot + sizeof src[b] * b), src[b],
                            BLK, DART_TYPE_LONG, DART_TYPE_LONG, &h[b]));
  dart_gptr_t ga = os_at(g, target, GET_OFF);
  for (int k = 0; k < NGET - 1; k++)
    TEST_OK(dart_get_handle(got[k], ga, BLK, DART_TYPE_LONG, DART_TYPE_LONG,
                            &h[NPUT + k]));
  /* every other long: a get without request (completed by a flush) */
  TEST_OK(dart_get_handle(got[NGET - 1], ga, BLK, strided, DART_TYPE_LONG,
                          &h[NPUT + NGET - 1]));
  /* the testall groups: {put 2, NULL, get 2}, {put 3, get 3} */
  dart_handle_t all3[3] = {h[2], DART_HANDLE_NULL, h[NPUT + 2]};
  dart_handle_t all4[2] = {h[3], h[NPUT + 3]};
  int32_t d[7] = {0};
  double start = os_now();
  while (!all_set(d, 7)) {
    test1(&h[0], false, &d[0]);
    test1(&h[1], true, &d[1]);
    testn(all3, 3, true, &d[2]);
    testn(all4, 2, false, &d[3]);
    test1(&h[NPUT], false, &d[4]);
    test1(&h[NPUT + 1], true, &d[5]);
    test1(&h[NPUT + NGET - 1], false, &d[6]);
    TEST_CHECK_MSG(os_now() - start < cap_s, "test loop not done after %.0f s",
                   cap_s);
  }
  for (int k = 0; k < NGET; k++) {
    if (k == 2 || k == 3) continue; /* part of the testall groups: below */
    for (int i = 0; i < BLK; i++) {
      long want = get_val(target, round, k == NGET - 1 ? 2 * i : i);
      TEST_CHECK_MSG(got[k][i] == want, "get %d [%d]: %ld, want %ld", k, i,
                     got[k][i], want);
    }
  }
  for (int k = 2; k < 4; k++)
    for (int i = 0; i < BLK; i++)
      TEST_CHECK(got[k][i] == get_val(target, round, i));
  /* the local tests leave the remote completion of puts to a flush */
  TEST_OK(dart_flush_all(g));
}

/* Target side: checks what each origin put in the round. */
static void check_slots(const long *mine, int round)
{
  for (int o = 0; o < nunits; o++) {
    if ((o == me && nunits > 1) || peer_of(o) != me) continue;
    const long *s = mine + PUT_OFF + o * SLOT;
    for (int b = 0; b < NPUT; b++)
      for (int i = 0; i < BLK; i++)
        TEST_CHECK_MSG(s[b * BLK + i] == put_val(o, round, b, i),
                       "put from %d block %d [%d]: %ld", o, b, i,
                       s[b * BLK + i]);
  }
}

static void round_(dart_gptr_t g, long *mine, int round,
                   dart_datatype_t strided)
{
  bool busy = nunits > 1 && me % 2 == round % 2;
  for (int i = 0; i < 2 * BLK; i++) mine[GET_OFF + i] = get_val(me, round, i);
  os_barrier();
  if (busy) {
    /* away from DART and MPI: nobody's transfer is served meanwhile
     * (unless a progress thread does it) */
    usleep((useconds_t)(busy_s * 1e6));
  } else {
    /* the peer leaves the barrier at about the same time (if anything
     * earlier than this unit sees it: free_at errs late) */
    free_at = os_now() + busy_s;
    usleep(50000); /* let the peer leave the barrier */
    origin(g, peer_of(me), round, strided);
  }
  os_barrier();
  if (busy || nunits == 1) check_slots(mine, round);
  os_barrier();
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  dart_gptr_t g;
  size_t n = (size_t)(PUT_OFF + nunits * SLOT);
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, n, DART_TYPE_LONG, &g));
  long *mine = os_local(g);
  memset(mine, 0, n * sizeof(long));
  dart_datatype_t strided;
  TEST_OK(dart_type_create_strided(DART_TYPE_LONG, 2, 1, &strided));
  for (int round = 0; round < 2; round++) round_(g, mine, round, strided);
  TEST_OK(dart_type_destroy(&strided));
  TEST_OK(dart_team_memfree(g));
  TEST_OK(dart_exit());
  printf("test_handles_nonblock: unit %d longest test call %.4f s (%d calls "
         "over %.1f s, all returned while the peer was busy)\n",
         me, worst, slow, bound_s);
  if (me == 0) printf("test_handles_nonblock: OK (%d units)\n", nunits);
  return 0;
}
