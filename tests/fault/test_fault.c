/*
 * The job that tests/fault/run_fault.sh kills a host or a unit of:
 *   test_fault rma|coll|lock
 * Every unit prints "fault: unit U pid P host H" and then loops, until the
 * time bound, on one scenario:
 *   rma   blocking puts and gets of 64 KiB and a fetch-and-add to every unit
 *         of a team allocation of 2 MiB per unit (above 1 MiB units of one
 *         host share a window, i.e. a /dev/shm file);
 *   coll  an allreduce of the iteration number (checked) and a barrier;
 *   lock  acquire and release of a team lock (MCS queue: every release
 *         hands the lock to the next waiter), with a non-atomic increment
 *         of a shared counter inside.
 * After WARM iterations unit 0 prints "fault: READY" and the driver kills.
 * A DART error ends the unit with exit code 3 and one line naming the
 * call; running through the time bound (no failure seen) exits with 0,
 * which the driver counts as a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dash/dart/if/dart.h>

enum { WARM = 20, SEG = 2 << 20, CHUNK = 64 << 10 };
static const double TIME_BOUND = 90.0; /* seconds, below the ctest timeout */

static int me = -1;

#define CHECK(call)                                                            \
  do {                                                                         \
    dart_ret_t r_ = (call);                                                    \
    if (r_ != DART_OK) {                                                       \
      fprintf(stderr, "fault: unit %d: %s returned %d\n", me, #call, (int)r_); \
      fflush(stderr);                                                          \
      exit(3);                                                                 \
    }                                                                          \
  } while (0)

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void ready(long it, const char *what)
{
  if (me == 0 && it == WARM) {
    printf("fault: READY %s after %d iterations\n", what, WARM);
    fflush(stdout);
  }
}

static void check_value(long got, long want, const char *what)
{
  if (got == want) return;
  fprintf(stderr, "fault: unit %d: %s is %ld, want %ld\n", me, what, got, want);
  fflush(stderr);
  exit(4);
}

static long run_rma(int n, double end)
{
  dart_gptr_t g;
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, SEG, DART_TYPE_BYTE, &g));
  static char out[CHUNK], in[CHUNK];
  CHECK(dart_barrier(DART_TEAM_ALL));
  long it;
  for (it = 1; now() < end; it++) {
    for (int u = 0; u < n; u++) {
      dart_gptr_t t = g;
      t.unitid = u;
      /* each unit writes its own slice of the target, then reads it back */
      t.addr_or_offs.offset += (uint64_t)me * CHUNK % (SEG / 2);
      memset(out, (int)(it + me) & 0x7f, sizeof out);
      CHECK(dart_put_blocking(t, out, CHUNK, DART_TYPE_BYTE, DART_TYPE_BYTE));
      CHECK(dart_get_blocking(in, t, CHUNK, DART_TYPE_BYTE, DART_TYPE_BYTE));
      check_value(in[CHUNK - 1], out[CHUNK - 1], "the data read back");
      dart_gptr_t c = g;
      c.unitid = u;
      c.addr_or_offs.offset += SEG - sizeof(long);
      long one = 1, old = -1;
      CHECK(dart_fetch_and_op(c, &one, &old, DART_TYPE_LONG, DART_OP_SUM));
      CHECK(dart_flush(c));
    }
    ready(it, "rma");
  }
  return it;
}

static long run_coll(int n, double end)
{
  long it;
  for (it = 1;; it++) {
    /* every unit decides together whether to go on: no unit leaves the
     * loop while another enters one more allreduce */
    long go = now() < end, all = 0;
    CHECK(dart_allreduce(&go, &all, 1, DART_TYPE_LONG, DART_OP_MIN,
                         DART_TEAM_ALL));
    if (!all) break;
    long x = it, sum = 0;
    CHECK(dart_allreduce(&x, &sum, 1, DART_TYPE_LONG, DART_OP_SUM,
                         DART_TEAM_ALL));
    check_value(sum, it * n, "the allreduce's sum");
    CHECK(dart_barrier(DART_TEAM_ALL));
    ready(it, "coll");
  }
  return it;
}

static long run_lock(double end)
{
  dart_lock_t lock;
  dart_gptr_t g;
  CHECK(dart_team_lock_init(DART_TEAM_ALL, &lock));
  CHECK(dart_team_memalloc_aligned(DART_TEAM_ALL, 1, DART_TYPE_LONG, &g));
  g.unitid = 0;
  CHECK(dart_barrier(DART_TEAM_ALL));
  long it;
  for (it = 1; now() < end; it++) {
    CHECK(dart_lock_acquire(lock));
    long v = 0;
    CHECK(dart_get_blocking(&v, g, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    v++;
    CHECK(dart_put_blocking(g, &v, 1, DART_TYPE_LONG, DART_TYPE_LONG));
    CHECK(dart_lock_release(lock));
    ready(it, "lock");
  }
  return it;
}

int main(int argc, char **argv)
{
  const char *what = argc > 1 ? argv[1] : "";
  if (strcmp(what, "rma") && strcmp(what, "coll") && strcmp(what, "lock")) {
    fprintf(stderr, "usage: test_fault rma|coll|lock\n");
    return 2;
  }
  CHECK(dart_init(&argc, &argv));
  dart_global_unit_t id;
  size_t n = 0;
  CHECK(dart_myid(&id));
  CHECK(dart_size(&n));
  me = id.id;
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  printf("fault: unit %d pid %d host %s\n", me, (int)getpid(), host);
  fflush(stdout);
  CHECK(dart_barrier(DART_TEAM_ALL));
  double end = now() + TIME_BOUND;
  long it = 0;
  if (!strcmp(what, "rma")) it = run_rma((int)n, end);
  if (!strcmp(what, "coll")) it = run_coll((int)n, end);
  if (!strcmp(what, "lock")) it = run_lock(end);
  CHECK(dart_barrier(DART_TEAM_ALL));
  printf("fault: unit %d: %s ran %ld iterations without a failure\n", me, what,
         it);
  fflush(stdout);
  CHECK(dart_exit());
  return 0;
}
