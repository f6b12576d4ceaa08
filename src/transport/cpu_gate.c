/*
 * The accumulate gate: bulk accumulates on mapped memory at memory
 * bandwidth, element-wise atomic with every other atomic on the same
 * location (docs/design.md 5.3; layout in cpu_gate.h).
 *
 * Single ops (dart_fetch_and_op, dart_compare_and_swap, accumulates of at
 * most single_max elements) stay CPU atomics. Around them the origin
 * announces itself in its slot of the target's page:
 *
 *   single:  slot = 1;  fence;  if (G != 0) { slot = 0; wait; retry }
 *            CPU atomic(s);  slot = 0 (release)
 *   bulk:    CAS G (free -> id + 1; a full fence);  wait until every slot
 *            is 0;  plain loop over at most `chunk` bytes;  G = paused
 *            (release);  the same for the next chunk;  at the end G = 0
 *            (symmetric fence) or G stays paused (asymmetric fence)
 *
 * "Free" is 0 or paused (DART__GATE_PAUSED | holder): between chunks the
 * singles that waited get in first (W, below), and another origin's bulk
 * may take G over.
 *
 * Why no element is ever updated by a single and a bulk loop at once,
 * with the symmetric fence (the design as specified): both sides store
 * their own word, fence, then load the other's (Dekker). In the single
 * total order of the fenced operations either the single's announcement
 * comes first, and then the bulk's load of the slot sees it and waits
 * until the single has finished (its release store of 0 makes the atomic
 * visible before the bulk's acquire load), or the bulk's G store comes
 * first, and then the single's load sees G != 0, and the single retracts
 * without touching the target and waits until G is free again (whose
 * release store makes the loop's plain stores visible to the single's
 * atomics). Bulk ops exclude each other through the CAS on G. Single ops
 * exclude nothing among themselves: they are CPU atomics, as before. On
 * x86 the single's fence is the exchange (or locked add) that writes the
 * slot: one locked instruction more than the bare atomic.
 *
 * The asymmetric fence (used when the kernel of every unit of the node
 * offers membarrier(2) MEMBARRIER_CMD_GLOBAL_EXPEDITED) moves that fence to
 * the rare side. A single of a process registered for it announces with a
 * plain store and only a compiler barrier before its load of G; a bulk
 * that takes G *from 0*
 * calls membarrier, which runs a full barrier on every CPU that runs a
 * thread of a registered process (a context switch is one too) before it
 * returns, so either the single's announcement is visible to the bulk's
 * later slot loads, or the single's load of G comes after the barrier and
 * sees G taken. While G is not 0 (taken or paused) every single takes the
 * fenced path (dart__gate_wait: fenced announcement, then it may proceed
 * while G is paused), so a bulk taking a paused G needs no membarrier:
 * plain Dekker with full fences on both sides. That is why the bulk leaves
 * G paused at its end: the next bulk on that target (of any origin) pays
 * no membarrier. After DART__GATE_UNPAUSE fenced singles have found G
 * paused in a row, a single sets it back to 0 (safe at any time: the next
 * bulk then calls membarrier again) and singles are fast again.
 *
 * The registration (MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) waits for an
 * RCU grace period once the process has a second thread: 10-30 ms, which
 * was a third of dart_init's own time with 4 units on 2 cores. A helper
 * thread does it while MPI starts (dart__gate_register_start). Until it
 * is done, the process's singles announce fenced: that is the symmetric
 * protocol, correct next to any bulk whether or not the bulk runs
 * membarrier, so a node may mix registered and unregistered units and
 * only the kernel's offer is agreed. Registration is for good. A single
 * that reads the flag set (acquire, after the syscall returned) and then
 * announces plainly is covered: a bulk's membarrier that skipped its CPU
 * scanned before the registration returned, so that bulk's G was visible
 * before the flag, and the single's load of G sees it taken.
 *
 * Fairness: singles that found G taken count themselves in W and leave W
 * only once they are in; a bulk takes a free G only when W is 0 (or it has
 * waited for that for QUICK_SPINS polls), so between two chunks of a long
 * accumulate the waiting singles get in first.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#if defined(__NR_membarrier) && __has_include(<linux/membarrier.h>)
#include <linux/membarrier.h>
#define HAVE_MEMBARRIER 1
#endif
#endif

#include "dart_watch.h"
#include "transport/cpu_atomic.h"
#include "transport/cpu_gate.h"
#include "transport/transport.h"

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

#define SEQ __ATOMIC_SEQ_CST

/* Fenced singles that find G paused before one of them frees it. */
#define DART__GATE_UNPAUSE 64

