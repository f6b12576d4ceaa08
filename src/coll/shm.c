/*
 * DART_TEAM_ALL's barrier and small data collectives through shared memory
 * on one node (dart_coll_shm.h).
 *
 * Barrier: a central counter in unit 0's pool page (transport/
 * cpu_barrier.h). A waiting unit drives MPI's progress engine every 64th
 * poll (a peer's RMA on this unit's memory may need it, as inside
 * MPI_Barrier) and yields its core after DART_SPIN_COUNT polls.
 *
 * Allreduce, allgather and allgatherv of at most DART__COLL_SHM_SLOT bytes
 * per unit:
 * every unit copies its contribution into its own slot, passes a counter
 * barrier (a second counter, shared by the two, so that a program calling
 * dart_barrier on some units and a data collective on others waits, and
 * the watchdog names both, as with MPI), and reads the slots:
 *   - allreduce: every slot, reduced into its receive buffer in unit
 *     order, x0 op (x1 op (... op x(n-1))), with MPI_Reduce_local: every
 *     unit computes the same result with the same operations (floating
 *     point included), and a non-commutative op sees increasing unit
 *     order, as MPI_Allreduce gives;
 *   - allgather: every other unit's slot, into its block of the receive
 *     buffer;
 *   - allgatherv: the same with each unit's count and displacement (the
 *     count arrays are equal on all units, so every unit knows what each
 *     slot holds; coll.c decides from them, alike everywhere).
 * Two slots per unit, used alternately by the three collectives' calls in
 * the order every unit makes them: a unit writes slot k % 2 of call k only
 * after the barrier of call k - 1, which nobody reaches before it has read
 * every slot of call k - 2, so one barrier per call suffices. The
 * barrier's acquire-release chain (each arrival's add, the last one's
 * store of the generation, the waiters' loads) orders every slot write
 * before every read.
 *
 * Bcast of at most DART__COLL_SHM_SLOT bytes, without a barrier, so that a
 * root sends and goes on as MPI's does (through the slots above, a barrier
 * per call made back-to-back broadcasts 11 us against MPI_Bcast's 0.8 us
 * at 4 units on 2 cores). Every unit has DART__COLL_SHM_BCAST_DEPTH (D)
 * bcast slots of its own, each with a publication word and an
 * acknowledgement count on cache lines of their own. Call k (counted alike
 * on every unit) uses slot k % D of its root:
 *   - the root waits until every other unit has acknowledged that slot's
 *     previous publication (at once, unless a reader is D of this root's
 *     broadcasts behind), zeroes the count, copies the data in and
 *     publishes k + 1 (release);
 *   - every other unit waits for k + 1 there (acquire), copies the data
 *     out and adds 1 to the count (release), which orders its reads before
 *     the root's next writes.
 */
#include <string.h>

#include "coll_internal.h"
#include "dart_coll_shm.h"
#include "transport/cpu_barrier.h"

static _Atomic uint64_t *shm_words;
static char *shm_slot[DART__COLL_SHM_MAX];
static int shm_n;
static uint64_t shm_round; /* allreduce and allgather(v) calls so far */
static uint64_t bc_round;  /* broadcasts so far */

/* Layout of a unit's area (DART__COLL_SHM_ROOM bytes): the two slots of
 * allreduce and allgather, its D bcast slots, then its bcast words. */
#define BC_DEPTH DART__COLL_SHM_BCAST_DEPTH
#define BC_SLOTS (2 * DART__COLL_SHM_SLOT)
#define BC_WORDS ((2 + BC_DEPTH) * DART__COLL_SHM_SLOT)
enum { LINE = 8 }; /* words per cache line */
_Static_assert(2 * BC_DEPTH * LINE * sizeof(uint64_t) <= 4096,
               "the bcast words fit the page DART__COLL_SHM_ROOM has for them");

/* Unit u's publication word (kind 0) or acknowledgement count (kind 1)
 * of its bcast slot s: each on a cache line of its own. */
static _Atomic uint64_t *bc_word(int u, int s, int kind)
{
  return (_Atomic uint64_t *)(void *)(shm_slot[u] + BC_WORDS) +
         (size_t)(2 * s + kind) * LINE;
}

void dart__coll_shm_clear(char *own)
{
  _Atomic uint64_t *w = (_Atomic uint64_t *)(void *)(own + BC_WORDS);
  for (int i = 0; i < 2 * BC_DEPTH * LINE; i++)
    atomic_store_explicit(&w[i], 0, memory_order_relaxed);
}

