/*
 * The module table: what dart_init starts, dart_exit stops and every team
 * creation and destruction runs, in one place (dart_modules.h).
 */
#include "dart_modules.h"
#include "dart_observe.h"
#include "globmem/dart_segment.h"
#include "dart_watch.h"
#include "coll/coll_internal.h"
#include "locality/locality_internal.h"
#include "locks/lock_internal.h"
#include "transport/probe.h"
#include "transport/wait.h"
#include "transport/progress.h"
#include "transport/transport.h"
#include "types/dart_datatype.h"

/* Hooks that cannot fail, in the table's signatures. */
static dart_ret_t topology_fini(void)
{
  dart__topology_fini();
  return DART_OK;
}

static dart_ret_t progress_fini(void)
{
  dart__progress_fini();
  return DART_OK;
}

static dart_ret_t types_fini(void)
{
  dart__types_fini();
  return DART_OK;
}

static dart_ret_t globmem_fini(void)
{
  dart__globmem_fini();
  return DART_OK;
}

static dart_ret_t locality_fini(void)
{
  dart__locality_fini();
  return DART_OK;
}

static dart_ret_t locality_team_fini(const char *func, dart__team_t *team)
{
  (void)func;
  dart__locality_team_fini(team);
  return DART_OK;
}

static dart_ret_t handles_fini(void)
{
  dart__handles_fini();
  return DART_OK;
}

static dart_ret_t locks_team_fini(const char *func, dart__team_t *team)
{
  (void)func;
  dart__locks_team_fini(team);
  return DART_OK;
}

static dart_ret_t watch_init(dart__policy_t *policy)
{
  (void)policy;
  dart__watch_init();
  return DART_OK;
}

static dart_ret_t watch_fini(void)
{
  dart__watch_fini();
  return DART_OK;
}

static dart_ret_t observe_init(dart__policy_t *policy)
{
  (void)policy;
  return (dart_ret_t)dart__obs_init();
}

static dart_ret_t observe_fini(void)
{
  return (dart_ret_t)dart__obs_fini();
}

/* Init hooks in the table's signature: each takes what it needs. */
static dart_ret_t topology_init(dart__policy_t *policy)
{
  (void)policy;
  return dart__topology_init();
}

static dart_ret_t coll_init(dart__policy_t *policy)
{
  return dart__coll_init(policy);
}

/* The capability probe (its windows are the memory layer's) comes first:
 * the progress mode depends on what it finds. */
static dart_ret_t progress_init(dart__policy_t *policy)
{
  dart_ret_t ret = dart__caps_probe(dart__g.comm, dart__g.size, dart__g.myid);
  if (ret != DART_OK) return ret;
  /* node communicators are disjoint (else: the first dart_team_create) */
  if (dart__g.num_nodes > 1) dart__ompi_unique_shm_names();
  return dart__progress_init(policy);
}

static dart_ret_t types_init(dart__policy_t *policy)
{
  (void)policy;
  return dart__types_init();
}

static dart_ret_t teams_init(dart__policy_t *policy)
{
  dart__barrier_set_policy(policy);
  return dart__teams_init();
}

static dart_ret_t globmem_init(dart__policy_t *policy)
{
  dart__agree_set_policy(policy);
  return dart__globmem_init();
}

static dart_ret_t locality_init(dart__policy_t *policy)
{
  (void)policy;
  return dart__locality_init();
}

static dart_ret_t barrier_init(dart__policy_t *policy)
{
  (void)policy;
  return dart__barrier_init();
}

static dart_ret_t collflags_init(dart__policy_t *policy)
{
  (void)policy;
  return dart__coll_flags_init();
}

/* The runtime's state handed to the modules as they start. */
static dart__policy_t policy;

/*
 * In start order, the order dart_init has always used: teams need the
 * node topology, global memory and locality build on DART_TEAM_ALL (the
 * collectives' flag window comes after global memory, so that a failure
 * to create windows keeps init stage 4: dart__explain_init_failure). At
 * exit statistics and trace are written first (every other module still
 * up), then the watchdog stops, and the requests of released handles
 * complete before locality and global memory are torn down and before any
 * window is freed. A team is released locks first (their memory is
 * freed), then its locality, then its segments and heaps.
 */
