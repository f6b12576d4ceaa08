/*
 * Distributed locks: a ticket lock in PE 0's copy of the symmetric long.
 *
 * The upper 32 bits count the tickets handed out, the lower 32 the ticket
 * being served; both start at 0 (the spec's initial value of a lock), the
 * lock is free when they are equal. shmem_set_lock takes a ticket with one
 * remote fetch-and-add and waits its turn (first come, first served),
 * polling PE 0's word with a backoff that grows with the time waited and
 * yields the core, so waiters on an oversubscribed node do not starve the
 * holder. shmem_clear_lock completes the caller's RMA (shmem_quiet) and
 * advances the served half with a compare-and-swap, so its 32-bit wrap never
 * carries into the ticket half.
 */
#include <stdint.h>

_Static_assert(sizeof(long) == 8,
               "the ticket lock packs two 32-bit halves in a long");

#include "shmem_coll.h"

#define LOCK_PE 0
#define TICKET_ONE ((unsigned long)1 << 32)
#define LOW_MASK 0xffffffffUL

/* The lock word's atomics go through the same path as the user-visible
 * atomics (shmemi_amo: DART's atomics on the heap, CPU atomics on a static
 * lock when every PE maps every PE's data+BSS, else DART's), so that a
 * program reading the lock with shmem_long_atomic_fetch, and the lock
 * calls themselves, use one mechanism per location. */
static long *lock_check(const char *fn, long *lock)
{
  shmemi_check_init(fn);
  if (lock == NULL) shmemi_fatal(fn, "lock is NULL");
  dart_gptr_t g;
  if (shmemi_gptr(lock, LOCK_PE, &g) != 0)
    shmemi_fatal(fn, "lock %p is not a symmetric address", (void *)lock);
  return lock;
}

static unsigned long lock_fop(const char *fn, long *lock, unsigned long v,
                              shmemi_amo_t op)
{
  unsigned long old = 0;
  shmemi_amo(SHMEM_CTX_DEFAULT, op, SHMEMI_DT_ULONG, lock, &v, NULL, &old,
             LOCK_PE, 0, fn);
  return old;
}

static unsigned long lock_cas(const char *fn, long *lock, unsigned long expect,
                              unsigned long v)
{
  unsigned long old = 0;
  shmemi_amo(SHMEM_CTX_DEFAULT, SHMEMI_AMO_CSWAP, SHMEMI_DT_ULONG, lock, &v,
             &expect, &old, LOCK_PE, 0, fn);
  return old;
}

void shmem_set_lock(long *lock)
{
  static const char *fn = "shmem_set_lock";
  lock_check(fn, lock);
  unsigned long w = lock_fop(fn, lock, TICKET_ONE, SHMEMI_AMO_FADD);
  unsigned long ticket = (w >> 32) & LOW_MASK, serving = w & LOW_MASK;
  unsigned round = 0;
  while (serving != ticket) {
    unsigned long ahead = (ticket - serving) & LOW_MASK;
    for (unsigned long k = 0; k < ahead && k < 8; k++) shmemi_backoff(&round);
    unsigned long now = lock_fop(fn, lock, 0, SHMEMI_AMO_FETCH) & LOW_MASK;
    if (now != serving) round = 0; /* the queue moved: look closer again */
    serving = now;
  }
}
SHMEMI_ALIAS(shmem_set_lock);

void shmem_clear_lock(long *lock)
{
  static const char *fn = "shmem_clear_lock";
  lock_check(fn, lock);
  shmemi_quiet_all();
  unsigned long old = lock_fop(fn, lock, 0, SHMEMI_AMO_FETCH);
  for (;;) {
    if (((old >> 32) & LOW_MASK) == (old & LOW_MASK))
      shmemi_fatal(fn, "lock %p is not held", (void *)lock);
    unsigned long nw = (old & ~LOW_MASK) | ((old + 1) & LOW_MASK);
    unsigned long seen = lock_cas(fn, lock, old, nw);
    if (seen == old) return;
    old = seen;
  }
}
SHMEMI_ALIAS(shmem_clear_lock);

int shmem_test_lock(long *lock)
{
  static const char *fn = "shmem_test_lock";
  lock_check(fn, lock);
  unsigned long old = lock_fop(fn, lock, 0, SHMEMI_AMO_FETCH);
  for (;;) {
    if (((old >> 32) & LOW_MASK) != (old & LOW_MASK)) return 1;
    unsigned long seen = lock_cas(fn, lock, old, old + TICKET_ONE);
    if (seen == old) return 0;
    old = seen; /* a ticket or a release raced with us: look again */
  }
}
SHMEMI_ALIAS(shmem_test_lock);
