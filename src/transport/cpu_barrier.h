/*
 * Internal: a central counter barrier in memory that every unit of a team
 * maps (runtime/barrier.c places it in DART's page of unit 0 of
 * DART_TEAM_ALL on one node). Two 64-bit words: words[0] counts the
 * arrivals, words[1] is the generation. A unit reads the generation, then
 * adds 1 to the count; the n-th arrival resets the count and advances the
 * generation (release), which the others poll (acquire). Nobody adds to
 * the count of the next round before the generation moves, and the reset
 * comes before it, so the words need no other synchronisation.
 *
 * Pure (CPU atomics only): tests/unit/test_cpu_barrier.c runs it on
 * threads.
 */
#ifndef DART__TRANSPORT_CPU_BARRIER_H
#define DART__TRANSPORT_CPU_BARRIER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Arrival of one of n units. Returns true if it was the last (the barrier
 * is passed); otherwise *gen is the generation to wait out with
 * dart__cpu_barrier_passed. */
static inline bool dart__cpu_barrier_arrive(_Atomic uint64_t *words, uint64_t n,
                                            uint64_t *gen)
{
  uint64_t g = atomic_load_explicit(&words[1], memory_order_acquire);
  *gen = g;
  if (atomic_fetch_add_explicit(&words[0], 1, memory_order_acq_rel) + 1 < n)
    return false;
  atomic_store_explicit(&words[0], 0, memory_order_relaxed);
  atomic_store_explicit(&words[1], g + 1, memory_order_release);
  return true;
}

/* Whether the round that began in generation gen is over. */
static inline bool dart__cpu_barrier_passed(_Atomic uint64_t *words,
                                            uint64_t gen)
{
  return atomic_load_explicit(&words[1], memory_order_acquire) != gen;
}

#endif /* DART__TRANSPORT_CPU_BARRIER_H */
