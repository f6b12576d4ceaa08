/* dart_init / dart_exit / dart_abort and process-wide state. */
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dash/dart/if/dart_communication.h>
#include <dash/dart/if/dart_initialization.h>

#include "dart_modules.h"
#include "dart_observe.h"
#include "team/dart_team.h"
#include "dart_watch.h"
#include "transport/cpu_gate.h"
#include "transport/osc_list.h"
#include "transport/probe.h"
#include "transport/wait.h"

/* Set by dart_abort: the exit guard stays quiet while the job aborts. */
static volatile int dart__aborting;

/* The process that ran dart_init: a child forked from it (without exec)
 * inherits the exit handler but is no unit, so the guard ignores it. */
static pid_t dart__init_pid;

/*
 * A unit that ends (returns from main or calls exit) while DART is
 * initialized leaves the other units waiting for it, and MPICH then
 * sometimes ends the job with exit code 0 (2 of 15 runs). At process exit
 * DART therefore ends the job with one line naming the unit and a
 * non-zero code: MPI_Abort while MPI runs, else _exit(1) (an application
 * exit handler may have finalized MPI already).
 */
static void dart__exit_guard(void)
{
  if (!dart__g.initialized || dart__aborting) return;
  if (getpid() != dart__init_pid) return;
  dart__log(DART__LOG_ERROR, "exit",
            "unit %d ended (returned from main or called exit) without "
            "dart_exit: aborting the job",
            dart__g.myid);
  fflush(stdout);
  fflush(stderr);
  dart__aborting = 1;
  /* Give the launcher time to forward the line: MPICH's Hydra drops
   * output that is still in flight when a job aborts (3 of 20 runs). */
  usleep(200000);
  int init = 0, fin = 0;
  if (MPI_Initialized(&init) == MPI_SUCCESS && init &&
      MPI_Finalized(&fin) == MPI_SUCCESS && !fin)
    MPI_Abort(MPI_COMM_WORLD, 1);
  _exit(1);
}

/* Registered once per process, by the first successful dart_init. */
static void dart__exit_guard_install(void)
{
  static int installed;
  if (installed) return;
  if (atexit(dart__exit_guard) == 0) {
    installed = 1;
  } else {
    DART_LOG_WARN("cannot register the exit handler: a unit ending without "
                  "dart_exit will not abort the job");
  }
}

/* Level parsing happens before anything can log. */
static void dart__init_logging(void)
{
  int lvl = dart__log_parse_level(dart__env.log_level);
  if (lvl < 0) {
    dart__log_level = DART__LOG_WARN;
    DART_LOG_WARN("unknown DART_LOG_LEVEL '%s', using WARN",
                  dart__env.log_level);
  } else {
    dart__log_level = lvl;
  }
}

/*
 * Open MPI's default one-sided component for non-shared windows, osc/rdma,
 * crashes in 8-byte compare-and-swap over btl/vader, cannot create a
 * window on a single process or between nodes without an RDMA-capable BTL,
 * and is slow to create windows (measured in docs/design.md). osc/ucx has
 * none of these faults but sets UCX up at its first window: 15-25 ms per
 * process with 4 units on 2 cores, and more at MPI_Finalize, which is
 * 5-10 % of a short single-node program (docs/benchmarks.md). When DART
 * starts MPI and the user has not chosen an osc component:
 *  - job on one node as Open MPI's launcher placed it (its
 *    OMPI_COMM_WORLD_SIZE and OMPI_COMM_WORLD_LOCAL_SIZE, set before the
 *    process starts; more than one process, no simulated nodes):
 *    "^ucx,pt2pt", Debian's own default and what the application-initialized
 *    path runs with. osc/rdma then carries the windows over existing
 *    memory, with DART's per-window workarounds (a one-process window,
 *    which it refuses, is never asked of it: no window for one-unit
 *    registrations, osc/sm for the rest), and osc/sm the shared ones;
 *    node peers reach nearly everything by load/store. Leaving osc/ucx
 *    in as a fallback costs its component's start, about 10 ms;
 *  - otherwise (several nodes, a launcher that does not say, simulated
 *    nodes): "^rdma", so Open MPI uses osc/ucx and osc/sm
 * (dart__osc_default, transport/osc_list.h).
 * When the application started MPI, osc/rdma may be in use: DART routes
 * around it per window alike (no window for one-unit registrations,
 * atomics on osc/rdma windows under a lock word; see globmem/sidewin.c,
 * transport/atomic.c).
 */
