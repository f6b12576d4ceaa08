/*
 * The handle tests never block: while a peer is away from DART (in a loop
 * that makes no DART or MPI call), a unit tests handles of puts and gets
 * directed at it with dart_test_local, dart_test, dart_testall and
 * dart_testall_local. The peer comes back only when the origin tells it
 * so, after PASSES rounds of test calls (or when every handle is done):
 * a call that waited for the peer would never return, the origin would
 * never tell, and the peer notices after cap_s and fails the test
 * (calls that are merely slow under load just take longer). The word the
 * origin sets lives in an MPI shared-memory window of the test's own,
 * written and polled by plain loads and stores, so telling needs nothing
 * of the peer's MPI. Each test loop must eventually report done, and the
 * data must be in place. Across simulated nodes the transfers go through
 * MPI RMA; with the application starting MPI there is no progress thread,
 * so the peer serves nothing while away. Units on different hosts (no
 * shared memory between all of them): skipped.
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

enum { PASSES = 200 }; /* rounds of test calls while the peer is away */
static const double cap_s = 30.0; /* a peer away longer than this, or a
                                     test loop longer, fails          */

/* Per unit: how many of its origins released it in this round (shared
 * memory of the real node, plain loads and atomic adds; the unit clears
 * its own before the round's first barrier). */
static int *release_word[64];

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

/* Calls one test on a single handle unless it is done. */
static void test1(dart_handle_t *h, bool remote, int32_t *done)
{
  if (*done) return;
  if (remote)
    TEST_OK(dart_test(h, done));
  else
    TEST_OK(dart_test_local(h, done));
  if (*done) TEST_CHECK(*h == DART_HANDLE_NULL);
}

/* Calls one testall unless done. */
static void testn(dart_handle_t *hs, size_t n, bool remote, int32_t *done)
{
  if (*done) return;
  if (remote)
    TEST_OK(dart_testall(hs, n, done));
  else
    TEST_OK(dart_testall_local(hs, n, done));
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
  int pass = 0;
  while (!all_set(d, 7)) {
    /* every test call so far returned while the peer was away */
    if (++pass == PASSES && target != me)
      __atomic_fetch_add(release_word[target], 1, __ATOMIC_RELEASE);
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
  if (pass < PASSES && target != me) /* all done while the peer was away */
    __atomic_fetch_add(release_word[target], 1, __ATOMIC_RELEASE);
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
  /* the origins that work on this unit in this round */
  int origins = 0;
  for (int o = 0; o < nunits && busy; o++)
    origins += o % 2 != round % 2 && peer_of(o) == me;
  for (int i = 0; i < 2 * BLK; i++) mine[GET_OFF + i] = get_val(me, round, i);
  __atomic_store_n(release_word[me], 0, __ATOMIC_RELAXED);
  os_barrier();
  if (busy) {
    /* away from DART and MPI until the origin releases this unit: nobody's
     * transfer is served meanwhile (unless a progress thread does it) */
    double t0 = os_now();
    bool released = false;
    while (!(released = __atomic_load_n(release_word[me], __ATOMIC_ACQUIRE) >=
                        origins) &&
           os_now() - t0 < cap_s)
      usleep(1000);
    TEST_CHECK_MSG(released,
                   "round %d: released by %d of %d origins after %.0f s "
                   "away from DART: a test call of an origin waited for "
                   "this unit",
                   round, __atomic_load_n(release_word[me], __ATOMIC_RELAXED),
                   origins, cap_s);
  } else {
    usleep(50000); /* let the peer leave the barrier */
    origin(g, peer_of(me), round, strided);
  }
  os_barrier();
  if (busy || nunits == 1) check_slots(mine, round);
  os_barrier();
}

/* The release words: one int per unit in a shared window of the real
 * node. 0 if all units share it, else 77 (skip). */
static int release_words(MPI_Win *win)
{
  MPI_Comm node;
  int nsize = 0;
  TEST_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, me,
                                 MPI_INFO_NULL, &node) == MPI_SUCCESS);
  MPI_Comm_size(node, &nsize);
  if (nsize != nunits || nunits > 64) {
    MPI_Comm_free(&node);
    return 77;
  }
  int *base = NULL;
  TEST_CHECK(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL,
                                     node, &base, win) == MPI_SUCCESS);
  *base = 0;
  for (int u = 0; u < nunits; u++) {
    MPI_Aint sz;
    int du;
    TEST_CHECK(MPI_Win_shared_query(*win, u, &sz, &du, &release_word[u]) ==
               MPI_SUCCESS);
  }
  MPI_Comm_free(&node);
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  MPI_Win rwin = MPI_WIN_NULL;
  if (release_words(&rwin) != 0) {
    if (me == 0)
      printf("test_handles_nonblock: skipped (units on different hosts)\n");
    TEST_OK(dart_exit());
    return 77;
  }
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
  MPI_Win_free(&rwin);
  TEST_OK(dart_exit());
  if (me == 0) printf("test_handles_nonblock: OK (%d units)\n", nunits);
  return 0;
}
