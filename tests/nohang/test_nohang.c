/*
 * Programs that used to hang (issue 12), each checked on its data:
 *  - the halo-flag pattern: every unit puts a flag into its right
 *    neighbour's memory with dart_put_blocking and polls its own flag with
 *    dart_get_blocking, on allocated and on registered memory (the owner's
 *    polling must let the neighbour's put complete, progress thread or not);
 *  - emulated small atomics: all units add to one short, one char and one
 *    long double on unit 0's registered memory (the units waiting for the
 *    lock word must progress the holder's get and put);
 *  - handles outliving their memory: transfers started with handles (one
 *    released with dart_handle_free) and the segment freed before the
 *    handles are waited for (a registration's bytes are freed only after
 *    every unit's waits: peers may still be reading them);
 *  - a bad argument on one unit only in dart_team_create: every unit gets
 *    DART_ERR_INVAL, nobody waits in the communicator split;
 *  - a NULL buffer on one unit only in dart_bcast, dart_allreduce,
 *    dart_allgather and dart_reduce: that unit and every unit receiving
 *    its data get DART_ERR_INVAL, the others complete with correct data.
 * CTest runs it on one node, on simulated nodes, with MPI initialized by
 * the application (no progress thread) and with DART_PROGRESS=none.
 */
#include <unistd.h>

#include "os_common.h"

enum { ROUNDS = 20, FOPS = 40 };

/* Memory under test: a team allocation or a registration of `bytes`. */
typedef struct {
  dart_gptr_t g;
  char *local;
  void *reg_buf;
} mem_t;

static mem_t mem_make(bool registered, size_t bytes)
{
  mem_t m = {DART_GPTR_NULL, NULL, NULL};
  if (registered) {
    m.reg_buf = calloc(1, bytes);
    TEST_CHECK(m.reg_buf != NULL);
    TEST_OK(dart_team_memregister(DART_TEAM_ALL, bytes, DART_TYPE_BYTE,
                                  m.reg_buf, &m.g));
    m.local = m.reg_buf;
  } else {
    TEST_OK(
        dart_team_memalloc_aligned(DART_TEAM_ALL, bytes, DART_TYPE_BYTE, &m.g));
    m.local = os_local(m.g);
    memset(m.local, 0, bytes);
  }
  return m;
}

static void mem_free(mem_t *m)
{
  if (m->reg_buf != NULL) {
    TEST_OK(dart_team_memderegister(m->g));
    free(m->reg_buf);
  } else {
    TEST_OK(dart_team_memfree(m->g));
  }
}

/* Halo flags: round r's flag of unit u is r * 1000 + u + 1. */
static void flag_ring(bool registered)
{
  mem_t m = mem_make(registered, sizeof(long));
  os_barrier();
  int right = (me + 1) % nunits, left = (me + nunits - 1) % nunits;
  for (long r = 1; r <= ROUNDS; r++) {
    long mine = r * 1000 + me + 1, want = r * 1000 + left + 1, seen = 0;
    if ((r + me) % 3 == 0) usleep(2000); /* arrive in varying order */
    TEST_OK(dart_put_blocking(os_at(m.g, right, 0), &mine, 1, DART_TYPE_LONG,
                              DART_TYPE_LONG));
    double t0 = os_now();
    while (seen < want) {
      TEST_OK(dart_get_blocking(&seen, os_at(m.g, me, 0), 1, DART_TYPE_LONG,
                                DART_TYPE_LONG));
      TEST_CHECK_MSG(os_now() - t0 < 30, "round %ld: flag %ld never came", r,
                     want);
    }
    TEST_CHECK_MSG(seen == want, "round %ld: flag %ld, expected %ld", r, seen,
                   want);
    os_barrier(); /* nobody overwrites a flag before its owner saw it */
  }
  mem_free(&m);
}

/* Additions per unit to the char (its sum must stay below 128). */
static int char_fops(void)
{
  return FOPS < 100 / nunits ? FOPS : 100 / nunits;
}

/* All units add 1 to three small elements on unit 0, FOPS times each. */
static void small_atomics(void)
{
  enum { OFF_S = 0, OFF_C = 2, OFF_LD = 16 };
  mem_t m = mem_make(true, 32);
  os_barrier();
  short s1 = 1, so;
  char c1 = 1, co;
  long double l1 = 1, lo;
  for (int i = 0; i < FOPS; i++) {
    dart_gptr_t gs = os_at(m.g, 0, OFF_S), gc = os_at(m.g, 0, OFF_C);
    dart_gptr_t gl = os_at(m.g, 0, OFF_LD);
    TEST_OK(dart_fetch_and_op(gs, &s1, &so, DART_TYPE_SHORT, DART_OP_SUM));
    TEST_OK(dart_flush(gs));
    if (i < char_fops()) { /* a char holds up to 127 */
      TEST_OK(dart_fetch_and_op(gc, &c1, &co, DART_TYPE_BYTE, DART_OP_SUM));
      TEST_OK(dart_flush(gc));
    }
    TEST_OK(
        dart_fetch_and_op(gl, &l1, &lo, DART_TYPE_LONG_DOUBLE, DART_OP_SUM));
    TEST_OK(dart_flush(gl));
  }
  os_barrier();
  if (me == 0) {
    short s;
    char c;
    long double l;
    memcpy(&s, m.local + OFF_S, sizeof s);
    memcpy(&c, m.local + OFF_C, sizeof c);
    memcpy(&l, m.local + OFF_LD, sizeof l);
    TEST_CHECK_MSG(s == FOPS * nunits, "short sum %d, expected %d", s,
                   FOPS * nunits);
    TEST_CHECK_MSG(c == char_fops() * nunits, "char sum %d", c);
    TEST_CHECK_MSG(l == (long double)(FOPS * nunits), "long double sum %Lf", l);
  }
  os_barrier();
  mem_free(&m);
}

