/* Internal to src/locks: the lock object and the MCS queue protocol. */
#ifndef DART__LOCK_INTERNAL_H
#define DART__LOCK_INTERNAL_H

#include <dash/dart/if/dart_communication.h>
#include <dash/dart/if/dart_globmem.h>
#include <dash/dart/if/dart_synchronization.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "team/dart_team.h"
#include "dart_watch.h"

/*
 * Global state of a lock: one collective allocation holding a record of
 * DART__MCS_WORDS int32 words on every team unit.
 *  TAIL  (only used on the lock's tail unit): team id of the last unit in
 *        the queue, -1 if the lock is free;
 *  NEXT  team id of the unit queued behind the owner of the record, -1;
 *  FLAG  1 while the owner of the record waits for the lock, 0 once its
 *        predecessor has handed the lock over.
 * Each unit writes its own record once with a blocking put
 * (dart__mcs_init_record; a team barrier follows before any other access);
 * after that every access is a DART atomic completed by dart_flush, also
 * on the caller's own record: loads are fetch-and-op DART_OP_NO_OP, stores
 * DART_OP_REPLACE, plus compare-and-swap on TAIL. No plain store, so the
 * protocol works on any window type and target. The one plain load: a
 * unit waiting on its own record (MPI_WIN_UNIFIED only) watches the word
 * with loads and confirms a change with a DART atomic (mcs.c, mcs_spin).
 */
enum { DART__MCS_TAIL = 0, DART__MCS_NEXT = 1, DART__MCS_FLAG = 2 };
#define DART__MCS_WORDS 4

struct dart__lock_list;

struct dart_lock_struct {
  dart_team_t teamid;
  int myid;                 /* caller's id in the team                     */
  int tail_unit;            /* team unit holding TAIL                      */
  dart_gptr_t gptr;         /* base of the records (unitid 0, offset 0)    */
  bool valid;               /* global state exists (team not destroyed)    */
  pthread_mutex_t mtx;      /* serialises the unit's threads               */
  _Atomic(uintptr_t) owner; /* token of the holding thread, 0: none  */
  struct dart_lock_struct *prev, *next; /* in the team's lock list    */
  struct dart__lock_list *list;
};

/* Locks registered with a team (team->locks), in creation order. */
struct dart__lock_list {
  struct dart_lock_struct *head, *tail;
  unsigned long created; /* locks ever created: round-robin tail unit */
};

/* Records that the calling thread holds l (after the MCS protocol granted
 * it; locks.c). */
DART__HIDDEN void dart__lock_mark_held(struct dart_lock_struct *l);

/* MCS protocol on the global records (mcs.c); the caller holds l->mtx. */
DART__HIDDEN dart_ret_t dart__mcs_init_record(struct dart_lock_struct *l);
DART__HIDDEN dart_ret_t dart__mcs_enqueue(struct dart_lock_struct *l,
                                          bool *granted);
DART__HIDDEN dart_ret_t dart__mcs_wait(struct dart_lock_struct *l);
DART__HIDDEN dart_ret_t dart__mcs_try(struct dart_lock_struct *l,
                                      bool *acquired);
DART__HIDDEN dart_ret_t dart__mcs_release(struct dart_lock_struct *l);

/* Module hook (runtime/modules.c): frees a released team's lock records. */
DART__HIDDEN void dart__locks_team_fini(dart__team_t *team);

#endif /* DART__LOCK_INTERNAL_H */
