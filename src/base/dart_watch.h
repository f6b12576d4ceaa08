/*
 * Internal: what each thread is waiting for, and the watchdog that reports
 * waits that last too long (DART_WATCHDOG, watch.c).
 *
 * Every place where DART may wait for another unit (a collective, the
 * creation or free of a window or communicator, a flush, a request, a lock
 * hand-over, the lock word of an emulated atomic) brackets the wait with
 * dart__watch_begin / dart__watch_end. With the watchdog off
 * (the default) that is one predictable branch on a global flag and an
 * update of the wait word the progress thread reads (a plain load and
 * store, or a locked add when the user holds DART_THREAD_MULTIPLE and
 * several threads may write it). With it
 * on, the thread publishes a record in its own slot; a separate watchdog
 * thread, which never calls MPI, prints one line per wait that outlives
 * DART_WATCHDOG seconds and may end the job after DART_WATCHDOG_ABORT.
 *
 * Waits nest (dart_lock_acquire -> atomic -> flush): the outermost call
 * names the public function, the team and the collective sequence number
 * and starts the clock; inner waits refine what is waited for.
 */
#ifndef DART__WATCH_H
#define DART__WATCH_H

#include <stdbool.h>

#include "dart_log.h"
#include "dart_mpi.h"

/* Nothing known for an int field of a wait record. */
#define DART__WATCH_NONE (-32768)

typedef struct {
  const char *call; /* public function, NULL: keep the outer one       */
  const char *what; /* MPI call or condition waited for                 */
  int team;         /* team id or DART__WATCH_NONE                      */
  int seg;          /* segment id or DART__WATCH_NONE                   */
  int unit;         /* target unit (team-relative) or DART__WATCH_NONE  */
  long seq;         /* collective sequence number on team, or -1        */
} dart__watch_info_t;

/* True while the watchdog runs (DART_WATCHDOG > 0). */
extern bool dart__watch_on DART__HIDDEN;

/*
 * Waits of this process's threads, for the progress thread
 * (transport/progress.c, progress_policy.h): the low 16 bits count the
 * waits now under way, the bits above count finished waits. One add per
 * begin and end: a locked add only when the user was granted
 * DART_THREAD_MULTIPLE; otherwise one thread writes the word and the
 * progress thread only reads it, so a plain load and store suffice (no
 * lock prefix on the flush path of single-threaded programs).
 */
extern unsigned long dart__wait_word DART__HIDDEN;
#define DART__WAIT_END_ADD 0xFFFFUL /* (1 << 16) - 1 */

DART__HIDDEN void dart__watch_enter(const dart__watch_info_t *info);
DART__HIDDEN void dart__watch_leave(void);

static inline void dart__wait_word_add(unsigned long v)
{
  if (__builtin_expect(dart__g.multithreaded, 0))
    __atomic_fetch_add(&dart__wait_word, v, __ATOMIC_RELAXED);
  else
    __atomic_store_n(&dart__wait_word,
                     __atomic_load_n(&dart__wait_word, __ATOMIC_RELAXED) + v,
                     __ATOMIC_RELAXED);
}

static inline void dart__watch_begin(const dart__watch_info_t *info)
{
  dart__wait_word_add(1UL);
  if (__builtin_expect(dart__watch_on, 0)) dart__watch_enter(info);
}

static inline void dart__watch_end(void)
{
  /* depth - 1, finished + 1 */
  dart__wait_word_add(DART__WAIT_END_ADD);
  if (__builtin_expect(dart__watch_on, 0)) dart__watch_leave();
}

/* Begins a wait described field by field (see dart__watch_info_t). */
#define DART__WATCH(call_, what_, team_, seg_, unit_, seq_)                    \
  dart__watch_begin(&(dart__watch_info_t){(call_), (what_), (team_), (seg_),   \
                                          (unit_), (seq_)})

/*
 * Ends the wait around one MPI call and maps the call's result rc: a
 * failure is logged under func, naming what (the MPI call, as given to
 * DART__WATCH), and gives DART_ERR_OTHER. For blocking calls:
 *   DART__WATCH(func, what, ...);
 *   dart_ret_t ret = dart__watch_end_mpi(func, what, MPI_Foo(...));
 */
static inline dart_ret_t dart__watch_end_mpi(const char *func, const char *what,
                                             int rc)
{
  dart__watch_end();
  if (__builtin_expect(rc == MPI_SUCCESS, 1)) return DART_OK;
  dart__mpi_log_error(func, what, rc);
  return DART_ERR_OTHER;
}

/* Starts / stops the watchdog thread (dart_init / dart_exit). */
DART__HIDDEN void dart__watch_init(void);
DART__HIDDEN void dart__watch_fini(void);

#endif /* DART__WATCH_H */
