/*
 * Data-movement collectives on DART_TEAM_ALL and two kinds of sub-teams,
 * with every root, basic and custom types and the in-place forms; then
 * two-sided send/recv/sendrecv rings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll_teams.h"

#define NE 5 /* elements per unit block */

/* Element i of the block that team unit u contributes (or owns). */
static int val(int u, int i)
{
  return u * 1000 + i + 1;
}

static void fill(int *buf, int u, int ne)
{
  for (int i = 0; i < ne; i++) buf[i] = val(u, i);
}

static void expect(const int *buf, int u, int ne)
{
  for (int i = 0; i < ne; i++)
    TEST_CHECK_MSG(buf[i] == val(u, i), "unit %d elem %d: %d", u, i, buf[i]);
}

static void test_bcast(const coll_team_t *t)
{
  for (int root = 0; root < t->size; root++) {
    int buf[NE] = {0};
    if (t->me == root) fill(buf, root, NE);
    TEST_OK(
        dart_bcast(buf, NE, DART_TYPE_INT, (dart_team_unit_t){root}, t->id));
    expect(buf, root, NE);
    /* raw bytes, as DASH broadcasts gptrs */
    char b[16] = {0};
    if (t->me == root) memset(b, 'a' + root, sizeof b);
    TEST_OK(dart_bcast(b, sizeof b, DART_TYPE_BYTE, (dart_team_unit_t){root},
                       t->id));
    for (int i = 0; i < 16; i++) TEST_CHECK(b[i] == 'a' + root);
  }
}

static void test_scatter_gather(const coll_team_t *t)
{
  int n = t->size;
  int *all = malloc(sizeof(int) * NE * n);
  for (int root = 0; root < n; root++) {
    int mine[NE] = {0};
    bool is_root = t->me == root;
    for (int u = 0; u < n; u++) fill(all + u * NE, u, NE);
    TEST_OK(dart_scatter(is_root ? all : NULL, mine, NE, DART_TYPE_INT,
                         (dart_team_unit_t){root}, t->id));
    expect(mine, t->me, NE);
    /* in place at root: its own block stays where it is */
    for (int u = 0; u < n; u++) fill(all + u * NE, u, NE);
    memset(mine, 0, sizeof mine);
    TEST_OK(dart_scatter(is_root ? all : NULL, is_root ? all + root * NE : mine,
                         NE, DART_TYPE_INT, (dart_team_unit_t){root}, t->id));
    expect(is_root ? all + root * NE : mine, t->me, NE);

    fill(mine, t->me, NE);
    memset(all, 0, sizeof(int) * NE * n);
    TEST_OK(dart_gather(mine, is_root ? all : NULL, NE, DART_TYPE_INT,
                        (dart_team_unit_t){root}, t->id));
    if (is_root)
      for (int u = 0; u < n; u++) expect(all + u * NE, u, NE);
    /* in place at root */
    memset(all, 0, sizeof(int) * NE * n);
    if (is_root) fill(all + root * NE, root, NE);
    TEST_OK(dart_gather(is_root ? all + root * NE : mine, all, NE,
                        DART_TYPE_INT, (dart_team_unit_t){root}, t->id));
    if (is_root)
      for (int u = 0; u < n; u++) expect(all + u * NE, u, NE);
  }
  free(all);
}

/* mode 0: separate buffers, 1: sendbuf NULL, 2: sendbuf == recvbuf,
 * 3: sendbuf == own slot of recvbuf */
static void test_allgather(const coll_team_t *t)
{
  int n = t->size;
  int *all = malloc(sizeof(int) * NE * n);
  for (int mode = 0; mode < 4; mode++) {
    int mine[NE];
    fill(mine, t->me, NE);
    memset(all, 0, sizeof(int) * NE * n);
    if (mode > 0) fill(all + t->me * NE, t->me, NE);
    const void *send = mode == 0   ? mine
                       : mode == 1 ? NULL
                       : mode == 2 ? (void *)all
                                   : (void *)(all + t->me * NE);
    TEST_OK(dart_allgather(send, all, NE, DART_TYPE_INT, t->id));
    for (int u = 0; u < n; u++) expect(all + u * NE, u, NE);
  }
  free(all);
}