void dart__coll_shm_set(_Atomic uint64_t *words, char *const *slots, int n)
{
  shm_words = NULL;
  shm_n = 0;
  if (words == NULL || slots == NULL || n < 2 || n > DART__COLL_SHM_MAX) return;
  memcpy(shm_slot, slots, (size_t)n * sizeof *slots);
  shm_n = n;
  shm_round = 0;
  bc_round = 0;
  shm_words = words;
}

bool dart__coll_shm_on(void)
{
  return shm_words != NULL;
}

static void counter_barrier(_Atomic uint64_t *words)
{
  uint64_t gen;
  if (dart__cpu_barrier_arrive(words, (uint64_t)shm_n, &gen)) return;
  for (uint64_t it = 0; !dart__cpu_barrier_passed(words, gen); it++)
    dart__wait_poll_team(it);
}

void dart__coll_shm_barrier(void)
{
  counter_barrier(shm_words);
}

bool dart__coll_shm_fits(const dart__team_t *team, size_t bytes)
{
  return shm_words != NULL && team->id == DART_TEAM_ALL &&
         bytes <= DART__COLL_SHM_SLOT;
}

/* The offset of this call's slot in every unit's pair (see above). */
static size_t next_slot(void)
{
  return (size_t)(shm_round++ & 1) * DART__COLL_SHM_SLOT;
}

int dart__coll_shm_allreduce(const void *send, void *recv, size_t bytes,
                             int count, MPI_Datatype type, MPI_Op op)
{
  size_t at = next_slot();
  memcpy(shm_slot[dart__g.myid] + at, send, bytes);
  counter_barrier(shm_words + 2);
  int last = shm_n - 1;
  memcpy(recv, shm_slot[last] + at, bytes);
  int rc = MPI_SUCCESS;
  for (int u = last - 1; u >= 0 && rc == MPI_SUCCESS; u--)
    rc = MPI_Reduce_local(shm_slot[u] + at, recv, count, type, op);
  return rc;
}

/*
 * allgather and allgatherv: this unit's sbytes from send into its slot
 * (send NULL, a stand-in: zeros, the others read what their arrays give
 * this unit), the barrier, then every other unit's block out: unit u's
 * cnt[u] * esize bytes to element dsp[u] of recv, or (cnt NULL) sbytes to
 * block u.
 */
static void gather(const void *send, size_t sbytes, void *recv, const int *cnt,
                   const int *dsp, size_t esize)
{
  size_t at = next_slot();
  int me = dart__g.myid;
  if (send != NULL)
    memcpy(shm_slot[me] + at, send, sbytes);
  else
    memset(shm_slot[me] + at, 0, DART__COLL_SHM_SLOT);
  counter_barrier(shm_words + 2);
  if (send == NULL) return;
  for (int u = 0; u < shm_n; u++) {
    size_t bytes = cnt != NULL ? (size_t)cnt[u] * esize : sbytes;
    char *block = (char *)recv +
                  (cnt != NULL ? (size_t)dsp[u] * esize : (size_t)u * sbytes);
    if (u != me)
      memcpy(block, shm_slot[u] + at, bytes);
    else if (block != send)
      memcpy(block, send, bytes);
  }
}

void dart__coll_shm_allgather(const void *send, void *recv, size_t bytes)
{
  gather(send, bytes, recv, NULL, NULL, 1);
}

void dart__coll_shm_allgatherv(const void *send, size_t sbytes, void *recv,
                               const int *icnt, const int *idsp, size_t esize)
{
  gather(send, sbytes, recv, icnt, idsp, esize);
}

/* Waits until *w == want (acquire), driving progress as the barrier does. */
static void wait_equal(_Atomic uint64_t *w, uint64_t want)
{
  for (uint64_t it = 0; atomic_load_explicit(w, memory_order_acquire) != want;
       it++)
    dart__wait_poll_team(it);
}

void dart__coll_shm_bcast(void *buf, size_t bytes, int root)
{
  uint64_t k = bc_round++;
  int s = (int)(k % BC_DEPTH), me = dart__g.myid;
  char *slot = shm_slot[root] + BC_SLOTS + (size_t)s * DART__COLL_SHM_SLOT;
  _Atomic uint64_t *pub = bc_word(root, s, 0), *acks = bc_word(root, s, 1);
  if (me != root) {
    wait_equal(pub, k + 1);
    if (buf != NULL) memcpy(buf, slot, bytes);
    atomic_fetch_add_explicit(acks, 1, memory_order_release);
    return;
  }
  if (atomic_load_explicit(pub, memory_order_relaxed) != 0)
    wait_equal(acks, (uint64_t)shm_n - 1);
  atomic_store_explicit(acks, 0, memory_order_relaxed);
  if (buf != NULL)
    memcpy(slot, buf, bytes);
  else
    memset(slot, 0, bytes);
  atomic_store_explicit(pub, k + 1, memory_order_release);
}