dart__gate_t dart__gate;

/* Singles that found G paused in a row (a heuristic: races are harmless). */
static uint32_t paused_seen;

/* Pause for a short wait (an op of a few ns in flight), then poll with
 * dart__wait_poll (backoff, yielding, MPI progress). */
enum { QUICK_SPINS = 64 };

static inline uint32_t *word(char *base, ptrdiff_t off)
{
  return (uint32_t *)(void *)(base + off);
}

static inline bool taken(uint32_t g)
{
  return g != 0 && (g & DART__GATE_PAUSED) == 0;
}

static void announce_fenced(uint32_t *slot)
{
  if (dart__gate.counter)
    __atomic_fetch_add(slot, 1, SEQ);
  else
    __atomic_exchange_n(slot, 1, SEQ);
}

static void retract(uint32_t *slot)
{
  if (dart__gate.counter)
    __atomic_fetch_sub(slot, 1, SEQ);
  else
    __atomic_store_n(slot, 0, SEQ);
}

static void poll_step(const char *func, uint64_t it, bool *watched)
{
  if (it < QUICK_SPINS) {
    CPU_RELAX();
    return;
  }
  if (!*watched) {
    DART__WATCH(func, "the accumulate gate of the target", DART__WATCH_NONE,
                DART__WATCH_NONE, DART__WATCH_NONE, -1);
    *watched = true;
  }
  dart__wait_poll(it - QUICK_SPINS);
}

void dart__gate_wait(const char *func, char *base, uint32_t *slot)
{
  uint32_t *gw = word(base, dart__gate.g_rel);
  uint32_t *w = word(base, dart__gate.w_rel);
  retract(slot);
  bool waiting = false, watched = false;
  uint32_t g;
  for (uint64_t it = 0;;) {
    g = __atomic_load_n(gw, __ATOMIC_ACQUIRE);
    if (taken(g)) {
      if (!waiting) __atomic_fetch_add(w, 1, SEQ);
      waiting = true;
      poll_step(func, it++, &watched);
      continue;
    }
    announce_fenced(slot);
    g = __atomic_load_n(gw, SEQ);
    if (!taken(g)) break;
    retract(slot);
  }
  if (waiting) __atomic_fetch_sub(w, 1, __ATOMIC_RELEASE);
  if (watched) dart__watch_end();
  if (g == 0 || !dart__gate.asym) {
    __atomic_store_n(&paused_seen, 0, __ATOMIC_RELAXED);
    return;
  }
  /* Paused after a bulk: free it once singles keep finding it so. */
  uint32_t n = __atomic_load_n(&paused_seen, __ATOMIC_RELAXED) + 1;
  if (n >= DART__GATE_UNPAUSE) {
    n = 0;
    __atomic_compare_exchange_n(gw, &g, 0, false, SEQ, __ATOMIC_RELAXED);
  }
  __atomic_store_n(&paused_seen, n, __ATOMIC_RELAXED);
}

/* Full barrier on every CPU running a thread of a registered process. */
static void heavy_barrier(void)
{
#ifdef HAVE_MEMBARRIER
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0) == 0) return;
#endif
  /* Registered at dart_init, so it cannot fail: continuing would break
   * the atomicity of concurrent single ops. */
  DART_LOG_ERROR("membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) failed");
  abort();
}

