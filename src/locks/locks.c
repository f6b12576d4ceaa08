/*
 * Team locks: life cycle, registration with the team, thread
 * serialisation. The queue protocol itself is in mcs.c.
 *
 * Every lock is one collective allocation of a small record per team unit.
 * Its TAIL word lives on one unit: with DART_LOCK_TAIL=spread (default) the
 * n-th lock created on a team puts it on team unit n mod size, so a team
 * with many locks spreads the atomic traffic on the tails over all units;
 * DART_LOCK_TAIL=unit0 keeps every tail on unit 0 as in the DART-MPI paper.
 *
 * Locks are remembered in their team's list; when the team is destroyed
 * (dart__locks_team_fini) their global memory is freed and the handles
 * become "not initialised", so a late dart_team_lock_destroy only frees the
 * local handle.
 */
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

#include "dart_observe.h"
#include "globmem/dart_segment.h"
#include "lock_internal.h"

/* Team unit that holds the TAIL of the next lock created on `team`
 * (list->created counts the locks made so far: equal on all units, since
 * creation succeeds or fails on all alike). */
static int lock_tail_unit(dart__team_t *team, struct dart__lock_list *list)
{
  const char *mode = dart__env.lock_tail;
  unsigned long n = list->created;
  if (mode != NULL && strcasecmp(mode, "unit0") == 0) return 0;
  if (mode != NULL && strcasecmp(mode, "spread") != 0)
    DART_LOG_WARN("DART_LOCK_TAIL=%s is neither spread nor unit0; using "
                  "spread",
                  mode);
  return (int)(n % (unsigned long)team->size);
}

static void lock_list_append(struct dart__lock_list *list,
                             struct dart_lock_struct *l)
{
  l->list = list;
  l->prev = list->tail;
  l->next = NULL;
  if (list->tail)
    list->tail->next = l;
  else
    list->head = l;
  list->tail = l;
}

static void lock_list_remove(struct dart_lock_struct *l)
{
  struct dart__lock_list *list = l->list;
  if (list == NULL) return;
  if (l->prev)
    l->prev->next = l->next;
  else
    list->head = l->next;
  if (l->next)
    l->next->prev = l->prev;
  else
    list->tail = l->prev;
  l->list = NULL;
  l->prev = l->next = NULL;
}

/* Allocates and initialises the global records (collective): status is
 * the caller's local checks, agreed with the allocation, so a failure on
 * one unit fails the call on all and nobody waits. */
static dart_ret_t lock_create_global(dart__team_t *team, dart_ret_t status,
                                     struct dart_lock_struct *l)
{
  dart_gptr_t g = DART_GPTR_NULL;
  dart_ret_t ret = dart__team_memalloc(
      "dart_team_lock_init", team, DART__MCS_WORDS, DART_TYPE_INT, status, &g);
  if (ret != DART_OK) return ret;
  l->gptr = g;
  ret = dart__mcs_init_record(l);
  /* nobody touches a record before every unit has initialised its own;
   * the worst result is agreed, so the memory is kept or freed on all */
  int mine = ret != DART_OK, any = 0;
  dart_ret_t r2 =
      dart_allreduce(&mine, &any, 1, DART_TYPE_INT, DART_OP_MAX, team->id);
  if (ret == DART_OK && r2 != DART_OK) ret = r2;
  if (ret == DART_OK && any) {
    DART_LOG_ERROR("dart_team_lock_init: initialising the lock failed on "
                   "another unit of team %d",
                   (int)team->id);
    ret = DART_ERR_OTHER;
  }
  if (ret != DART_OK) dart_team_memfree(l->gptr);
  return ret;
}

dart_ret_t dart_team_lock_init(dart_team_t teamid, dart_lock_t *lock)
{
  if (lock != NULL) *lock = DART_LOCK_NULL;
  DART__CHECK_INIT();
  DART__TEAM_OR_RETURN(team, teamid);
  /* Local failures do not return early: they travel with the allocation's
   * agreement (docs/onebad.md). */
  dart_ret_t status = DART_OK;
  if (lock == NULL) {
    DART_LOG_ERROR("argument 'lock' is NULL");
    status = DART_ERR_INVAL;
  }
  if (team->locks == NULL)
    team->locks = calloc(1, sizeof(struct dart__lock_list));
  struct dart_lock_struct *l = calloc(1, sizeof(*l));
  if (status == DART_OK && (team->locks == NULL || l == NULL)) {
    DART_LOG_ERROR("out of memory");
    status = DART_ERR_NOMEM;
  }
  if (status == DART_OK) {
    l->teamid = teamid;
    l->myid = team->myid;
    l->tail_unit = lock_tail_unit(team, team->locks);
    pthread_mutex_init(&l->mtx, NULL);
  }
  DART__OBS_QUIET(1); /* its memory and barrier are the lock's own */
  dart_ret_t ret = lock_create_global(team, status, l);
  DART__OBS_QUIET(-1);
  if (ret != DART_OK) {
    if (status == DART_OK) pthread_mutex_destroy(&l->mtx);
    free(l);
    return ret;
  }
  team->locks->created++; /* succeeded on every unit */
  l->valid = true;
  lock_list_append(team->locks, l);
  *lock = l;
  return DART_OK;
}

dart_ret_t dart_team_lock_destroy(dart_lock_t *lock)
{
  if (lock == NULL || *lock == DART_LOCK_NULL) return DART_OK;
  struct dart_lock_struct *l = *lock;
  dart_ret_t ret = DART_OK;
  if (l->valid && dart__g.initialized) {
    /* collective over the team: memfree synchronises the members */
    lock_list_remove(l);
    DART__OBS_QUIET(1);
    ret = dart_team_memfree(l->gptr);
    DART__OBS_QUIET(-1);
    l->valid = false;
  }
  pthread_mutex_destroy(&l->mtx);
  free(l);
  *lock = DART_LOCK_NULL;
  return ret;
}

