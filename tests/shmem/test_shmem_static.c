/*
 * Static and global variables as symmetric memory, the patterns of the SOS
 * suite's c11_test_shmem_g and of counters in statics: shmem_g/shmem_p and
 * get/put of every size on another PE's static (data and BSS), atomics of
 * every kind from every PE on one static counter (mixed operations: fadd,
 * add, inc, cswap loops, fetch, swap), and a loop of 2000 gets whose time
 * is bounded (a static variable of a node peer is a load since shmem_init
 * maps node peers' data+BSS; with DART_SIM_NODE_SIZE=1 the MPI path).
 */
#define _POSIX_C_SOURCE 200809L
#include <shmem.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "dart_test.h"

static long counter;            /* BSS */
static int ival = 7;            /* data */
static double dval[16] = {1.0}; /* data */
static char cbuf[64];           /* BSS */
static uint64_t ucount;         /* BSS */

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void get_put(int me, int n)
{
  int r = (me + 1) % n, l = (me + n - 1) % n;
  ival = 100 + me;
  for (int i = 0; i < 16; i++) dval[i] = me * 16 + i;
  memset(cbuf, 'a' + me, sizeof cbuf);
  shmem_barrier_all();
  TEST_CHECK(shmem_int_g(&ival, r) == 100 + r);
  double d[16];
  shmem_double_get(d, dval, 16, r);
  for (int i = 0; i < 16; i++) TEST_CHECK(d[i] == r * 16 + i);
  char c[64];
  shmem_getmem(c, cbuf, sizeof c, r);
  for (int i = 0; i < 64; i++) TEST_CHECK(c[i] == 'a' + r);
  shmem_barrier_all();
  shmem_int_p(&ival, 200 + me, r);
  shmem_putmem(cbuf + 8, "static", 7, r);
  shmem_quiet();
  shmem_barrier_all();
  TEST_CHECK(ival == 200 + l);
  TEST_CHECK(strcmp(cbuf + 8, "static") == 0);
  shmem_barrier_all();
}

static void atomics(int me, int n)
{
  enum { K = 200 };
  counter = 0;
  ucount = 0;
  shmem_barrier_all();
  for (int i = 0; i < K; i++) {
    switch (i % 4) {
    case 0: (void)shmem_long_atomic_fetch_add(&counter, 1, 0); break;
    case 1: shmem_long_atomic_add(&counter, 1, 0); break;
    case 2: shmem_long_atomic_inc(&counter, 0); break;
    default: {
      long old = shmem_long_atomic_fetch(&counter, 0), seen;
      while ((seen = shmem_long_atomic_compare_swap(&counter, old, old + 1,
                                                    0)) != old)
        old = seen;
    }
    }
    shmem_uint64_atomic_fetch_xor(&ucount, (uint64_t)1 << (me % 64), 0);
  }
  shmem_quiet();
  shmem_barrier_all();
  if (me == 0) {
    TEST_CHECK(counter == (long)n * K);
    TEST_CHECK(ucount == 0); /* K even: every bit flipped back */
  }
  shmem_barrier_all();
  /* swap around the ring */
  counter = me;
  shmem_barrier_all();
  long old = shmem_long_atomic_swap(&counter, 1000 + me, (me + 1) % n);
  TEST_CHECK(old == (me + 1) % n);
  shmem_barrier_all();
  TEST_CHECK(counter == 1000 + (me + n - 1) % n);
  shmem_barrier_all();
}

static void many_gets(int me, int n)
{
  enum { G = 2000 };
  int r = (me + 1) % n;
  ival = me;
  shmem_barrier_all();
  double t0 = now();
  long sum = 0;
  for (int i = 0; i < G; i++) sum += shmem_int_g(&ival, r);
  double dt = now() - t0;
  TEST_CHECK(sum == (long)G * r);
  /* generous: 2000 gets of a static within 20 s even on the MPI path of a
   * loaded machine (the load/store path takes microseconds in all) */
  TEST_CHECK_MSG(dt < 20.0, "2000 shmem_int_g took %.3f s", dt);
  shmem_barrier_all();
}

int main(void)
{
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  get_put(me, n);
  atomics(me, n);
  many_gets(me, n);
  shmem_finalize();
  return 0;
}