/* Unit u contributes u % 3 elements (some contribute none); blocks are
 * stored in reverse unit order to exercise the displacements. */
static void test_allgatherv(const coll_team_t *t)
{
  int n = t->size;
  size_t *cnt = malloc(sizeof(size_t) * n), *dsp = malloc(sizeof(size_t) * n);
  size_t total = 0;
  for (int u = n - 1; u >= 0; u--) {
    cnt[u] = (size_t)(u % 3);
    dsp[u] = total;
    total += cnt[u] + 1; /* one-element gap */
  }
  int *all = malloc(sizeof(int) * (total + 1));
  for (int in_place = 0; in_place < 2; in_place++) {
    int mine[3];
    fill(mine, t->me, 3);
    for (size_t i = 0; i <= total; i++) all[i] = -7;
    if (in_place) fill(all + dsp[t->me], t->me, (int)cnt[t->me]);
    TEST_OK(dart_allgatherv(in_place ? NULL : mine, cnt[t->me], DART_TYPE_INT,
                            all, cnt, dsp, t->id));
    for (int u = 0; u < n; u++) {
      expect(all + dsp[u], u, (int)cnt[u]);
      TEST_CHECK(all[dsp[u] + cnt[u]] == -7); /* gaps untouched */
    }
  }
  free(all);
  free(cnt);
  free(dsp);
}

static void test_alltoall(const coll_team_t *t)
{
  int n = t->size;
  long long *snd = malloc(sizeof(long long) * NE * n);
  long long *rcv = malloc(sizeof(long long) * NE * n);
  for (int in_place = 0; in_place < 3; in_place++) {
    long long *dst = in_place ? snd : rcv;
    for (int j = 0; j < n; j++)
      for (int e = 0; e < NE; e++) snd[j * NE + e] = t->me * 10000 + j * 10 + e;
    memset(rcv, 0, sizeof(long long) * NE * n);
    TEST_OK(dart_alltoall(in_place == 1 ? NULL : snd, dst, NE,
                          DART_TYPE_LONGLONG, t->id));
    for (int i = 0; i < n; i++)
      for (int e = 0; e < NE; e++)
        TEST_CHECK(dst[i * NE + e] == i * 10000 + t->me * 10 + e);
  }
  free(snd);
  free(rcv);
}

/* A 12-byte struct as a custom type through bcast, allgather, scatter. */
typedef struct {
  int a;
  float b;
  short c;
  char d[2];
} rec_t;

static void test_custom(const coll_team_t *t)
{
  dart_datatype_t rt;
  TEST_OK(dart_type_create_custom(sizeof(rec_t), &rt));
  int n = t->size;
  rec_t *all = calloc((size_t)n * 2, sizeof(rec_t)), mine[2];
  for (int k = 0; k < 2; k++)
    mine[k] = (rec_t){
        t->me * 10 + k, 0.5f * (float)t->me, (short)-t->me, {'x', (char)k}};
  TEST_OK(dart_allgather(mine, all, 2, rt, t->id));
  for (int u = 0; u < n; u++)
    for (int k = 0; k < 2; k++) {
      rec_t *r = &all[u * 2 + k];
      TEST_CHECK(r->a == u * 10 + k && r->b == 0.5f * (float)u && r->c == -u);
      TEST_CHECK(r->d[0] == 'x' && r->d[1] == k);
    }
  rec_t one = {0};
  if (t->me == n - 1) one = mine[1];
  TEST_OK(dart_bcast(&one, 1, rt, (dart_team_unit_t){n - 1}, t->id));
  TEST_CHECK(one.a == (n - 1) * 10 + 1);
  TEST_OK(dart_scatter(all, &one, 1, rt, (dart_team_unit_t){0}, t->id));
  TEST_CHECK(one.a == (t->me / 2) * 10 + t->me % 2); /* block me of all */
  TEST_OK(dart_type_destroy(&rt));
  free(all);
}