static void dart__route_around_mpi_bugs(int mpi_already_initialized)
{
#ifdef OPEN_MPI
  if (getenv("OMPI_MCA_osc") != NULL) return;
  if (!mpi_already_initialized) {
    setenv("OMPI_MCA_osc",
           dart__osc_default(getenv("OMPI_COMM_WORLD_SIZE"),
                             getenv("OMPI_COMM_WORLD_LOCAL_SIZE"),
                             dart__env.sim_node_size),
           0);
  } else {
    DART_LOG_DEBUG("Open MPI initialized by the application: windows on "
                   "osc/rdma get DART's workarounds");
  }
#else
  (void)mpi_already_initialized;
#endif
}

/*
 * Across real nodes, Open MPI started by the application with Debian's
 * default settings ("osc = ^ucx,pt2pt") has only osc/rdma for windows
 * between nodes, and osc/rdma cannot create one without an RDMA-capable
 * BTL (btl/tcp is not): the first window spanning nodes fails with
 * MPI_ERR_WIN. The component cannot change after MPI_Init, so the user
 * must choose it before: say so, on every unit (docs/multihost.md).
 */
static void dart__explain_init_failure(int stage)
{
  const char *hint = dart__caps_spanning_hint();
  if (stage == 4 && hint != NULL)
    DART_LOG_ERROR("if a window failed with MPI_ERR_WIN: %s", hint);
}

static dart_ret_t dart__mpi_start(int *argc, char ***argv, int requested)
{
  int flag = 0;
  DART__MPI(MPI_Initialized(&flag));
  if (flag) {
    int fin = 0;
    DART__MPI(MPI_Finalized(&fin));
    DART__CHECK(
        !fin, DART_ERR_OTHER,
        "MPI was already finalized (by an earlier dart_exit?); "
        "initialize MPI in the application to cycle dart_init/dart_exit");
  }
  dart__route_around_mpi_bugs(flag);
  if (!flag) {
    requested = dart__caps_thread_level(requested);
    int rc = MPI_Init_thread(argc, argv, requested, &dart__g.thread_level);
    dart__caps_mpit_close();
    DART__MPI(rc);
    dart__g.mpi_owned = true;
  } else {
    DART__MPI(MPI_Query_thread(&dart__g.thread_level));
    dart__g.mpi_owned = false;
  }
  DART__MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dart__g.comm));
  DART__MPI(MPI_Comm_set_errhandler(dart__g.comm, MPI_ERRORS_RETURN));
  DART__MPI(MPI_Comm_rank(dart__g.comm, &dart__g.myid));
  DART__MPI(MPI_Comm_size(dart__g.comm, &dart__g.size));
  return DART_OK;
}

static void dart__mpi_stop(void)
{
  dart__gate_register_join();
  if (dart__g.comm != MPI_COMM_NULL)
    DART__MPI_LOG(MPI_Comm_free(&dart__g.comm));
  if (dart__g.mpi_owned) DART__MPI_LOG(MPI_Finalize());
  dart__g.mpi_owned = false;
  dart__g.myid = -1;
  dart__g.size = 0;
}

