#define _POSIX_C_SOURCE 200809L
/* dart_barrier synchronises and orders memory (the shared-memory counter
 * on DART_TEAM_ALL on one node, the MPI barrier elsewhere and with
 * DART_BARRIER=mpi): every round each unit stores the round number in its
 * slot of a team allocation, and after a barrier every unit must read that
 * number from every slot. Some rounds unit 0 arrives late (sleeps), so the
 * others wait through the yielding phase. A sub-team's barrier (MPI)
 * interleaves with DART_TEAM_ALL's.
 *
 * Then dart_allreduce, dart_allgather, dart_allgatherv and dart_bcast back
 * to back, the four kinds interleaved (DART_TEAM_ALL's shared-memory slots
 * on one node, used alternately by allreduce and allgather(v), MPI above
 * their size, elsewhere and for bcast): every round a new value per unit,
 * sizes below, at and above a slot (4 KiB) mixed (allgatherv: a different
 * count per unit, zero now and then, blocks in reverse unit order with
 * gaps), in place now and then, a late unit now and then; every result is
 * checked, so a slot overwritten before every unit has read it shows. Last,
 * dart_bcast back to back with nothing in between (the shared-memory bcast
 * needs no barrier: its root reuses a slot only after every reader has
 * acknowledged it). */
#include <stdlib.h>
#include <time.h>

#include <dash/dart/if/dart_communication.h>

#include "dart_test.h"

enum { ROUNDS = 1000 };

static void sleep_us(long us)
{
  struct timespec ts = {0, us * 1000};
  nanosleep(&ts, NULL);
}

enum { MAXN = 600 }; /* longs: 512 fill a slot, 600 take MPI */

static size_t round_size(long r)
{
  static const size_t sizes[] = {1, 2, 400, 512, MAXN, 1};
  return sizes[r % 6];
}

/* Element i of unit u's contribution in round r. */
static long value(long r, long u, size_t i)
{
  return r * 1000 + u + (long)i;
}

/* An allreduce of round r: the sum over n units is checked. */
static void allreduce_round(long r, int me, size_t n, long *buf, long *out)
{
  size_t nelem = round_size(r);
  for (size_t i = 0; i < nelem; i++) buf[i] = value(r, me, i);
  if (r % 4 == 0) {
    TEST_OK(dart_allreduce(NULL, buf, nelem, DART_TYPE_LONG, DART_OP_SUM,
                           DART_TEAM_ALL));
    out = buf;
  } else {
    TEST_OK(dart_allreduce(buf, out, nelem, DART_TYPE_LONG, DART_OP_SUM,
                           DART_TEAM_ALL));
  }
  long un = (long)n, base = un * (un - 1) / 2;
  for (size_t i = 0; i < nelem; i++)
    TEST_CHECK_MSG(out[i] == un * value(r, 0, i) + base,
                   "allreduce round %ld: [%zu] = %ld, want %ld", r, i, out[i],
                   un * value(r, 0, i) + base);
}

/* A bcast of round r from unit r % n. */
static void bcast_round(long r, int me, size_t n, long *buf)
{
  size_t nelem = round_size(r);
  long root = r % (long)n;
  for (size_t i = 0; i < nelem; i++)
    buf[i] = me == root ? value(r, root, i) : -1;
  TEST_OK(dart_bcast(buf, nelem, DART_TYPE_LONG, DART_TEAM_UNIT_ID((int)root),
                     DART_TEAM_ALL));
  for (size_t i = 0; i < nelem; i++)
    TEST_CHECK_MSG(buf[i] == value(r, root, i),
                   "bcast round %ld from %ld: [%zu] = %ld, want %ld", r, root,
                   i, buf[i], value(r, root, i));
}

/* An allgather of round r; in place (the own block of out) now and then. */
static void allgather_round(long r, int me, size_t n, long *buf, long *out)
{
  size_t nelem = round_size(r);
  long *own = out + (size_t)me * nelem;
  for (size_t i = 0; i < n * nelem; i++) out[i] = -1;
  for (size_t i = 0; i < nelem; i++) buf[i] = own[i] = value(r, me, i);
  TEST_OK(dart_allgather(r % 4 == 1 ? NULL : buf, out, nelem, DART_TYPE_LONG,
                         DART_TEAM_ALL));
  for (size_t u = 0; u < n; u++)
    for (size_t i = 0; i < nelem; i++)
      TEST_CHECK_MSG(out[u * nelem + i] == value(r, (long)u, i),
                     "allgather round %ld: unit %zu's [%zu] = %ld, want %ld", r,
                     u, i, out[u * nelem + i], value(r, (long)u, i));
}

/* An allgatherv of round r: unit u sends count(r, u) elements, unit r % n
 * the round's size (a slot's worth or more now and then, which sends the
 * whole call through MPI), into blocks in reverse unit order, one element
 * apart; in place now and then. */
static size_t gv_count(long r, size_t u, size_t n)
{
  return u == (size_t)r % n ? round_size(r) : (size_t)(r + (long)u * 7) % 300;
}