/* Transfers with handles, the memory freed before the handles are done. */
static void handles_outlive(bool registered)
{
  enum { N = 256 };
  mem_t m = mem_make(registered, 2 * N * sizeof(int));
  int *mine = (int *)m.local;
  for (int i = 0; i < N; i++) mine[i] = me * 100000 + i;
  os_barrier();
  int right = (me + 1) % nunits;
  int got[N], dropped[N], out[N];
  for (int i = 0; i < N; i++) out[i] = -i;
  dart_handle_t hg, hd, hp;
  TEST_OK(dart_get_handle(got, os_at(m.g, right, 0), N, DART_TYPE_INT,
                          DART_TYPE_INT, &hg));
  TEST_OK(dart_get_handle(dropped, os_at(m.g, right, 0), N, DART_TYPE_INT,
                          DART_TYPE_INT, &hd));
  TEST_OK(dart_put_handle(os_at(m.g, right, N * sizeof(int)), out, N,
                          DART_TYPE_INT, DART_TYPE_INT, &hp));
  TEST_OK(dart_handle_free(&hd));
  TEST_CHECK(hd == DART_HANDLE_NULL);
  /* Nobody may free before every unit started its transfers. */
  os_barrier();
  /* The segment goes now, the registered bytes only once every unit's
   * gets are done: a peer may still be reading them (memory the owner
   * freed and reused under a reader's get holds anything). */
  void *reg_buf = m.reg_buf;
  m.reg_buf = NULL;
  if (reg_buf != NULL)
    TEST_OK(dart_team_memderegister(m.g));
  else
    mem_free(&m);
  TEST_OK(dart_wait(&hg));
  TEST_OK(dart_wait(&hp));
  TEST_CHECK(hg == DART_HANDLE_NULL && hp == DART_HANDLE_NULL);
  for (int i = 0; i < N; i++)
    TEST_CHECK_MSG(got[i] == right * 100000 + i, "%s: got[%d] = %d",
                   registered ? "registered" : "allocated", i, got[i]);
  os_barrier();
  free(reg_buf);
}

/* dart_team_create with a bad argument on the last unit only (NULL
 * output pointer); then a good creation on the same parent. */
static void team_create_one_bad(void)
{
  dart_group_t g;
  TEST_OK(dart_group_create(&g));
  for (int u = 0; u < nunits; u++) {
    dart_global_unit_t gu = {u};
    TEST_OK(dart_group_addmember(g, gu));
  }
  dart_team_t t = 123;
  TEST_EQ_RET(dart_team_create(DART_TEAM_ALL, g, me == nunits - 1 ? NULL : &t),
              DART_ERR_INVAL);
  if (me != nunits - 1) TEST_CHECK(t == DART_TEAM_NULL);
  TEST_OK(dart_team_create(DART_TEAM_ALL, g, &t));
  TEST_CHECK(t != DART_TEAM_NULL);
  TEST_OK(dart_team_destroy(&t));
  TEST_OK(dart_group_destroy(&g));
}

/* Collectives with a bad buffer on the last unit only: every unit that
 * receives data from it gets DART_ERR_INVAL too (never its zeros), the
 * others complete with correct data, nobody waits for it; the next call
 * is correct everywhere. */
static void coll_one_bad(void)
{
  int last = nunits - 1;
  bool bad = me == last;
  long v[3] = {7, 8, 9}, sum[3] = {0, 0, 0};
  dart_team_unit_t root = {0};
  if (me != 0) v[0] = v[2] = 0;
  /* a non-root's buffer: only that unit fails */
  TEST_EQ_RET(
      dart_bcast(bad ? NULL : v, 3, DART_TYPE_LONG, root, DART_TEAM_ALL),
      bad || nunits == 1 ? DART_ERR_INVAL : DART_OK);
  if (!bad)
    TEST_CHECK_MSG(v[0] == 7 && v[2] == 9, "bcast: %ld %ld", v[0], v[2]);
  long one = 1;
  TEST_EQ_RET(dart_allreduce(&one, bad ? NULL : sum, 1, DART_TYPE_LONG,
                             DART_OP_SUM, DART_TEAM_ALL),
              DART_ERR_INVAL);
  long all[64];
  TEST_EQ_RET(
      dart_allgather(&one, bad ? NULL : all, 1, DART_TYPE_LONG, DART_TEAM_ALL),
      DART_ERR_INVAL);
  /* the root's buffer: every unit fails */
  TEST_EQ_RET(dart_reduce(&one, bad ? NULL : sum, 1, DART_TYPE_LONG,
                          DART_OP_SUM, (dart_team_unit_t){last}, DART_TEAM_ALL),
              bad ? DART_ERR_INVAL : DART_OK);
  TEST_EQ_RET(dart_bcast(bad ? NULL : v, 3, DART_TYPE_LONG,
                         (dart_team_unit_t){last}, DART_TEAM_ALL),
              DART_ERR_INVAL);
  TEST_OK(
      dart_allreduce(&one, sum, 1, DART_TYPE_LONG, DART_OP_SUM, DART_TEAM_ALL));
  TEST_CHECK_MSG(sum[0] == nunits, "sum %ld after the failures, expected %d",
                 sum[0], nunits);
  os_barrier();
}

int main(int argc, char **argv)
{
  os_init(&argc, &argv);
  flag_ring(false);
  flag_ring(true);
  small_atomics();
  handles_outlive(false);
  handles_outlive(true);
  team_create_one_bad();
  coll_one_bad();
  os_barrier();
  TEST_OK(dart_exit());
  if (me == 0) printf("test_nohang: OK (%d units)\n", nunits);
  return 0;
}