/* Takes G of the page (waiting singles first), then waits until no
 * single op is in flight on it. */
static void gate_take(const char *func, char *base)
{
  uint32_t *gw = word(base, dart__gate.g_rel);
  uint32_t *w = word(base, dart__gate.w_rel);
  bool watched = false;
  uint32_t g;
  for (uint64_t it = 0;; it++) {
    g = __atomic_load_n(gw, __ATOMIC_RELAXED);
    if (!taken(g) &&
        (it >= QUICK_SPINS || __atomic_load_n(w, __ATOMIC_ACQUIRE) == 0) &&
        __atomic_compare_exchange_n(gw, &g, dart__gate.me1, false, SEQ,
                                    __ATOMIC_RELAXED))
      break;
    poll_step(func, it, &watched);
  }
  if (g == 0 && dart__gate.asym) heavy_barrier();
  char *s = base + dart__gate.slots_rel;
  for (int i = 0; i < dart__gate.nslots; i++) {
    uint32_t *slot = word(s, (ptrdiff_t)i * dart__gate.stride);
    for (uint64_t it = 0; __atomic_load_n(slot, SEQ) != 0; it++)
      poll_step(func, it, &watched);
  }
  if (watched) dart__watch_end();
}

static void gate_release(char *base, bool last)
{
  uint32_t g = dart__gate.me1 | DART__GATE_PAUSED;
  if (last && !dart__gate.asym) g = 0;
  __atomic_store_n(word(base, dart__gate.g_rel), g, __ATOMIC_RELEASE);
}

/* Per element under an announcement (single ops, or no gate). */
static int by_atomics(const char *func, int g, void *target, const void *values,
                      size_t nelem, size_t esz, dart_datatype_t t,
                      dart_operation_t op)
{
  uint32_t *slot = dart__gate_enter(func, g);
  int rc = dart__cpu_atomic(target, values, NULL, nelem, esz, t, op);
  dart__gate_leave(slot);
  return rc;
}

int dart__cpu_accumulate(const char *func, int g, void *target,
                         const void *values, size_t nelem, size_t esz,
                         dart_datatype_t t, dart_operation_t op)
{
  if (nelem <= dart__gate.single_max || !dart__gate.plain)
    return by_atomics(func, g, target, values, nelem, esz, t, op);
  /* The same types and alignment as the CPU atomics (nothing done). */
  if (dart__cpu_atomic(target, values, NULL, 0, esz, t, op) != 0) return -1;
  if (op == DART_OP_NO_OP) return 0;
  char *base = NULL;
  if (dart__gate.base != NULL) {
    int r = dart__gate.node_idx[g];
    base = r >= 0 ? dart__gate.base[r] : NULL;
    if (base == NULL) /* not mapped: cannot happen for CPU atomics */
      return by_atomics(func, g, target, values, nelem, esz, t, op);
  }
  size_t chunk = dart__gate.chunk / esz;
  if (chunk == 0) chunk = 1;
  char *tp = target;
  const char *vp = values;
  for (size_t done = 0; done < nelem;) {
    size_t n = nelem - done < chunk ? nelem - done : chunk;
    if (base != NULL) gate_take(func, base);
    int rc = dart__cpu_bulk(tp + done * esz, vp + done * esz, n, t, op);
    done += n;
    if (base != NULL) gate_release(base, done == nelem || rc != 0);
    if (rc != 0) return -1;
  }
  /* Plain stores: the next flush fences (as after a non-blocking put). */
  dart__shm_mark_pending();
  return 0;
}

/* Whether the kernel offers the global expedited membarrier and its
 * registration (a query: no cost). */
static bool asym_supported(void)
{
#ifdef HAVE_MEMBARRIER
  long q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0);
  long need = MEMBARRIER_CMD_GLOBAL_EXPEDITED |
              MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED;
  return q >= 0 && (q & need) == need;
#else
  return false;
#endif
}

