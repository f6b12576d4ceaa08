/*
 * The watchdog (DART_WATCHDOG seconds, off by default): reports every wait
 * inside DART that outlives the limit, one line per wait, naming the call,
 * what it waits for, the team, segment, target unit and the collective's
 * sequence number on the team. With every unit's line the wait-for cycle
 * of a hung program is visible. DART_WATCHDOG_ABORT ends the job after
 * that many seconds of one wait.
 *
 * Threads publish their current wait in a slot of their own (claimed on
 * first use); the watchdog thread only reads slots and never calls MPI, so
 * it runs at every MPI thread level. A record may be read while its owner
 * updates it: the report may mix two consecutive waits of one thread,
 * never crash (all fields are plain words, strings are literals).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "dart_mpi.h"
#include "dart_watch.h"

enum { SLOTS = 256 };

typedef struct {
  dart__watch_info_t info;
  long long since_ns; /* start of the outermost wait, 0 if none   */
  long long reported; /* since_ns of the last wait reported       */
  int depth;
} slot_t;

bool dart__watch_on;

static slot_t slots[SLOTS];
static int nslots;
static __thread slot_t *my_slot;
static pthread_t watch_thread;
static int watch_stop;
static pthread_mutex_t watch_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;

static long long now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static slot_t *claim_slot(void)
{
  int i = __atomic_fetch_add(&nslots, 1, __ATOMIC_ACQ_REL);
  if (i >= SLOTS) return NULL; /* more threads than slots: not watched */
  return &slots[i];
}

void dart__watch_enter(const dart__watch_info_t *info)
{
  slot_t *s = my_slot;
  if (s == NULL && (s = my_slot = claim_slot()) == NULL) return;
  if (s->depth++ == 0) {
    s->info = *info;
    __atomic_store_n(&s->since_ns, now_ns(), __ATOMIC_RELEASE);
    return;
  }
  /* Inner wait: keep the call, team and sequence number of the outer one
   * unless it had none. */
  if (info->call != NULL && s->info.call == NULL) s->info.call = info->call;
  if (info->team != DART__WATCH_NONE) s->info.team = info->team;
  if (info->seq >= 0) s->info.seq = info->seq;
  s->info.what = info->what;
  if (info->seg != DART__WATCH_NONE) s->info.seg = info->seg;
  if (info->unit != DART__WATCH_NONE) s->info.unit = info->unit;
}

void dart__watch_leave(void)
{
  slot_t *s = my_slot;
  if (s == NULL || s->depth == 0) return;
  if (--s->depth == 0) __atomic_store_n(&s->since_ns, 0, __ATOMIC_RELEASE);
}

/* One line: "unit U waits S s in CALL for WHAT [team..][seg..][unit..]". */
static void report(const slot_t *s, double secs, const char *verdict)
{
  dart__watch_info_t in = s->info;
  char extra[160];
  int n = 0;
  extra[0] = '\0';
  if (in.team != DART__WATCH_NONE)
    n += snprintf(extra + n, sizeof extra - (size_t)n, " team %d", in.team);
  if (in.seq >= 0 && n < (int)sizeof extra)
    n += snprintf(extra + n, sizeof extra - (size_t)n, " collective #%ld",
                  in.seq);
  if (in.seg != DART__WATCH_NONE && n < (int)sizeof extra)
    n += snprintf(extra + n, sizeof extra - (size_t)n, " segment %d", in.seg);
  if (in.unit != DART__WATCH_NONE && n < (int)sizeof extra)
    snprintf(extra + n, sizeof extra - (size_t)n, " target unit %d", in.unit);
  /* what may be the text of an MPI call, "MPI_Foo(args)": its name is
   * enough. A note after a space, "MPI_Foo (what for)", is kept. */
  const char *what = in.what ? in.what : "?";
  int wlen = (int)strcspn(what, "(");
  if (wlen > 0 && what[wlen] == '(' && what[wlen - 1] == ' ')
    wlen = (int)strlen(what);
  fprintf(stderr, "[DART watchdog] unit %d waits %.1f s in %s for %.*s:%s%s\n",
          dart__g.myid, secs, in.call ? in.call : "(internal)", wlen, what,
          extra[0] ? extra : " (no details)", verdict);
  fflush(stderr);
}

/* Checks every slot once; returns true if the job must end. */
static bool scan(long long limit, long long abort_after)
{
  int n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
  if (n > SLOTS) n = SLOTS;
  long long now = now_ns();
  for (int i = 0; i < n; i++) {
    slot_t *s = &slots[i];
    long long since = __atomic_load_n(&s->since_ns, __ATOMIC_ACQUIRE);
    if (since == 0) continue;
    long long waited = now - since;
    if (abort_after > 0 && waited >= abort_after) {
      report(s, (double)waited / 1e9, "; ending the job (DART_WATCHDOG_ABORT)");
      return true;
    }
    if (waited >= limit && s->reported != since) {
      report(s, (double)waited / 1e9, "");
      s->reported = since;
    }
  }
  return false;
}

static void *watch_main(void *arg)
{
  (void)arg;
  long long limit = dart__env.watchdog * 1000000000LL;
  long long abort_after = dart__env.watchdog_abort * 1000000000LL;
  /* Poll at a tenth of the limit, at most every 100 ms. */
  long long period = limit / 10 < 100000000LL ? limit / 10 : 100000000LL;
  pthread_mutex_lock(&watch_mutex);
  while (!watch_stop) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    long long t = (long long)ts.tv_nsec + period;
    ts.tv_sec += (time_t)(t / 1000000000LL);
    ts.tv_nsec = (long)(t % 1000000000LL);
    pthread_cond_timedwait(&watch_cond, &watch_mutex, &ts);
    if (!watch_stop && scan(limit, abort_after)) {
      pthread_mutex_unlock(&watch_mutex);
      /* Never returns; the launcher tears the job down when one process
       * exits abnormally. MPI_Abort is not allowed from this thread below
       * MPI_THREAD_MULTIPLE. */
      _exit(124);
    }
  }
  pthread_mutex_unlock(&watch_mutex);
  return NULL;
}

void dart__watch_init(void)
{
  if (dart__env.watchdog <= 0) return;
  /* Slots keep their threads across dart_init/dart_exit cycles; waits cut
   * short by a previous dart_exit are forgotten. */
  int n = __atomic_load_n(&nslots, __ATOMIC_ACQUIRE);
  for (int i = 0; i < n && i < SLOTS; i++) {
    slots[i].depth = 0;
    __atomic_store_n(&slots[i].since_ns, 0, __ATOMIC_RELEASE);
  }
  watch_stop = 0;
  if (pthread_create(&watch_thread, NULL, watch_main, NULL) != 0) {
    DART_LOG_WARN("cannot start the watchdog thread; DART_WATCHDOG ignored");
    return;
  }
  __atomic_store_n(&dart__watch_on, true, __ATOMIC_RELEASE);
  DART_LOG_DEBUG("watchdog: report waits over %ld s, abort after %ld s",
                 dart__env.watchdog, dart__env.watchdog_abort);
}

void dart__watch_fini(void)
{
  if (!dart__watch_on) return;
  __atomic_store_n(&dart__watch_on, false, __ATOMIC_RELEASE);
  pthread_mutex_lock(&watch_mutex);
  watch_stop = 1;
  pthread_cond_signal(&watch_cond);
  pthread_mutex_unlock(&watch_mutex);
  pthread_join(watch_thread, NULL);
}
