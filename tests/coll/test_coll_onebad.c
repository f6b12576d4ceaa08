/*
 * A bad buffer on one unit of a data collective (issue 24, items 4 and 5):
 * the units whose result depends on that unit's data get DART_ERR_INVAL
 * with it, the others DART_OK with correct data (docs/collectives.md), no
 * unit waits forever, and the next collective on the team is correct.
 *
 * For every collective, every team of coll_teams.h and every choice of
 * the bad unit (each unit in turn) and of the root (first and last unit),
 * every unit checks its return code against the documented semantics and
 * checks its data where it got DART_OK. Then bursts of bad calls with
 * units arriving at different times exercise the flag words' hand-over
 * (a unit running many collectives ahead of another). allgatherv also
 * with a NULL count or displacement array on one unit (that unit reads the
 * others' counts), including when all other counts are zero.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "coll_teams.h"

enum { N = 3, MAXU = 64 };

typedef enum {
  C_BCAST,
  C_SCATTER,
  C_GATHER,
  C_REDUCE,
  C_ALLGATHER,
  C_ALLGATHERV,
  C_ALLTOALL,
  C_ALLREDUCE,
  C_AGV_NOCOUNTS, /* allgatherv, bad unit: NULL nrecvelem */
  C_AGV_NODISPLS, /* allgatherv, bad unit: NULL recvdispls */
  C_COUNT
} coll_t;

static const char *names[C_COUNT] = {"bcast",
                                     "scatter",
                                     "gather",
                                     "reduce",
                                     "allgather",
                                     "allgatherv",
                                     "alltoall",
                                     "allreduce",
                                     "allgatherv "
                                     "(NULL counts)",
                                     "allgatherv (NULL "
                                     "displacements)"};

/* Value unit u contributes at element i of block k. */
static long val(int u, int k, int i)
{
  return 1000L * (u + 1) + 10L * k + i;
}

/* Expected return code of unit me when unit bad passes a bad buffer. */
static int expected(coll_t c, int me, int bad, int root)
{
  if (me == bad) return DART_ERR_INVAL;
  switch (c) {
  case C_BCAST:
  case C_SCATTER: return bad == root ? DART_ERR_INVAL : DART_OK;
  case C_GATHER:
  case C_REDUCE: return me == root ? DART_ERR_INVAL : DART_OK;
  default: return DART_ERR_INVAL;
  }
}

/* Runs collective c on team t with unit `bad` passing NULL (bad < 0:
 * nobody); returns the code and checks the data when it is DART_OK. */
static int run(coll_t c, const coll_team_t *t, int bad, int root)
{
  static long s[MAXU * N], r[MAXU * N];
  int n = t->size, me = t->me;
  bool isbad = me == bad;
  dart_team_unit_t rt = {root};
  for (int k = 0; k < n; k++)
    for (int i = 0; i < N; i++) s[k * N + i] = val(me, k, i);
  memset(r, 0xff, sizeof r);
  long *rb = isbad ? NULL : r;
  /* allgatherv: unit u sends 1 + u % N elements into block u */
  size_t cnt[MAXU], dsp[MAXU];
  for (int u = 0; u < n; u++)
    cnt[u] = 1 + (size_t)(u % N), dsp[u] = (size_t)u * N;
  int ret = DART_ERR_OTHER;
  switch (c) {
  case C_BCAST:
    if (me == root) memcpy(r, s, sizeof(long) * N);
    ret = dart_bcast(rb, N, DART_TYPE_LONG, rt, t->id);
    break;
  case C_SCATTER:
    ret = dart_scatter(isbad && me == root ? NULL : s, rb, N, DART_TYPE_LONG,
                       rt, t->id);
    break;
  case C_GATHER:
    ret = dart_gather(isbad ? NULL : s, r, N, DART_TYPE_LONG, rt, t->id);
    break;
  case C_REDUCE:
    /* non-root: NULL sendbuf and recvbuf; root: NULL recvbuf */
    ret = dart_reduce(isbad ? NULL : s, rb, N, DART_TYPE_LONG, DART_OP_SUM, rt,
                      t->id);
    break;
  case C_ALLGATHER:
    ret = dart_allgather(s, rb, N, DART_TYPE_LONG, t->id);
    break;
  case C_ALLGATHERV:
    ret = dart_allgatherv(s, cnt[me], DART_TYPE_LONG, rb, cnt, dsp, t->id);
    break;
  case C_AGV_NOCOUNTS:
  case C_AGV_NODISPLS:
    ret = dart_allgatherv(s, cnt[me], DART_TYPE_LONG, r,
                          isbad && c == C_AGV_NOCOUNTS ? NULL : cnt,
                          isbad && c == C_AGV_NODISPLS ? NULL : dsp, t->id);
    break;
  case C_ALLTOALL: ret = dart_alltoall(s, rb, N, DART_TYPE_LONG, t->id); break;
  case C_ALLREDUCE:
    ret = dart_allreduce(s, rb, N, DART_TYPE_LONG, DART_OP_SUM, t->id);
    break;
  default: break;
  }
  if (ret != DART_OK) return ret;
  for (int i = 0; i < N; i++) {
    long sum = 0;
    for (int u = 0; u < n; u++) sum += val(u, 0, i);
    switch (c) {
    case C_BCAST:
      TEST_CHECK_MSG(r[i] == val(root, 0, i), "bcast r[%d] = %ld", i, r[i]);
      break;
    case C_SCATTER:
      TEST_CHECK_MSG(r[i] == val(root, me, i), "scatter r[%d] = %ld", i, r[i]);
      break;
    case C_GATHER:
      for (int u = 0; me == root && u < n; u++)
        TEST_CHECK_MSG(r[u * N + i] == val(u, 0, i), "gather r[%d]", u * N + i);
      break;
    case C_REDUCE:
    case C_ALLREDUCE:
      if (c == C_ALLREDUCE || me == root)
        TEST_CHECK_MSG(r[i] == sum, "%s r[%d] = %ld, expected %ld", names[c], i,
                       r[i], sum);
      break;
    case C_ALLGATHER:
    case C_ALLGATHERV:
    case C_AGV_NOCOUNTS:
    case C_AGV_NODISPLS:
      for (int u = 0; u < n; u++) {
        bool v = c == C_ALLGATHER || (size_t)i < cnt[u];
        long want = v ? val(u, 0, i) : -1; /* -1: untouched */
        TEST_CHECK_MSG(r[u * N + i] == want, "%s r[%d] = %ld", names[c],
                       u * N + i, r[u * N + i]);
      }
      break;
    case C_ALLTOALL:
      for (int u = 0; u < n; u++)
        TEST_CHECK_MSG(r[u * N + i] == val(u, me, i), "alltoall r[%d] = %ld",
                       u * N + i, r[u * N + i]);
      break;
    default: break;
    }
  }
  return ret;
}

