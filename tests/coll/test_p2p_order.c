/*
 * Point-to-point error notices in order with the data (issue 36, item 3):
 * for every combination of good/bad sender and receiver, between every
 * pair of units and from each unit to itself, a receive gets exactly what
 * was sent before it, and a bad send returns at once, without waiting for
 * its receiver: every unit makes all its sends of a round, then enters a
 * barrier, and only then receives (a send that waited for its receiver
 * would hang here).
 *
 * Round k: unit u sends to (u + k) % n and receives from (u - k) % n, so k
 * = 0 is each unit talking to itself. Per combination (bad sender, bad
 * receiver) the sequence is: A (good, 3 ints), an empty good message, X
 * (the combination's message), another empty good message, C (good). The
 * empty messages sit next to the bad one on purpose: they are what a
 * notice must not be confused with. Then dart_sendrecv in the same way.
 */
#include <dash/dart/if/dart.h>
#include <mpi.h>
#include <string.h>

#include "dart_test.h"

enum { N = 3, TAG = 11 };

static int me, nunits;

static void fill(int *b, int v)
{
  for (int i = 0; i < N; i++) b[i] = v + i;
}

static void check(const int *b, int v, const char *what, int k, int combo)
{
  for (int i = 0; i < N; i++)
    TEST_CHECK_MSG(b[i] == v + i,
                   "round %d combo %d %s: element %d is %d, expected %d", k,
                   combo, what, i, b[i], v + i);
}

/* Value of message m of combination combo from unit s. */
static int val(int s, int combo, int m)
{
  return 100000 * (s + 1) + 100 * combo + 10 * m;
}

static void send_seq(int to, int combo)
{
  dart_global_unit_t u = {to};
  int bad_send = combo & 1, buf[N];
  fill(buf, val(me, combo, 0));
  TEST_OK(dart_send(buf, N, DART_TYPE_INT, TAG, u));
  TEST_OK(dart_send(NULL, 0, DART_TYPE_INT, TAG, u));
  fill(buf, val(me, combo, 1));
  TEST_EQ_RET(dart_send(bad_send ? NULL : buf, N, DART_TYPE_INT, TAG, u),
              bad_send ? DART_ERR_INVAL : DART_OK);
  TEST_OK(dart_send(buf, 0, DART_TYPE_INT, TAG, u));
  fill(buf, val(me, combo, 2));
  TEST_OK(dart_send(buf, N, DART_TYPE_INT, TAG, u));
}

static void recv_seq(int from, int combo, int k)
{
  dart_global_unit_t u = {from};
  int bad_send = combo & 1, bad_recv = combo & 2, buf[N];
  memset(buf, 0xff, sizeof buf);
  TEST_OK(dart_recv(buf, N, DART_TYPE_INT, TAG, u));
  check(buf, val(from, combo, 0), "A", k, combo);
  memset(buf, 0xff, sizeof buf);
  TEST_OK(dart_recv(NULL, 0, DART_TYPE_INT, TAG, u));
  int got = dart_recv(bad_recv ? NULL : buf, N, DART_TYPE_INT, TAG, u);
  if (bad_send || bad_recv) {
    TEST_CHECK_MSG(got == DART_ERR_INVAL, "round %d combo %d: X got %d", k,
                   combo, got);
    for (int i = 0; i < N; i++) TEST_CHECK(buf[i] == -1);
  } else {
    TEST_CHECK_MSG(got == DART_OK, "round %d combo %d: X got %d", k, combo,
                   got);
    check(buf, val(from, combo, 1), "X", k, combo);
  }
  memset(buf, 0xff, sizeof buf);
  TEST_OK(dart_recv(buf, N, DART_TYPE_INT, TAG, u));
  TEST_CHECK(buf[0] == -1); /* the empty message, 0 of N elements */
  TEST_OK(dart_recv(buf, N, DART_TYPE_INT, TAG, u));
  check(buf, val(from, combo, 2), "C", k, combo);
}

/*
 * Does the MPI complete a good send a unit makes to itself before its
 * receive? MPI may block such a send until it is matched, and MPICH does
 * when the job has one process (its sends to itself then wait for the
 * receive, blocking or not). There the self round queues bad sends only
 * (they return at once) and sendrecv covers the rest.
 */
static int self_buffered(void)
{
#ifdef MPICH_VERSION
  return nunits > 1;
#else
  return 1;
#endif
}

static void bad_only_self(void)
{
  dart_global_unit_t u = {me};
  int buf[N];
  TEST_EQ_RET(dart_send(NULL, N, DART_TYPE_INT, TAG, u), DART_ERR_INVAL);
  TEST_EQ_RET(dart_send(NULL, N, DART_TYPE_INT, TAG, u), DART_ERR_INVAL);
  TEST_OK(dart_barrier(DART_TEAM_ALL));
  memset(buf, 0xff, sizeof buf);
  TEST_EQ_RET(dart_recv(buf, N, DART_TYPE_INT, TAG, u), DART_ERR_INVAL);
  TEST_CHECK(buf[0] == -1);
  TEST_EQ_RET(dart_recv(NULL, N, DART_TYPE_INT, TAG, u), DART_ERR_INVAL);
}

/* One dart_sendrecv of combination combo in round k: unit u's send half is
 * bad if combo & 1 and u is in the "bad senders" half (u % 2 == combo >> 2
 * & 1), its receive half if combo & 2 likewise. */
static void sendrecv_round(int k, int combo)
{
  int to = (me + k) % nunits, from = (me - k + nunits) % nunits;
  dart_global_unit_t tu = {to}, fu = {from};
  int picked = me % 2 == ((combo >> 2) & 1);
  int from_picked = from % 2 == ((combo >> 2) & 1);
  int bad_send = (combo & 1) && picked, bad_recv = (combo & 2) && picked;
  int from_bad = (combo & 1) && from_picked;
  int out[N], in[N];
  for (int m = 0; m < 3; m++) {
    int tst = m == 1;
    fill(out, val(me, combo, m));
    memset(in, 0xff, sizeof in);
    int got =
        dart_sendrecv(tst && bad_send ? NULL : out, N, DART_TYPE_INT, TAG, tu,
                      tst && bad_recv ? NULL : in, N, DART_TYPE_INT, TAG, fu);
    int want =
        tst && (bad_send || bad_recv || from_bad) ? DART_ERR_INVAL : DART_OK;
    TEST_CHECK_MSG(got == want,
                   "sendrecv round %d combo %d message %d: got %d, want %d", k,
                   combo, m, got, want);
    if (tst && (bad_recv || from_bad))
      for (int i = 0; i < N; i++) TEST_CHECK(in[i] == -1);
    else
      check(in, val(from, combo, m), "sendrecv", k, combo);
  }
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
  for (int k = 0; k < nunits; k++) {
    int to = (me + k) % nunits, from = (me - k + nunits) % nunits;
    if (k == 0 && !self_buffered()) {
      bad_only_self();
    } else {
      for (int combo = 0; combo < 4; combo++) send_seq(to, combo);
      /* every send above returned without its receiver */
      TEST_OK(dart_barrier(DART_TEAM_ALL));
      for (int combo = 0; combo < 4; combo++) recv_seq(from, combo, k);
    }
    TEST_OK(dart_barrier(DART_TEAM_ALL));
    for (int combo = 0; combo < 8; combo++) sendrecv_round(k, combo);
    TEST_OK(dart_barrier(DART_TEAM_ALL));
  }
  if (me == 0) printf("test_p2p_order: OK (%d units)\n", nunits);
  TEST_OK(dart_exit());
  return 0;
}
