/*
 * Asynchronous progress for the MPI RMA path.
 *
 * MPICH completes a passive-target operation only when the target process
 * itself enters MPI; a unit computing outside DART would stall everybody
 * accessing its memory. The progress thread sleeps DART_PROGRESS_INTERVAL_US
 * between polls of the MPI engine (MPI_Iprobe on a private communicator),
 * so such operations complete within about one interval.
 *
 * DART_PROGRESS=auto (default) starts it only where it is needed: MPICH and
 * more than one node in DART's view (DART_SIM_NODE_SIZE counts); on one
 * node every access is load/store and needs no target progress, and Open
 * MPI progresses RMA by itself. "thread" always starts it, "none" never.
 * The thread needs MPI_THREAD_MULTIPLE: dart_init asks for it when
 * dart__progress_wanted() says so (decided before MPI_Init).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "dart_team.h"
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

/* Library is MPICH (or derived); callable before MPI_Init. */
static bool library_is_mpich(void)
{
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  if (MPI_Get_library_version(v, &len) != MPI_SUCCESS) return false;
  return strstr(v, "MPICH") != NULL && strstr(v, "Open MPI") == NULL;
}

static long env_long(const char *name)
{
  const char *s = getenv(name);
  return s ? strtol(s, NULL, 10) : -1;
}

/* Guess before MPI_Init whether the job spans nodes in DART's view, from
 * the launcher's environment; true when unknown. */
static bool may_span_nodes(void)
{
  long size = env_long("PMI_SIZE");
  long local = env_long("MPI_LOCALNRANKS");
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
  default: return library_is_mpich() && may_span_nodes();
  }
}

static void *progress_main(void *arg)
{
  (void)arg;
  long us = dart__env.progress_interval_us > 0 ? dart__env.progress_interval_us
                                               : 1;
  struct timespec ts = {.tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000};
  while (!__atomic_load_n(&progress_stop, __ATOMIC_ACQUIRE)) {
    int flag;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, progress_comm, &flag,
               MPI_STATUS_IGNORE);
    nanosleep(&ts, NULL);
  }
  return NULL;
}

dart_ret_t dart__progress_init(void)
{
  progress_mode_t mode = parse_mode(dart__env.progress);
  bool want = mode == PROGRESS_THREAD ||
              (mode == PROGRESS_AUTO && library_is_mpich() && dart__g.num_nodes > 1);
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
  /* A communicator of its own, created without involving other units. */
  DART__MPI(MPI_Comm_dup(MPI_COMM_SELF, &progress_comm));
  __atomic_store_n(&progress_stop, 0, __ATOMIC_RELEASE);
  int rc = pthread_create(&progress_thread, NULL, progress_main, NULL);
  if (rc != 0) {
    DART_LOG_ERROR("cannot start the progress thread (error %d)", rc);
    MPI_Comm_free(&progress_comm);
    return DART_ERR_OTHER;
  }
  progress_running = true;
  DART_LOG_DEBUG("progress thread started, interval %ld us",
                 dart__env.progress_interval_us);
  return DART_OK;
}

void dart__progress_fini(void)
{
  if (!progress_running) return;
  __atomic_store_n(&progress_stop, 1, __ATOMIC_RELEASE);
  pthread_join(progress_thread, NULL);
  progress_running = false;
  MPI_Comm_free(&progress_comm);
}

/* For tests and diagnostics: is the progress thread running? */
bool dart__progress_active(void) { return progress_running; }