/* Every collective with every bad unit and two roots on team t. */
static void one_bad_each(const coll_team_t *t)
{
  int roots[2] = {0, t->size - 1};
  for (int c = 0; c < C_COUNT; c++)
    for (int ri = 0; ri < 2; ri++)
      for (int bad = 0; bad < t->size; bad++) {
        int root = roots[ri];
        int want = expected((coll_t)c, t->me, bad, root);
        int got = run((coll_t)c, t, bad, root);
        TEST_CHECK_MSG(got == want,
                       "team %s: %s, bad unit %d, root %d: got %d, "
                       "expected %d",
                       t->name, names[c], bad, root, got, want);
        /* the next collective is correct on every unit */
        TEST_OK(run(C_ALLREDUCE, t, -1, 0));
      }
}

/*
 * Bursts: units arrive late at random points while the root of a run of
 * broadcasts (which need nobody else to finish) or a non-root of a run of
 * reduces passes bad buffers: every flag must reach the right call.
 */
static void bursts(const coll_team_t *t)
{
  enum { ROUNDS = 30 };
  for (int round = 0; round < ROUNDS; round++) {
    int bad = round % t->size, root = (round / 2) % t->size;
    coll_t c = (coll_t)(round % C_COUNT);
    if ((round + t->me) % 4 == 0) usleep(1000);
    int want = expected(c, t->me, bad, root);
    int got = run(c, t, bad, root);
    TEST_CHECK_MSG(got == want,
                   "burst %d (%s, bad %d, root %d): got %d, "
                   "expected %d",
                   round, names[c], bad, root, got, want);
    if (round % 3 == 2) TEST_OK(run(C_BCAST, t, -1, root));
  }
  TEST_OK(run(C_ALLREDUCE, t, -1, 0));
}

/*
 * allgatherv where one unit passes no count array and the others counts
 * that are all zero: nothing moves, the unit without counts learns that
 * from the others' count words and returns DART_ERR_INVAL, the others
 * DART_OK; nobody waits. Then the same with every unit's array NULL.
 */
static void agv_zero_counts(const coll_team_t *t)
{
  size_t cnt[MAXU] = {0}, dsp[MAXU] = {0};
  long s[1] = {1}, r[1] = {-1};
  for (int bad = 0; bad < t->size; bad++) {
    if ((bad + t->me) % 3 == 0) usleep(1000);
    int got = dart_allgatherv(s, 0, DART_TYPE_LONG, r,
                              t->me == bad ? NULL : cnt, dsp, t->id);
    TEST_CHECK_MSG(got == (t->me == bad ? DART_ERR_INVAL : DART_OK),
                   "team %s: zero counts, bad unit %d: got %d", t->name, bad,
                   got);
    TEST_CHECK(r[0] == -1);
  }
  TEST_EQ_RET(dart_allgatherv(s, 1, DART_TYPE_LONG, r, NULL, NULL, t->id),
              DART_ERR_INVAL);
  TEST_CHECK(r[0] == -1);
  TEST_OK(run(C_ALLREDUCE, t, -1, 0));
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  coll_team_t teams[COLL_NTEAMS];
  coll_teams_create(teams);
  TEST_CHECK(teams[0].size <= MAXU);
  for (int k = 0; k < COLL_NTEAMS; k++) {
    one_bad_each(&teams[k]);
    bursts(&teams[k]);
    agv_zero_counts(&teams[k]);
  }
  coll_teams_destroy(teams);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  if (teams[0].me == 0)
    printf("test_coll_onebad: OK (%d units)\n", teams[0].size);
  TEST_OK(dart_exit());
  return 0;
}