void dart__locks_team_fini(dart__team_t *team)
{
  struct dart__lock_list *list = team->locks;
  if (list == NULL) return;
  /* same order on every member: locks were created collectively */
  for (struct dart_lock_struct *l = list->head, *nx; l != NULL; l = nx) {
    nx = l->next;
    if (dart_team_memfree(l->gptr) != DART_OK)
      DART_LOG_WARN("could not free lock memory of team %d", (int)team->id);
    l->valid = false;
    l->list = NULL;
    l->prev = l->next = NULL;
  }
  free(list);
  team->locks = NULL;
}

bool dart_lock_initialized(struct dart_lock_struct const *lock)
{
  return lock != NULL && lock->valid;
}

/* Token of the calling thread: the address of a thread-local byte, unique
 * among live threads (a pthread_t cannot be stored atomically everywhere). */
static uintptr_t thread_token(void)
{
  static __thread char token;
  return (uintptr_t)&token;
}

/* Does the calling thread hold l? Only the holder stores its own token,
 * so a relaxed load suffices to recognise it. */
static bool lock_held_by_me(struct dart_lock_struct *l)
{
  return atomic_load_explicit(&l->owner, memory_order_relaxed) ==
         thread_token();
}

/* Common checks of acquire/try/release. */
#define DART__LOCK_CHECK(l)                                                    \
  do {                                                                         \
    DART__CHECK_NOTNULL(l);                                                    \
    DART__CHECK_INIT();                                                        \
    DART__CHECK_ARG((l)->valid,                                                \
                    "lock %p is not initialised or its team "                  \
                    "was destroyed",                                           \
                    (void *)(l));                                              \
  } while (0)

/* Held from here on: the thread's MPI operations are noted for the
 * release (transport/pending.c). */
void dart__lock_mark_held(struct dart_lock_struct *l)
{
  atomic_store_explicit(&l->owner, thread_token(), memory_order_relaxed);
  dart__rma_noting_add(1);
}

static void lock_mark_free(struct dart_lock_struct *l)
{
  atomic_store_explicit(&l->owner, 0, memory_order_relaxed);
  dart__rma_noting_add(-1);
}

dart_ret_t dart_lock_acquire(dart_lock_t lock)
{
  DART__LOCK_CHECK(lock);
  DART__CHECK_ARG(!lock_held_by_me(lock),
                  "lock %p is already held by the "
                  "calling unit (locks are not recursive)",
                  (void *)lock);
  uint64_t t0 = DART__OBS_T0();
  pthread_mutex_lock(&lock->mtx);
  bool granted = false;
  DART__WATCH(__func__, "an MCS lock", (int)lock->gptr.teamid, lock->gptr.segid,
              lock->tail_unit, -1);
  DART__OBS_QUIET(1); /* the queue's atomics count as the acquire */
  dart_ret_t ret = dart__mcs_enqueue(lock, &granted);
  if (ret == DART_OK && !granted) ret = dart__mcs_wait(lock);
  DART__OBS_QUIET(-1);
  dart__watch_end();
  if (ret != DART_OK) {
    pthread_mutex_unlock(&lock->mtx);
    return ret;
  }
  dart__lock_mark_held(lock);
  DART__OBS_END(t0, DART__OBS_LOCK_ACQUIRE, DART__OBS_NONE, -1, 0);
  return DART_OK;
}

dart_ret_t dart_lock_try_acquire(dart_lock_t lock, int32_t *result)
{
  DART__CHECK_NOTNULL(result);
  *result = 0;
  DART__LOCK_CHECK(lock);
  if (lock_held_by_me(lock)) {
    *result = 1;
    DART_LOG_ERROR("lock %p is already held by the calling unit", (void *)lock);
    return DART_ERR_INVAL;
  }
  uint64_t t0 = DART__OBS_T0();
  if (pthread_mutex_trylock(&lock->mtx) != 0) return DART_OK;
  bool acquired = false;
  DART__OBS_QUIET(1);
  dart_ret_t ret = dart__mcs_try(lock, &acquired);
  DART__OBS_QUIET(-1);
  if (ret != DART_OK || !acquired) {
    pthread_mutex_unlock(&lock->mtx);
    return ret;
  }
  dart__lock_mark_held(lock);
  *result = 1;
  DART__OBS_END(t0, DART__OBS_LOCK_ACQUIRE, DART__OBS_NONE, -1, 0);
  return DART_OK;
}

dart_ret_t dart_lock_release(dart_lock_t lock)
{
  DART__LOCK_CHECK(lock);
  DART__CHECK_ARG(lock_held_by_me(lock),
                  "lock %p is not held by the calling unit", (void *)lock);
  /* The critical section's RMA is complete before the next holder
   * enters (docs/locks.md). */
  uint64_t t0 = DART__OBS_T0();
  dart_ret_t ret = dart__rma_complete_noted(__func__);
  lock_mark_free(lock);
  DART__OBS_QUIET(1);
  dart_ret_t r2 = dart__mcs_release(lock);
  DART__OBS_QUIET(-1);
  if (ret == DART_OK) ret = r2;
  pthread_mutex_unlock(&lock->mtx);
  DART__OBS_END(t0, DART__OBS_LOCK_RELEASE, DART__OBS_NONE, -1, 0);
  return ret;
}
