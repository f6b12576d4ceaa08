/*
 * Send and receive with a bad argument on one side (issue 24): nobody
 * waits forever, the documented side(s) get DART_ERR_INVAL, nothing is
 * received where the sender was bad, and the next message with the same
 * tag arrives correctly and in order (docs/collectives.md, "Send and
 * receive with a bad argument").
 *
 * Units pair up (0-1, 2-3; an odd last unit talks to itself, with
 * sendrecv only). In every
 * scenario each side of a pair is the bad one in turn, with one side or
 * the other arriving late, small and large (rendezvous) messages.
 */
#define _DEFAULT_SOURCE
#include <dash/dart/if/dart.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dart_test.h"

enum { BIG = 1 << 18 }; /* ints: 1 MiB, beyond the eager limits */

static int me, nunits;
static int *out, *in;

static void fill(int *b, size_t n, int v)
{
  for (size_t i = 0; i < n; i++) b[i] = v + (int)i;
}

static void check(const int *b, size_t n, int v)
{
  for (size_t i = 0; i < n; i++)
    TEST_CHECK_MSG(b[i] == v + (int)i, "element %zu: %d, expected %d", i, b[i],
                   v + (int)i);
}

/* Every unit's return code and received data for one scenario: sender s
 * and receiver r (s == r: a unit alone), `bad` names the bad side
 * (0: sender, 1: receiver), late which side sleeps first. */
static void scenario(int s, int r, int bad, int late, size_t n, int round)
{
  dart_global_unit_t su = {s}, ru = {r};
  int tag = 40 + round % 3, v = 1000 * round;
  bool is_s = me == s, is_r = me == r;
  if ((late == 0 && is_s) || (late == 1 && is_r)) usleep(2000);
  if (is_s) {
    fill(out, n, v);
    int got = dart_send(bad == 0 ? NULL : out, n, DART_TYPE_INT, tag, ru);
    TEST_CHECK_MSG(got == (bad == 0 ? DART_ERR_INVAL : DART_OK),
                   "round %d: send got %d", round, got);
    /* the next message with the same tag */
    fill(out, n, v + 1);
    TEST_OK(dart_send(out, n, DART_TYPE_INT, tag, ru));
  }
  if (is_r) {
    memset(in, 0xff, n * sizeof(int));
    int got = dart_recv(bad == 1 ? NULL : in, n, DART_TYPE_INT, tag, su);
    TEST_CHECK_MSG(got == DART_ERR_INVAL, "round %d: recv got %d", round, got);
    for (size_t i = 0; i < n; i++) TEST_CHECK(in[i] == -1);
    TEST_OK(dart_recv(in, n, DART_TYPE_INT, tag, su));
    check(in, n, v + 1);
  }
}

/* sendrecv in a pair: unit `bad` passes a NULL send buffer (its partner
 * gets DART_ERR_INVAL for the receive) or a NULL receive buffer (its
 * partner's message is dropped, the partner gets DART_OK). */
static void sendrecv_scenario(int a, int b, int bad, int badrecv, int round)
{
  int p = me == a ? b : a, tag = 60 + round % 2, v = 100 * round;
  dart_global_unit_t pu = {p};
  int x = v + me, y = -1;
  bool is_bad = me == bad;
  int got =
      dart_sendrecv(is_bad && !badrecv ? NULL : &x, 1, DART_TYPE_INT, tag, pu,
                    is_bad && badrecv ? NULL : &y, 1, DART_TYPE_INT, tag, pu);
  int want = is_bad ? DART_ERR_INVAL : (badrecv ? DART_OK : DART_ERR_INVAL);
  if (a == b) want = DART_ERR_INVAL; /* alone: both sides are bad's */
  TEST_CHECK_MSG(got == want, "round %d: sendrecv got %d, expected %d", round,
                 got, want);
  if (got == DART_OK) TEST_CHECK(y == v + p);
  if (!is_bad && !badrecv) TEST_CHECK(y == -1);
  /* the next exchange is correct */
  TEST_OK(dart_sendrecv(&x, 1, DART_TYPE_INT, tag, pu, &y, 1, DART_TYPE_INT,
                        tag, pu));
  TEST_CHECK(y == v + p);
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t id;
  size_t sz;
  TEST_OK(dart_myid(&id));
  TEST_OK(dart_size(&sz));
  me = id.id;
  nunits = (int)sz;
  out = malloc(BIG * sizeof(int));
  in = malloc(BIG * sizeof(int));
  TEST_CHECK(out != NULL && in != NULL);
  int a = me - me % 2, b = a + 1 < nunits ? a + 1 : a;
  int round = 0;
  for (int dir = 0; dir < 2; dir++)
    for (int bad = 0; bad < 2; bad++)
      for (int late = 0; late < 2; late++)
        for (int big = 0; big < 2; big++) {
          int s = dir ? b : a, r = dir ? a : b;
          /* alone: a send to itself before the receive may block (MPICH,
           * 1 process): only sendrecv below */
          if (s == r) continue;
          scenario(s, r, bad, late, big ? BIG : 3, round++);
        }
  for (int who = 0; who < 2; who++)
    for (int badrecv = 0; badrecv < 2; badrecv++)
      sendrecv_scenario(a, b, who ? b : a, badrecv, round++);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  free(out);
  free(in);
  if (me == 0) printf("test_p2p_onebad: OK (%d units)\n", nunits);
  TEST_OK(dart_exit());
  return 0;
}
