/*
 * Internal: the accumulate gate of every unit's memory, which lets bulk
 * accumulates on mapped memory run as plain loops while single-element
 * atomics stay CPU atomics (cpu_gate.c; docs/design.md 5.3).
 *
 * It lives in DART's reserved page in front of the unit's dart_memalloc
 * pool portion (globmem/pool.c), which node peers map:
 *
 *   offset   0   lock word of MPI-emulated atomics (transport/atomic.c)
 *   offset  32   unit 0's page: dart_barrier's counter on DART_TEAM_ALL
 *                (cpu_barrier.h, two 64-bit words)
 *   offset  64   G: 0 = free; holder's global id + 1 while a bulk
 *                accumulate runs; that | DART__GATE_PAUSED between two
 *                chunks and, with the asymmetric fence, after the bulk
 *   offset  68   W: singles waiting for G (they get in before G is taken
 *                again, so a long bulk accumulate cannot starve them)
 *   offset 128   one announcement slot per node-local origin, indexed by
 *                the origin's rank on the node: a cache line each if the
 *                node's units fit (62), else 4 bytes each (992); origins
 *                beyond that share the last slot as a counter
 *
 * A single op (fetch_and_op, compare_and_swap, an accumulate of at most
 * single_max elements) announces itself in its slot, then reads G; a bulk
 * accumulate takes G, then waits for every slot to be 0 (Dekker: each side
 * stores, fences, then loads the other's word, so at least one sees the
 * other).
 */
#ifndef DART__TRANSPORT_CPU_GATE_H
#define DART__TRANSPORT_CPU_GATE_H

#include <dash/dart/if/dart_types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dart_log.h"

#define DART__GATE_G 64
#define DART__GATE_W 68
#define DART__GATE_SLOTS 128
#define DART__GATE_PAUSED 0x80000000u

/* Largest accumulate (elements) applied by CPU atomics under an
 * announcement; larger ones take the gate and run a plain loop. */
#define DART__GATE_SINGLE_MAX 2
/* Bytes of a bulk accumulate applied per tenure of the gate. */
#define DART__GATE_CHUNK ((size_t)64 << 10)

typedef struct {
  char **base;             /* portion base of every node peer in the pool
                              segment (the page ends there) by node rank,
                              NULL for peers the caller does not map; NULL:
                              no gate (node-size entries, not job-size)     */
  const int32_t *node_idx; /* global unit -> node rank, -1 off the node
                              (team DART_TEAM_ALL's node_idx)          */
  ptrdiff_t slot_rel;      /* the caller's slot, relative to a portion base */
  ptrdiff_t g_rel;         /* G, relative to a portion base                  */
  ptrdiff_t w_rel;         /* W, relative to a portion base                  */
  ptrdiff_t slots_rel;     /* the first slot, relative to a portion base     */
  uint32_t stride;         /* bytes from one slot to the next                */
  int nslots;              /* slots in use                                   */
  uint32_t me1;            /* the caller's global id + 1 (its value of G)    */
  bool counter;            /* the caller's slot is shared (threads of this
                              process under DART_THREAD_MULTIPLE, or
                              overflow): add and subtract, not store 1 and 0 */
  bool plain;              /* bulk accumulates run plain loops: with the
                              gate, or with none needed (the caller alone and
                              single-threaded on its node)                   */
  bool asym;               /* asymmetric fence: a bulk that takes a free G
                              runs membarrier(2) first (agreed on the node);
                              singles announce with a plain store once this
                              process is registered (dart__gate_registered) */
  bool can_asym;           /* the node agreed that it can                    */
  size_t single_max;       /* DART__GATE_SINGLE_MAX, DART__GATE_CHUNK: in    */
  size_t chunk;            /* variables for bench/bench_accumulate's sweeps */
} dart__gate_t;

extern dart__gate_t dart__gate DART__HIDDEN;

/*
 * Whether this process is registered for membarrier(2)'s global expedited
 * barrier. The registration waits for an RCU grace period (10-30 ms) in a
 * process with more than one thread, so it runs on a helper thread started
 * by dart_init (dart__gate_register_start); until it is done the singles
 * of this process take the fenced announcement, which is correct next to
 * any bulk (plain Dekker), so the node's units need not agree on it.
 */
extern bool dart__gate_registered DART__HIDDEN;

/* Starts the registration (once per process; a helper thread, or inline if
 * no thread can be made). Called by dart_init before MPI starts. */
DART__HIDDEN void dart__gate_register_start(void);

/* Waits for the helper thread, if any (dart_exit: the library may be
 * unloaded after it). */
DART__HIDDEN void dart__gate_register_join(void);

/* Waits until no bulk accumulate holds G and announces again (G was seen
 * non-zero after the announcement in *slot). */
DART__HIDDEN void dart__gate_wait(const char *func, char *base, uint32_t *slot);

/*
 * Announces a single op of func on the memory of global unit g; returns
 * the slot to pass to dart__gate_leave (NULL: no gate). Between the
 * announcement and the load of G: a full fence (on x86 the exchange or
 * the locked add of a counter is one), or with the asymmetric fence in a
 * registered process only the compiler's (the bulk side's membarrier
 * supplies the rest).
 */
static inline __attribute__((always_inline)) uint32_t *
dart__gate_enter(const char *func, int g)
{
  char **bases = __atomic_load_n(&dart__gate.base, __ATOMIC_RELAXED);
  if (bases == NULL) return NULL;
  int r = dart__gate.node_idx[g];
  if (__builtin_expect(r < 0, 0)) return NULL;
  char *b = bases[r];
  if (__builtin_expect(b == NULL, 0)) return NULL;
  uint32_t *slot = (uint32_t *)(void *)(b + dart__gate.slot_rel);
  if (__builtin_expect(dart__gate.counter, 0)) {
    __atomic_fetch_add(slot, 1, __ATOMIC_SEQ_CST);
  } else if (dart__gate.asym &&
             __atomic_load_n(&dart__gate_registered, __ATOMIC_ACQUIRE)) {
    __atomic_store_n(slot, 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
  } else {
    __atomic_exchange_n(slot, 1, __ATOMIC_SEQ_CST);
  }
  if (__builtin_expect(
          __atomic_load_n((uint32_t *)(void *)(b + dart__gate.g_rel),
                          __ATOMIC_SEQ_CST) != 0,
          0))
    dart__gate_wait(func, b, slot);
  return slot;
}

/* Ends a single op (release: its atomics happen before a bulk that sees
 * the slot free). */
static inline __attribute__((always_inline)) void
dart__gate_leave(uint32_t *slot)
{
  if (slot == NULL) return;
  if (__builtin_expect(dart__gate.counter, 0))
    __atomic_fetch_sub(slot, 1, __ATOMIC_RELEASE);
  else
    __atomic_store_n(slot, 0, __ATOMIC_RELEASE);
}

/*
 * Accumulate of func of nelem elements (esz bytes, basic type t) at
 * target, the mapped memory of global unit g: CPU atomics under an
 * announcement up to single_max elements, else plain loops in chunks
 * under G. -1 (nothing done) where dart__cpu_atomic gives -1.
 */
DART__HIDDEN int dart__cpu_accumulate(const char *func, int g, void *target,
                                      const void *values, size_t nelem,
                                      size_t esz, dart_datatype_t t,
                                      dart_operation_t op);

#endif /* DART__TRANSPORT_CPU_GATE_H */
