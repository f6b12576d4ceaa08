/*
 * Asynchronous progress for the MPI RMA path.
 *
 * A passive-target operation may need the target process to enter MPI:
 * MPICH (ch4:ucx) completes RMA by active messages handled there, and Open
 * MPI's osc/ucx and osc/pt2pt were measured to leave flushed puts and
 * atomics undelivered while the target computes outside MPI
 * (tests/onesided/test_progress). A unit busy outside DART would stall
 * everybody accessing its memory.
 *
 * The rule (docs/design.md 5.4):
 *  1. Every DART loop that waits for another unit drives the MPI progress
 *     engine (MPI_Test on its request, or dart__wait_poll in transport/wait.c),
 *     so two units waiting on each other inside DART always progress each
 *     other.
 *  2. The owner of memory that peers reach through MPI drives progress when
 *     it accesses that memory itself (dart__progress_poke), so a unit
 *     polling its own flag lets the peer's put complete.
 *  3. A progress thread covers a target that is away from DART: it sleeps
 *     DART_PROGRESS_INTERVAL_US between MPI_Iprobe calls. It stays out of
 *     MPI while a thread of its process waits in DART or has done so since
 *     its last look (such waits drive progress themselves), backing off
 *     to a few intervals (progress_policy.h): with MPI_THREAD_MULTIPLE,
 *     its probe and the waiting thread's flush contend for the MPI's
 *     internal locks, and on a node whose cores are all busy the loser
 *     sleeps until the next scheduler tick (4 ms here:
 *     bench/bench_progress, docs/design.md 5.4).
 *     A wait that stays unchanged for a few looks is driven anyway, so a
 *     long or forgotten wait cannot starve the peers. Where the MPI's
 *     atomics need the target's progress (Open MPI osc/ucx: software
 *     atomics served by the target's default UCX worker, which a thread
 *     waiting inside MPI_Fetch_and_op or MPI_Win_flush at
 *     MPI_THREAD_MULTIPLE does not progress), the thread drives at every
 *     look: with the back-off, 4 units on 2 cores taking MCS locks across
 *     simulated nodes stalled for 15 to over 120 s (a unit busy with lock
 *     traffic always looked "waiting"); driving at every look, 0.3 s. With
 *     DART_PROGRESS=auto it starts when the first segment whose memory some
 *     unit reaches through MPI is created (a team spanning nodes, or a
 *     registration on a team of several units, node peers included);
 *     "thread" starts it at dart_init, "none" never.
 * The thread needs MPI_THREAD_MULTIPLE: dart_init asks for it unless
 * DART_PROGRESS=none. If the application initialized MPI below that level,
 * rules 1 and 2 still hold; only a target that stays away from DART for a
 * long time delays the operations directed at it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dart_mpi.h"
#include "transport/transport.h"
#include "transport/progress.h"
#include "transport/progress_policy.h"
#include "transport/probe.h"
#include "transport/wait.h"

static pthread_t progress_thread;
static bool progress_running;
static int progress_stop;
static bool progress_allowed; /* mode and thread level permit the thread */
static pthread_mutex_t progress_mutex = PTHREAD_MUTEX_INITIALIZER;
static long progress_interval_us = 1; /* the policy's, >= 1 */

static void sleep_us(long us)
{
  struct timespec ts = {.tv_sec = us / 1000000,
                        .tv_nsec = (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static void *progress_main(void *arg)
{
  (void)arg;
  long base = progress_interval_us;
  /* Waits inside the MPI's own calls do not serve the peers' atomics. */
  bool always = dart__caps_atomics_need_progress();
  dart__progress_policy_t pol;
  dart__progress_policy_init(
      &pol, __atomic_load_n(&dart__wait_word, __ATOMIC_RELAXED), base);
  while (!__atomic_load_n(&progress_stop, __ATOMIC_ACQUIRE)) {
    unsigned long now = __atomic_load_n(&dart__wait_word, __ATOMIC_RELAXED);
    if (dart__progress_policy_step(&pol, now, base) || always)
      dart__progress_drive();
    sleep_us(pol.sleep_us);
  }
  return NULL;
}

/* Starts the thread (progress_mutex held). */
static void start_thread(const char *why)
{
  if (progress_running || !progress_allowed) return;
  __atomic_store_n(&progress_stop, 0, __ATOMIC_RELEASE);
  int rc = pthread_create(&progress_thread, NULL, progress_main, NULL);
  if (rc != 0) {
    DART_LOG_WARN("cannot start the progress thread (error %d)", rc);
    progress_allowed = false;
    return;
  }
  progress_running = true;
  DART_LOG_DEBUG("progress thread started (%s), interval %ld us", why,
                 progress_interval_us);
}

dart_ret_t dart__progress_init(const dart__policy_t *policy)
{
  dart__progress_mode_t mode = policy->progress;
  progress_interval_us = policy->progress_interval_us;
  progress_allowed = mode != DART__PROGRESS_NONE;
  if (progress_allowed && dart__g.thread_level < MPI_THREAD_MULTIPLE) {
    /* Probing from a second thread would break the MPI's rules. */
    DART_LOG_DEBUG("no progress thread: MPI thread level %d; waits in DART "
                   "drive progress",
                   dart__g.thread_level);
    progress_allowed = false;
    if (dart__g.myid == 0 && dart__g.num_nodes > 1 &&
        dart__caps_atomics_need_progress())
      DART_LOG_WARN("MPI below MPI_THREAD_MULTIPLE leaves DART without its "
                    "progress thread, and Open MPI's osc/ucx can deadlock on "
                    "contended atomics between nodes without one (locks, "
                    "counters): initialize MPI with MPI_THREAD_MULTIPLE, or "
                    "select OMPI_MCA_osc=sm,pt2pt");
  }
  if (mode == DART__PROGRESS_THREAD) {
    pthread_mutex_lock(&progress_mutex);
    start_thread("DART_PROGRESS=thread");
    pthread_mutex_unlock(&progress_mutex);
  }
  return DART_OK;
}

void dart__progress_require(const char *why)
{
  if (__atomic_load_n(&progress_running, __ATOMIC_ACQUIRE) || !progress_allowed)
    return;
  pthread_mutex_lock(&progress_mutex);
  start_thread(why);
  pthread_mutex_unlock(&progress_mutex);
}

void dart__progress_fini(void)
{
  pthread_mutex_lock(&progress_mutex);
  if (progress_running) {
    __atomic_store_n(&progress_stop, 1, __ATOMIC_RELEASE);
    pthread_join(progress_thread, NULL);
    progress_running = false;
  }
  progress_allowed = false;
  pthread_mutex_unlock(&progress_mutex);
}

void dart__progress_poke(void)
{
  /* Rate-limited: a probe costs 0.1-1 us, the local copy it precedes a
   * few ns. Racy increments between threads only shift the rate. */
  static unsigned calls;
  unsigned n = __atomic_load_n(&calls, __ATOMIC_RELAXED);
  __atomic_store_n(&calls, n + 1, __ATOMIC_RELAXED);
  if ((n & 7) == 0) dart__progress_drive();
}