static dart_ret_t dart__init(int *argc, char ***argv, int requested,
                             bool user_threads)
{
  if (dart__g.initialized) {
    DART_LOG_ERROR("DART is already initialized");
    return DART_ERR_OTHER;
  }
  dart__env_load();
  dart__init_logging();
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* Its RCU grace period overlaps the start of MPI (transport/cpu_gate.h). */
  dart__gate_register_start();
  dart_ret_t ret = dart__mpi_start(argc, argv, requested);
  if (ret != DART_OK) {
    dart__gate_register_join();
    return ret;
  }
  /* settings that change what units do together, agreed before any
   * module uses them (docs/env.md) */
  ret = (dart_ret_t)dart__env_agree();
  if (ret != DART_OK) {
    DART_LOG_ERROR("initialization failed (%s)", dart__strerror(ret));
    dart__mpi_stop();
    return ret;
  }
  /* MPI_THREAD_MULTIPLE asked for the progress thread alone does not make
   * DART's own paths thread-safe (no locks in single-thread mode). */
  dart__g.multithreaded =
      user_threads && dart__g.thread_level == MPI_THREAD_MULTIPLE;
  dart__g.initialized = true; /* subsystems use the public API */
  clock_gettime(CLOCK_MONOTONIC, &t1);
  size_t started = 0;
  ret = dart__modules_start(&started);
  if (ret != DART_OK) {
    DART_LOG_ERROR("initialization failed (%s)", dart__strerror(ret));
    dart__explain_init_failure(dart__modules_stage(started - 1));
    dart__modules_stop(started);
    dart__g.initialized = false;
    dart__mpi_stop();
    return ret;
  }
  dart__init_pid = getpid();
  dart__exit_guard_install();
  if (dart__env.verbose && dart__g.myid == 0) {
    dart__env_print(stderr);
    dart__caps_print(stderr);
    fprintf(stderr, "DART: %d units on %d node(s), MPI thread level %d\n",
            dart__g.size, dart__g.num_nodes, dart__g.thread_level);
    dart__modules_print_times(stderr, (double)(t1.tv_sec - t0.tv_sec) +
                                          (t1.tv_nsec - t0.tv_nsec) * 1e-9);
  }
  DART_LOG_DEBUG("initialized: %d units, %d nodes", dart__g.size,
                 dart__g.num_nodes);
  return DART_OK;
}

dart_ret_t dart_init(int *argc, char ***argv)
{
  return dart__init(argc, argv,
                    dart__policy_progress_wanted() ? MPI_THREAD_MULTIPLE
                                                   : MPI_THREAD_SINGLE,
                    false);
}

dart_ret_t dart_init_thread(int *argc, char ***argv,
                            dart_thread_support_level_t *thread_safety)
{
  DART__CHECK_NOTNULL(thread_safety);
  *thread_safety = DART_THREAD_SINGLE;
  dart_ret_t ret = dart__init(argc, argv, MPI_THREAD_MULTIPLE, true);
  if (ret == DART_OK && dart__g.multithreaded) {
    *thread_safety = DART_THREAD_MULTIPLE;
  }
  return ret;
}

dart_ret_t dart_exit(void)
{
  DART__CHECK(dart__g.initialized, DART_ERR_OTHER, "DART is not initialized");
  DART__OBS_QUIET(1); /* not the application's barrier */
  dart_ret_t ret = dart_barrier(DART_TEAM_ALL);
  DART__OBS_QUIET(-1);
  dart_ret_t r2 = dart__modules_stop(dart__nmodules);
  if (ret == DART_OK) ret = r2;
  dart__g.initialized = false;
  dart__mpi_stop();
  return ret;
}

bool dart_initialized(void)
{
  return dart__g.initialized;
}

void dart_abort(int errorcode)
{
  dart__aborting = 1;
  fflush(stdout);
  fflush(stderr);
  /* The launcher forwards output through pipes and tears the job down as
   * soon as it hears of the abort: lines written just before (the reason
   * for the abort) were lost now and then (MPICH's hydra, seen in the
   * sanitizer builds). A short pause lets it drain them first. */
  usleep(100 * 1000);
  int flag = 0, fin = 0;
  if (MPI_Initialized(&flag) == MPI_SUCCESS && flag &&
      MPI_Finalized(&fin) == MPI_SUCCESS && !fin) {
    MPI_Abort(MPI_COMM_WORLD, errorcode);
  }
  /* MPI_Abort should not return; make sure we never do. */
  abort();
}
