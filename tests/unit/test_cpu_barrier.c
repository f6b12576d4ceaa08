/* Unit tests (no MPI) of the counter barrier (transport/cpu_barrier.h)
 * that dart_barrier runs on DART_TEAM_ALL on one node: threads stand in
 * for the units of a node, each round checks that nobody left before
 * everybody arrived. */
#include <pthread.h>
#include <sched.h>

#include "dart_test.h"
#include "transport/cpu_barrier.h"

enum { THREADS = 4, ROUNDS = 20000 };

static _Atomic uint64_t words[2];
static _Atomic long phase[THREADS];
static _Atomic int errors;

static void barrier(uint64_t n)
{
  uint64_t gen;
  if (dart__cpu_barrier_arrive(words, n, &gen)) return;
  for (int it = 0; !dart__cpu_barrier_passed(words, gen); it++)
    if (it > 100) sched_yield(); /* 2 cores, 4 threads */
}

/* Round r: store r, barrier, every thread must read r from everybody;
 * a second barrier keeps the next store out of the reads. */
static void *unit(void *arg)
{
  int me = (int)(intptr_t)arg;
  for (long r = 1; r <= ROUNDS; r++) {
    atomic_store(&phase[me], r);
    barrier(THREADS);
    for (int j = 0; j < THREADS; j++)
      if (atomic_load(&phase[j]) != r) atomic_fetch_add(&errors, 1);
    barrier(THREADS);
  }
  return NULL;
}

static void test_threads(void)
{
  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++)
    TEST_CHECK(pthread_create(&t[i], NULL, unit, (void *)(intptr_t)i) == 0);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
  TEST_CHECK_MSG(atomic_load(&errors) == 0, "%d reads saw another round",
                 atomic_load(&errors));
  /* back at rest: no arrival left over, one generation per barrier */
  TEST_CHECK(atomic_load(&words[0]) == 0);
  TEST_CHECK(atomic_load(&words[1]) == 2 * ROUNDS);
}

/* One unit passes at once; the last of n passes without waiting and the
 * others see the round over. */
static void test_single_and_last(void)
{
  _Atomic uint64_t w[2] = {0, 7};
  uint64_t gen;
  TEST_CHECK(dart__cpu_barrier_arrive(w, 1, &gen));
  TEST_CHECK(gen == 7 && atomic_load(&w[1]) == 8 && atomic_load(&w[0]) == 0);
  TEST_CHECK(!dart__cpu_barrier_arrive(w, 2, &gen));
  TEST_CHECK(gen == 8 && !dart__cpu_barrier_passed(w, gen));
  uint64_t gen2;
  TEST_CHECK(dart__cpu_barrier_arrive(w, 2, &gen2));
  TEST_CHECK(gen2 == 8 && dart__cpu_barrier_passed(w, gen));
  TEST_CHECK(atomic_load(&w[0]) == 0);
}

int main(void)
{
  test_single_and_last();
  test_threads();
  printf("unit.cpu_barrier: ok\n");
  return 0;
}
