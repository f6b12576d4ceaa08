/*
 * The list-based queue lock of Mellor-Crummey and Scott on DART global
 * memory (after DART-MPI, §IV.B.6), with local spinning: a waiting unit
 * polls only the FLAG word of its own record, and its predecessor clears it
 * with one remote atomic when it releases. Grant order is the order in
 * which units swapped themselves into TAIL (FIFO).
 *
 * Unlike the paper, which signals the successor with a zero-size message,
 * the hand-over is an atomic write the waiter observes; waiting never keeps
 * a core busy: after DART_SPIN_COUNT polls dart__backoff yields and sleeps.
 */

#include "lock_internal.h"
#include "transport/probe.h"
#include "transport/wait.h"

/* Global pointer to word `field` of team unit `unit`'s record. */
static dart_gptr_t mcs_at(const struct dart_lock_struct *l, int unit, int field)
{
  dart_gptr_t g = l->gptr;
  g.unitid = unit;
  g.addr_or_offs.offset = (uint64_t)field * sizeof(int32_t);
  return g;
}

/* Atomic fetch-and-op on one int32 word, completed before returning. */
static dart_ret_t mcs_fop(dart_gptr_t g, int32_t value, int32_t *old,
                          dart_operation_t op)
{
  int32_t dummy;
  dart_ret_t ret =
      dart_fetch_and_op(g, &value, old ? old : &dummy, DART_TYPE_INT, op);
  return ret == DART_OK ? dart_flush(g) : ret;
}

static dart_ret_t mcs_load(const struct dart_lock_struct *l, int unit,
                           int field, int32_t *v)
{
  return mcs_fop(mcs_at(l, unit, field), 0, v, DART_OP_NO_OP);
}

static dart_ret_t mcs_store(const struct dart_lock_struct *l, int unit,
                            int field, int32_t v)
{
  return mcs_fop(mcs_at(l, unit, field), v, NULL, DART_OP_REPLACE);
}

/* Atomic compare-and-swap on TAIL: *old receives the previous value. */
static dart_ret_t mcs_cas_tail(const struct dart_lock_struct *l, int32_t value,
                               int32_t compare, int32_t *old)
{
  dart_gptr_t g = mcs_at(l, l->tail_unit, DART__MCS_TAIL);
  dart_ret_t ret =
      dart_compare_and_swap(g, &value, &compare, old, DART_TYPE_INT);
  return ret == DART_OK ? dart_flush(g) : ret;
}

/*
 * Where the caller may watch word `field` of its own record with plain
 * loads: its own memory in the MPI_WIN_UNIFIED model, where the value an
 * MPI atomic leaves there becomes visible to loads. NULL otherwise.
 */
static const volatile int32_t *mcs_local_word(const struct dart_lock_struct *l,
                                              int field)
{
  void *p = NULL;
  if (!dart__caps.cap[DART__CAP_UNIFIED]) return NULL;
  if (dart_gptr_getaddr(mcs_at(l, l->myid, field), &p) != DART_OK) return NULL;
  return p;
}

/*
 * Polls word `field` of the caller's record until it (is / is not) `v`.
 * Where the word can be watched with loads, only a change seen there is
 * confirmed with a DART atomic, as SHMEM implementations wait on local
 * symmetric memory: an MPI that serialises atomics per target (Open MPI
 * osc/ucx takes a compare-and-swap lock of the target for each one) is
 * otherwise kept busy by the poller on the very target its predecessor
 * must write (test_locks, 4 units on 4 simulated nodes, Open MPI 4.1:
 * 0.36-0.61 s with MPI polls, 0.24-0.39 s with loads). dart__wait_poll
 * drives the MPI progress engine while polling: Open MPI's osc/ucx serves
 * an operation targeting the caller itself without progressing operations
 * that other units direct at the caller (the hand-over then never
 * completes unless something runs the full progress loop).
 */