static void allgatherv_round(long r, int me, size_t n, long *buf, long *out)
{
  size_t *cnt = malloc(2 * n * sizeof *cnt), at = 0;
  TEST_CHECK(cnt != NULL);
  size_t *dsp = cnt + n;
  for (size_t k = n; k-- > 0;) {
    cnt[k] = gv_count(r, k, n);
    dsp[k] = at;
    at += cnt[k] + 1;
  }
  for (size_t i = 0; i < at; i++) out[i] = -1;
  long *own = out + dsp[me];
  for (size_t i = 0; i < cnt[me]; i++) buf[i] = own[i] = value(r, me, i);
  TEST_OK(dart_allgatherv(r % 8 == 3 ? (r % 16 == 3 ? NULL : own) : buf,
                          cnt[me], DART_TYPE_LONG, out, cnt, dsp,
                          DART_TEAM_ALL));
  for (size_t u = 0; u < n; u++) {
    for (size_t i = 0; i < cnt[u]; i++)
      TEST_CHECK_MSG(out[dsp[u] + i] == value(r, (long)u, i),
                     "allgatherv round %ld: unit %zu's [%zu] = %ld, want %ld",
                     r, u, i, out[dsp[u] + i], value(r, (long)u, i));
    TEST_CHECK_MSG(out[dsp[u] + cnt[u]] == -1,
                   "allgatherv round %ld: the gap after unit %zu's block "
                   "holds %ld",
                   r, u, out[dsp[u] + cnt[u]]);
  }
  free(cnt);
}

int main(int argc, char **argv)
{
  TEST_OK(dart_init(&argc, &argv));
  dart_global_unit_t me;
  size_t n;
  TEST_OK(dart_myid(&me));
  TEST_OK(dart_size(&n));
  dart_gptr_t slots;
  TEST_OK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &slots));
  dart_gptr_t mine = slots;
  TEST_OK(dart_gptr_setunit(&mine, DART_TEAM_UNIT_ID(me.id)));
  long *own = NULL;
  TEST_OK(dart_gptr_getaddr(mine, (void **)&own));
  TEST_CHECK(own != NULL);

  /* the odd units' team, whose barrier is MPI's */
  dart_group_t odd;
  TEST_OK(dart_group_create(&odd));
  for (size_t u = 1; u < n; u += 2)
    TEST_OK(dart_group_addmember(odd, DART_GLOBAL_UNIT_ID((int)u)));
  dart_team_t oddteam = DART_TEAM_NULL;
  TEST_OK(dart_team_create(DART_TEAM_ALL, odd, &oddteam));

  for (long r = 1; r <= ROUNDS; r++) {
    if (me.id == 0 && r % 97 == 0) sleep_us(r % 2 ? 2000 : 100);
    __atomic_store_n(own, r, __ATOMIC_RELAXED);
    TEST_OK(dart_barrier(DART_TEAM_ALL));
    for (size_t u = 0; u < n; u++) {
      dart_gptr_t g = slots;
      long v = -1;
      TEST_OK(dart_gptr_setunit(&g, DART_TEAM_UNIT_ID((int)u)));
      TEST_OK(dart_get_blocking(&v, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
      TEST_CHECK_MSG(v == r, "round %ld: unit %zu's slot holds %ld", r, u, v);
    }
    if (oddteam != DART_TEAM_NULL && r % 50 == 0)
      TEST_OK(dart_barrier(oddteam));
    TEST_OK(dart_barrier(DART_TEAM_ALL));
  }

  static long buf[MAXN];
  long *out = malloc(n * (MAXN + 1) * sizeof *out);
  TEST_CHECK(out != NULL);
  for (long r = 1; r <= ROUNDS; r++) {
    if (me.id == (dart_unit_t)(r % (long)n) && r % 37 == 0)
      sleep_us(r % 2 ? 1000 : 50);
    switch ((r / 2) % 4) {
    case 0: allreduce_round(r, me.id, n, buf, out); break;
    case 1: bcast_round(r, me.id, n, buf); break;
    case 2: allgatherv_round(r, me.id, n, buf, out); break;
    default: allgather_round(r, me.id, n, buf, out); break;
    }
  }
  free(out);

  /* dart_bcast back to back, no other collective in between: runs of 50
   * from one root, a reader late now and then (the root must not reuse
   * its slot before every reader has taken the data) */
  for (long r = 1; r <= 2 * ROUNDS; r++) {
    long root = (r / 50) % (long)n;
    if (me.id == (dart_unit_t)((root + 1) % (long)n) && r % 64 == 0)
      sleep_us(r % 128 ? 300 : 20);
    size_t nelem = r % 3 ? 1 : 512;
    for (size_t i = 0; i < nelem; i++)
      buf[i] = me.id == root ? value(r, root, i) : -1;
    TEST_OK(dart_bcast(buf, nelem, DART_TYPE_LONG, DART_TEAM_UNIT_ID((int)root),
                       DART_TEAM_ALL));
    for (size_t i = 0; i < nelem; i++)
      TEST_CHECK_MSG(buf[i] == value(r, root, i),
                     "back-to-back bcast %ld from %ld: [%zu] = %ld, want %ld",
                     r, root, i, buf[i], value(r, root, i));
  }

  if (oddteam != DART_TEAM_NULL) TEST_OK(dart_team_destroy(&oddteam));
  TEST_OK(dart_group_destroy(&odd));
  TEST_OK(dart_team_memfree(slots));
  TEST_OK(dart_exit());
  if (me.id == 0)
    printf("test_barrier: %d rounds of barriers and of allreduce, bcast, "
           "allgather and allgatherv on %zu units ok\n",
           ROUNDS, n);
  return 0;
}