bool dart__gate_registered;
static pthread_t reg_thread;
static bool reg_running; /* reg_thread to join */

static void *reg_main(void *arg)
{
  (void)arg;
#ifdef HAVE_MEMBARRIER
  if (syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0) ==
      0)
    __atomic_store_n(&dart__gate_registered, true, __ATOMIC_RELEASE);
#endif
  return NULL;
}

void dart__gate_register_start(void)
{
  if (__atomic_load_n(&dart__gate_registered, __ATOMIC_ACQUIRE) ||
      reg_running || !asym_supported())
    return;
  if (pthread_create(&reg_thread, NULL, reg_main, NULL) == 0)
    reg_running = true;
  else
    reg_main(NULL);
}

void dart__gate_register_join(void)
{
  if (!reg_running) return;
  pthread_join(reg_thread, NULL);
  reg_running = false;
}

dart_ret_t dart__cpu_gate_set(const dart__team_t *team, char *own,
                              char *const *peer, size_t back)
{
  free(dart__gate.base);
  memset(&dart__gate, 0, sizeof dart__gate);
  dart__gate.single_max = DART__GATE_SINGLE_MAX;
  dart__gate.chunk = DART__GATE_CHUNK;
  if (team == NULL) return DART_OK;
  int nodes = team->node_size, rank = team->node_rank;
  uint32_t room = (uint32_t)back - DART__GATE_SLOTS;
  uint32_t stride = (uint32_t)nodes <= room / 64 ? 64 : 4;
  int cap = (int)(room / stride);
  int idx = rank < cap - 1 ? rank : cap - 1;
  dart__gate.stride = stride;
  dart__gate.nslots = nodes < cap ? nodes : cap;
  dart__gate.counter = dart__g.multithreaded || (nodes > cap && idx == cap - 1);
  dart__gate.me1 = (uint32_t)dart__g.myid + 1;
  dart__gate.g_rel = DART__GATE_G - (ptrdiff_t)back;
  dart__gate.w_rel = DART__GATE_W - (ptrdiff_t)back;
  dart__gate.slots_rel = DART__GATE_SLOTS - (ptrdiff_t)back;
  dart__gate.slot_rel =
      dart__gate.slots_rel + (ptrdiff_t)idx * (ptrdiff_t)stride;
  /* The caller's own page, before any peer reads it (a barrier follows). */
  memset(own - back + DART__GATE_G, 0, back - DART__GATE_G);
  /* The fence is chosen per node: every unit of it must use the same. A
   * unit alone on its node needs none (single-threaded: no gate at all;
   * threads: their shared slot is a counter, fenced by its locked add). */
  bool alone = nodes == 1 && !dart__g.multithreaded;
  int can = nodes > 1 && asym_supported(), agreed = 0;
  if (dart__mpi_allreduce(&can, &agreed, 1, MPI_INT, MPI_MIN,
                          team->node_comm) != MPI_SUCCESS) {
    DART_LOG_ERROR("cannot agree on the fence of the accumulate gates");
    return DART_ERR_OTHER;
  }
  dart__gate.can_asym = dart__gate.asym = agreed != 0;
  dart__gate.plain = true;
  /* Alone on its node and single-threaded: nobody else can reach this
   * memory by load/store, so bulk loops need no gate. */
  if (alone) return DART_OK;
  /* The pool maps node peers; the caller's own portion is own even
   * where peers reach it through MPI (then its mapped base is NULL). */
  char **base = malloc((size_t)nodes * sizeof *base);
  if (base == NULL) {
    DART_LOG_ERROR("out of memory for the accumulate gates");
    dart__gate.plain = false;
    return DART_ERR_NOMEM;
  }
  /* Only node peers can be mapped: one entry per node rank. */
  for (int r = 0; r < nodes; r++) base[r] = r == rank ? own : peer[r];
  dart__gate.node_idx = team->node_idx;
  dart__gate.base = base;
  return DART_OK;
}