static const dart__module_t modules[] = {
    /* {name, init, fini, team_init, team_fini} */
    {"topology", topology_init, topology_fini, NULL, NULL},
    {"policy", dart__policy_decide, NULL, NULL, NULL},
    {"coll", coll_init, NULL, NULL, NULL},
    {"progress", progress_init, progress_fini, NULL, NULL},
    {"types", types_init, types_fini, NULL, NULL},
    {"teams", teams_init, dart__teams_fini, NULL, NULL},
    {"globmem", globmem_init, globmem_fini, dart__globmem_team_init,
     dart__globmem_team_fini},
    {"barrier", barrier_init, dart__barrier_fini, NULL, NULL},
    {"collflags", collflags_init, dart__coll_fini, NULL, dart__coll_team_fini},
    {"locality", locality_init, locality_fini, NULL, locality_team_fini},
    {"handles", NULL, handles_fini, NULL, NULL},
    {"locks", NULL, NULL, NULL, locks_team_fini},
    {"watch", watch_init, watch_fini, NULL, NULL},
    {"observe", observe_init, observe_fini, NULL, NULL},
};

const size_t dart__nmodules = sizeof modules / sizeof modules[0];

/* Seconds each module's init took in the last dart_init (DART_VERBOSE). */
static double module_s[sizeof modules / sizeof modules[0]];

dart_ret_t dart__modules_start(size_t *started)
{
  for (size_t i = 0; i < dart__nmodules; i++) {
    *started = i + 1;
    module_s[i] = 0;
    if (modules[i].init == NULL) continue;
    double t0 = MPI_Wtime();
    dart_ret_t ret = modules[i].init(&policy);
    module_s[i] = MPI_Wtime() - t0;
    if (ret != DART_OK) {
      DART_LOG_DEBUG("module %s failed to start", modules[i].name);
      return ret;
    }
  }
  return DART_OK;
}

void dart__modules_print_times(FILE *out, double mpi_s)
{
  double total = mpi_s;
  for (size_t i = 0; i < dart__nmodules; i++) total += module_s[i];
  fprintf(out,
          "DART: dart_init took %.1f ms on unit 0: MPI start and "
          "agreement %.1f",
          total * 1e3, mpi_s * 1e3);
  for (size_t i = 0; i < dart__nmodules; i++)
    if (modules[i].init != NULL)
      fprintf(out, ", %s %.1f", modules[i].name, module_s[i] * 1e3);
  fprintf(out, "\n");
}

dart_ret_t dart__modules_stop(size_t started)
{
  dart_ret_t ret = DART_OK;
  for (size_t i = started; i-- > 0;) {
    if (modules[i].fini == NULL) continue;
    dart_ret_t r = modules[i].fini();
    if (ret == DART_OK) ret = r;
  }
  return ret;
}

int dart__modules_stage(size_t failed)
{
  int stage = 0;
  for (size_t i = 0; i < failed && i < dart__nmodules; i++)
    stage += modules[i].fini != NULL;
  return stage;
}

/* team_fini of the first n modules in reverse; the first failure. */
static dart_ret_t team_fini_first(const char *func, dart__team_t *team,
                                  size_t n)
{
  dart_ret_t ret = DART_OK;
  for (size_t i = n; i-- > 0;) {
    if (modules[i].team_fini == NULL) continue;
    dart_ret_t r = modules[i].team_fini(func, team);
    if (ret == DART_OK) ret = r;
  }
  return ret;
}

dart_ret_t dart__modules_team_init(const char *func, dart__team_t *team)
{
  for (size_t i = 0; i < dart__nmodules; i++) {
    if (modules[i].team_init == NULL) continue;
    dart_ret_t ret = modules[i].team_init(team);
    if (ret != DART_OK) {
      team_fini_first(func, team, i + 1);
      return ret;
    }
  }
  return DART_OK;
}

dart_ret_t dart__modules_team_fini(const char *func, dart__team_t *team)
{
  return team_fini_first(func, team, dart__nmodules);
}
