/*
 * Distributed locks: mutual exclusion of a read-modify-write with plain
 * get/put on PE 0 (no update lost), test_lock when held and when free, two
 * independent locks (static and allocated), and first-come-first-served
 * order of the waiters.
 */
#include <shmem.h>
#include <stdio.h>

#include "dart_test.h"

#define ROUNDS 50

static long lock_static;        /* symmetric, static */
static long counter, order[64]; /* on PE 0 */
static long next_slot;

static void critical_add(long *lock, long *where)
{
  shmem_set_lock(lock);
  long v = shmem_long_g(where, 0);
  shmem_long_p(where, v + 1, 0);
  shmem_clear_lock(lock); /* completes the put before releasing */
}

int main(void)
{
  shmem_init();
  int me = shmem_my_pe(), npes = shmem_n_pes();
  long *lock_heap = shmem_calloc(1, sizeof(long));
  long *counter2 = shmem_calloc(1, sizeof(long));
  shmem_barrier_all();

  for (int r = 0; r < ROUNDS; r++) {
    critical_add(&lock_static, &counter);
    critical_add(lock_heap, counter2);
  }
  shmem_barrier_all();
  if (me == 0) {
    TEST_CHECK_MSG(counter == (long)ROUNDS * npes, "counter %ld, want %ld",
                   counter, (long)ROUNDS * npes);
    TEST_CHECK(*counter2 == (long)ROUNDS * npes);
  }

  /* test_lock: PE 0 holds the lock, everyone else must see it held. */
  if (me == 0) TEST_CHECK(shmem_test_lock(&lock_static) == 0);
  shmem_barrier_all();
  if (me != 0) TEST_CHECK(shmem_test_lock(&lock_static) == 1);
  shmem_barrier_all();
  if (me == 0) shmem_clear_lock(&lock_static);
  shmem_barrier_all();
  /* Free again: each PE in turn gets it with test_lock. */
  for (int p = 0; p < npes; p++) {
    if (me == p) {
      TEST_CHECK(shmem_test_lock(lock_heap) == 0);
      shmem_clear_lock(lock_heap);
    }
    shmem_barrier_all();
  }

  /* FIFO (white box: the upper half of PE 0's lock word counts tickets).
   * PE 0 holds the lock; PE p calls set_lock only once p tickets are out,
   * so the waiters queue in PE order and must get the lock in that order. */
  shmem_barrier_all();
  unsigned long base =
      (unsigned long)shmem_long_atomic_fetch(&lock_static, 0) >> 32;
  shmem_barrier_all();
  if (me == 0) shmem_set_lock(&lock_static);
  unsigned long want = me == 0 ? (unsigned long)npes : (unsigned long)me;
  while (((unsigned long)shmem_long_atomic_fetch(&lock_static, 0) >> 32) -
             base !=
         want)
    ;
  if (me == 0) {
    shmem_clear_lock(&lock_static);
  } else {
    shmem_set_lock(&lock_static);
    long slot = shmem_long_atomic_fetch_inc(&next_slot, 0);
    shmem_long_p(&order[slot], me, 0);
    shmem_clear_lock(&lock_static);
  }
  shmem_barrier_all();
  if (me == 0)
    for (int i = 0; i < npes - 1; i++)
      TEST_CHECK_MSG(order[i] == i + 1, "lock order[%d] = %ld", i, order[i]);

  shmem_free(counter2);
  shmem_free(lock_heap);
  if (me == 0) printf("test_shmem_lock: ok at %d PEs\n", npes);
  shmem_finalize();
  return 0;
}