static dart_ret_t mcs_spin(const struct dart_lock_struct *l, int field,
                           int32_t v, bool until_equal, int32_t *seen)
{
  DART__WATCH(NULL,
              field == DART__MCS_FLAG ? "the hand-over of an MCS lock"
                                      : "the successor of an MCS lock",
              (int)l->gptr.teamid, l->gptr.segid, DART__WATCH_NONE, -1);
  const volatile int32_t *local = mcs_local_word(l, field);
  dart_ret_t ret;
  for (uint64_t it = 0;; it++) {
    if (local != NULL &&
        (__atomic_load_n(local, __ATOMIC_ACQUIRE) == v) != until_equal) {
      dart__wait_poll(it);
      continue;
    }
    ret = mcs_load(l, l->myid, field, seen);
    if (ret != DART_OK || (*seen == v) == until_equal) break;
    dart__wait_poll(it);
  }
  dart__watch_end();
  return ret;
}

/*
 * Initialises the caller's record (TAIL -1, NEXT -1, FLAG 0) with one
 * blocking put; the caller then synchronises the team.
 */
dart_ret_t dart__mcs_init_record(struct dart_lock_struct *l)
{
  int32_t rec[DART__MCS_WORDS] = {-1, -1, 0, 0};
  return dart_put_blocking(mcs_at(l, l->myid, 0), rec, DART__MCS_WORDS,
                           DART_TYPE_INT, DART_TYPE_INT);
}

/*
 * First half of acquire: appends the caller to the queue. *granted is true
 * if the lock was free (the caller holds it now: one atomic in all);
 * otherwise the caller raises its FLAG, links itself behind its
 * predecessor and must call dart__mcs_wait. The predecessor clears FLAG
 * only after it has seen the link, so raising it after the swap is safe.
 */
dart_ret_t dart__mcs_enqueue(struct dart_lock_struct *l, bool *granted)
{
  int32_t pred = -1;
  dart_ret_t ret = mcs_fop(mcs_at(l, l->tail_unit, DART__MCS_TAIL), l->myid,
                           &pred, DART_OP_REPLACE);
  if (ret != DART_OK) return ret;
  *granted = pred < 0;
  if (*granted) return DART_OK;
  ret = mcs_store(l, l->myid, DART__MCS_FLAG, 1);
  if (ret != DART_OK) return ret;
  return mcs_store(l, pred, DART__MCS_NEXT, l->myid);
}

/* Second half of acquire: waits until the predecessor hands over. */
dart_ret_t dart__mcs_wait(struct dart_lock_struct *l)
{
  int32_t flag;
  return mcs_spin(l, DART__MCS_FLAG, 0, true, &flag);
}

/*
 * Takes the lock only if the queue is empty: one compare-and-swap. A
 * failed try drives progress and yields once: units retrying in a loop
 * otherwise keep an MPI's per-target atomic lock (Open MPI osc/ucx) so busy
 * that the holder's release never gets it (4 units on 2 cores hung).
 */
dart_ret_t dart__mcs_try(struct dart_lock_struct *l, bool *acquired)
{
  int32_t old = -2;
  dart_ret_t ret = mcs_cas_tail(l, l->myid, -1, &old);
  *acquired = ret == DART_OK && old == -1;
  if (ret == DART_OK && !*acquired) /* the first yielding step */
    dart__wait_poll(dart__wait_spins());
  return ret;
}

/*
 * Hands the lock to the successor, or empties the queue if there is none.
 * A successor that already swapped TAIL but has not linked itself yet is
 * waited for (it is about to write our NEXT). Invariant: a unit's NEXT is
 * -1 whenever it is not in the queue, so acquire need not reset it; the
 * releasing unit restores it before handing over (nobody else writes it
 * until the unit enqueues again).
 */
dart_ret_t dart__mcs_release(struct dart_lock_struct *l)
{
  int32_t next = -1;
  dart_ret_t ret = mcs_load(l, l->myid, DART__MCS_NEXT, &next);
  if (ret != DART_OK) return ret;
  if (next < 0) {
    int32_t old = -2;
    ret = mcs_cas_tail(l, -1, l->myid, &old);
    if (ret != DART_OK || old == l->myid) return ret;
    ret = mcs_spin(l, DART__MCS_NEXT, -1, false, &next);
    if (ret != DART_OK) return ret;
  }
  ret = mcs_store(l, l->myid, DART__MCS_NEXT, -1);
  if (ret != DART_OK) return ret;
  return mcs_store(l, next, DART__MCS_FLAG, 0);
}
