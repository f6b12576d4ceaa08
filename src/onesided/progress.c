/*
 * Asynchronous progress for the MPI RMA path.
 *
 * A passive-target operation may need the target process to enter MPI:
 * MPICH (ch4:ucx) completes RMA by active messages handled there, and Open
 * MPI's osc/ucx over UCX's shared-memory/TCP transports was measured to
 * leave flushed puts and atomics undelivered while the target computes
 * outside MPI (tests/onesided/test_handles, test_progress). A unit busy
 * outside DART would stall everybody accessing its memory. The progress
 * thread sleeps DART_PROGRESS_INTERVAL_US between polls of the MPI engine
 * (MPI_Iprobe on a private communicator), so such operations complete
 * within about one interval.
 *
 * DART_PROGRESS=auto (default) starts it only where RMA goes through MPI
 * between processes: more than one node in DART's view (DART_SIM_NODE_SIZE
 * counts); on one node all traffic of allocated memory is load/store.
 * "thread" always starts it, "none" never. The thread needs
 * MPI_THREAD_MULTIPLE: dart_init asks for it when dart__progress_wanted()
 * says so (decided before MPI_Init from the launcher's environment).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dart_team.h"
#include "onesided/onesided.h"
#include "onesided/progress.h"

typedef enum { PROGRESS_AUTO, PROGRESS_THREAD, PROGRESS_NONE } progress_mode_t;

static pthread_t progress_thread;
static bool progress_running;
static int progress_stop;
static MPI_Comm progress_comm = MPI_COMM_NULL;

static progress_mode_t parse_mode(const char *s)
{
  if (s == NULL || *s == '\0' || strcasecmp(s, "auto") == 0)
    return PROGRESS_AUTO;
  if (strcasecmp(s, "thread") == 0) return PROGRESS_THREAD;
  if (strcasecmp(s, "none") == 0) return PROGRESS_NONE;
  DART_LOG_WARN("DART_PROGRESS=%s is not auto, thread or none; using auto", s);
  return PROGRESS_AUTO;
}

static long env_long(const char *name)
{
  const char *s = getenv(name);
  return s ? strtol(s, NULL, 10) : -1;
}

/* First set variable of a list, as a number; -1 if none is set. */
static long env_first(const char *a, const char *b)
{
  long v = env_long(a);
  return v >= 0 ? v : env_long(b);
}

/* Guess before MPI_Init whether the job spans nodes in DART's view, from
 * the launcher's environment (MPICH's Hydra, Open MPI's mpirun); true when
 * unknown. */
static bool may_span_nodes(void)
{
  long size = env_first("PMI_SIZE", "OMPI_COMM_WORLD_SIZE");
  long local = env_first("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE");
  long sim = env_long("DART_SIM_NODE_SIZE");
  if (size <= 0 || local <= 0) return true;
  if (sim > 0 && size > sim) return true;
  return local < size;
}

bool dart__progress_wanted(void)
{
  switch (parse_mode(getenv("DART_PROGRESS"))) {
  case PROGRESS_NONE: return false;
  case PROGRESS_THREAD: return true;
  default: return may_span_nodes();
  }
}

static void *progress_main(void *arg)
{
  (void)arg;
  long us =
      dart__env.progress_interval_us > 0 ? dart__env.progress_interval_us : 1;
  struct timespec ts = {.tv_sec = us / 1000000,
                        .tv_nsec = (us % 1000000) * 1000};
  while (!__atomic_load_n(&progress_stop, __ATOMIC_ACQUIRE)) {
    int flag;
    DART__MPI_LOG(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, progress_comm, &flag,
                             MPI_STATUS_IGNORE));
    nanosleep(&ts, NULL);
  }
  return NULL;
}

dart_ret_t dart__progress_init(void)
{
  progress_mode_t mode = parse_mode(dart__env.progress);
  bool want = mode == PROGRESS_THREAD ||
              (mode == PROGRESS_AUTO && dart__g.num_nodes > 1);
  if (!want) {
    DART_LOG_DEBUG("no progress thread (DART_PROGRESS=%s, %d node(s))",
                   dart__env.progress, dart__g.num_nodes);
    return DART_OK;
  }
  if (dart__g.thread_level < MPI_THREAD_MULTIPLE) {
    DART_LOG_WARN("progress thread needs MPI_THREAD_MULTIPLE (MPI provides "
                  "level %d): RMA to a unit busy outside DART waits for it",
                  dart__g.thread_level);
    return DART_OK;
  }
  /* A communicator of its own. Not a duplicate of MPI_COMM_SELF: MPICH
   * answers probes on single-process communicators without polling the
   * network. All units reach this point alike (same environment, same
   * node count), so the collective dup matches up. */
  DART__MPI(MPI_Comm_dup(dart__g.comm, &progress_comm));
  __atomic_store_n(&progress_stop, 0, __ATOMIC_RELEASE);
  int rc = pthread_create(&progress_thread, NULL, progress_main, NULL);
  if (rc != 0) {
    DART_LOG_ERROR("cannot start the progress thread (error %d)", rc);
    DART__MPI_LOG(MPI_Comm_free(&progress_comm));
    return DART_ERR_OTHER;
  }
  progress_running = true;
  DART_LOG_DEBUG("progress thread started, interval %ld us",
                 dart__env.progress_interval_us);
  return DART_OK;
}

void dart__progress_fini(void)
{
  /* Runs first at dart_exit: requests of released handles end here. */
  dart__handles_fini();
  if (!progress_running) return;
  __atomic_store_n(&progress_stop, 1, __ATOMIC_RELEASE);
  pthread_join(progress_thread, NULL);
  progress_running = false;
  DART__MPI_LOG(MPI_Comm_free(&progress_comm));
}

void dart__progress_poke(void)
{
  /* Rate-limited: a probe costs 0.1-1 us, the local copy it precedes a
   * few ns. Racy increments between threads only shift the rate. */
  static unsigned calls;
  unsigned n = __atomic_load_n(&calls, __ATOMIC_RELAXED);
  __atomic_store_n(&calls, n + 1, __ATOMIC_RELAXED);
  if ((n & 7) != 0) return;
  int flag;
  DART__MPI_LOG(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, dart__g.comm, &flag,
                           MPI_STATUS_IGNORE));
}

/* For tests and diagnostics: is the progress thread running? */
bool dart__progress_active(void)
{
  return progress_running;
}