/* Ring over all units: blocking send/recv (even units send first) with a
 * message large enough for a rendezvous protocol, then sendrecv. */
static void test_p2p(void)
{
  dart_global_unit_t gme;
  size_t n;
  TEST_OK(dart_myid(&gme));
  TEST_OK(dart_size(&n));
  int me = gme.id, nu = (int)n;
  dart_global_unit_t next = {(me + 1) % nu}, prev = {(me + nu - 1) % nu};
  enum { BIG = 64 * 1024 };
  int *out = malloc(sizeof(int) * BIG), *in = malloc(sizeof(int) * BIG);
  fill(out, me, BIG);
  if (nu > 1) {
    if (me % 2 == 0) {
      TEST_OK(dart_send(out, BIG, DART_TYPE_INT, 7, next));
      TEST_OK(dart_recv(in, BIG, DART_TYPE_INT, 7, prev));
    } else {
      TEST_OK(dart_recv(in, BIG, DART_TYPE_INT, 7, prev));
      TEST_OK(dart_send(out, BIG, DART_TYPE_INT, 7, next));
    }
    expect(in, prev.id, BIG);
  }
  memset(in, 0, sizeof(int) * BIG);
  TEST_OK(dart_sendrecv(out, BIG, DART_TYPE_INT, 10016, next, in, BIG,
                        DART_TYPE_INT, 10016, prev));
  expect(in, prev.id, BIG);
  TEST_OK(dart_sendrecv(NULL, 0, DART_TYPE_INT, 5, next, NULL, 0, DART_TYPE_INT,
                        5, prev));
  /* Pairs (2k, 2k+1): messages with two tags in flight at once, then two
   * messages with the same tag that must arrive in order, then a
   * zero-length message received into a larger buffer. */
  int p = me ^ 1;
  if (p < nu) {
    dart_global_unit_t pu = {p};
    int a = me, r1 = -1, r2 = -1, tag_out = 1 + me % 2, tag_in = 1 + p % 2;
    TEST_OK(dart_sendrecv(&a, 1, DART_TYPE_INT, tag_out, pu, &r1, 1,
                          DART_TYPE_INT, tag_in, pu));
    TEST_CHECK(r1 == p);
    if (me % 2 == 0) {
      int x1 = 11, x2 = 22;
      TEST_OK(dart_send(&x1, 1, DART_TYPE_INT, 5, pu));
      TEST_OK(dart_send(&x2, 1, DART_TYPE_INT, 5, pu));
      TEST_OK(dart_send(NULL, 0, DART_TYPE_DOUBLE, 6, pu));
    } else {
      TEST_OK(dart_recv(&r1, 1, DART_TYPE_INT, 5, pu));
      TEST_OK(dart_recv(&r2, 1, DART_TYPE_INT, 5, pu));
      TEST_CHECK(r1 == 11 && r2 == 22);
      TEST_OK(dart_recv(&r1, 1, DART_TYPE_INT, 6, pu)); /* at most 1 */
    }
  }
  free(out);
  free(in);
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  coll_team_t teams[COLL_NTEAMS];
  coll_teams_create(teams);
  for (int k = 0; k < COLL_NTEAMS; k++) {
    const coll_team_t *t = &teams[k];
    test_bcast(t);
    test_scatter_gather(t);
    test_allgather(t);
    test_allgatherv(t);
    test_alltoall(t);
    test_custom(t);
  }
  test_p2p();
  coll_teams_destroy(teams);
  TEST_OK(dart_exit());
  return 0;
}
