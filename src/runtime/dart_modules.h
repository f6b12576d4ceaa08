/* Internal: the modules the runtime starts, stops and runs on every team. */
#ifndef DART__MODULES_H
#define DART__MODULES_H

#include <stdio.h>
#include <stddef.h>

#include "dart_policy.h"
#include "team/dart_team.h"

/*
 * One module as the runtime sees it; any hook may be NULL (skipped).
 * init receives the runtime's policy: the "policy" module (runtime/
 * policy.c, early in the table) fills it, the modules after it read it
 * and keep what they need. dart_init runs init in table order and dart_exit
 * fini in reverse. Every team runs team_init in table order when it is built
 * (its communicators exist) and team_fini in reverse when it is released
 * (before they are freed), collectively on its members; func names the public
 * call for the watchdog and the log. A module whose init (team_init) fails is
 * stopped too: its fini (team_fini) undoes a partial start.
 */
typedef struct dart__module {
  const char *name;
  dart_ret_t (*init)(dart__policy_t *policy);
  dart_ret_t (*fini)(void);
  dart_ret_t (*team_init)(dart__team_t *team);
  dart_ret_t (*team_fini)(const char *func, dart__team_t *team);
} dart__module_t;

/* Node topology (topology.c): fills my_node / num_nodes. */
DART__HIDDEN dart_ret_t dart__topology_init(void);
DART__HIDDEN void dart__topology_fini(void);

/* Init/teardown of DART_TEAM_ALL and the team table (module "teams",
 * runtime/team.c). */
DART__HIDDEN dart_ret_t dart__teams_init(void);
DART__HIDDEN dart_ret_t dart__teams_fini(void);
/* Keeps the policy's wait mode for dart_barrier (barrier.c). */
DART__HIDDEN void dart__barrier_set_policy(const dart__policy_t *policy);
/* dart_barrier's shared-memory counter on DART_TEAM_ALL (barrier.c):
 * chosen after global memory is up (agreed by all units), dropped before
 * it goes. */
DART__HIDDEN dart_ret_t dart__barrier_init(void);
DART__HIDDEN dart_ret_t dart__barrier_fini(void);

/* Decides the policy: environment, probes, agreement (runtime/policy.c). */
DART__HIDDEN dart_ret_t dart__policy_decide(dart__policy_t *policy);

/* True when dart_init should request MPI_THREAD_MULTIPLE for a progress
 * thread (decided before MPI_Init, from DART_PROGRESS). */
DART__HIDDEN bool dart__policy_progress_wanted(void);

/* Number of modules in the table (modules.c, in start order). */
extern const size_t dart__nmodules DART__HIDDEN;

/*
 * Runs the modules' init in order until one fails. *started: how many
 * inits ran, the failing one included (the count to pass to
 * dart__modules_stop).
 */
DART__HIDDEN dart_ret_t dart__modules_start(size_t *started);

/* Prints how long each module's init took on this unit (DART_VERBOSE),
 * after mpi_s seconds in MPI's start and the agreement of the settings. */
DART__HIDDEN void dart__modules_print_times(FILE *out, double mpi_s);

/* Runs fini of the first `started` modules in reverse; the first failure. */
DART__HIDDEN dart_ret_t dart__modules_stop(size_t started);

/*
 * Stage reached by a start that failed in module `failed`: the modules
 * before it that have a fini. This is the numbering of the call list the
 * table replaced (dart__explain_init_failure: 4 = teams up, global memory
 * failed); it holds as long as the table keeps that list's order.
 */
DART__HIDDEN int dart__modules_stage(size_t failed);

/* Runs team_init of every module on a new team, in order; on a failure,
 * team_fini of the modules up to the failing one, in reverse. */
DART__HIDDEN dart_ret_t dart__modules_team_init(const char *func,
                                                dart__team_t *team);

/* Runs team_fini of every module in reverse; the first failure. */
DART__HIDDEN dart_ret_t dart__modules_team_fini(const char *func,
                                                dart__team_t *team);

/*
 * Agrees the variables that must agree over every unit of dart__g.comm
 * (env_agree.c): one allreduce of their fingerprints; where they differ,
 * unit 0's value and one other unit's value are broadcast, every unit logs
 * one line per such variable, and applies the row's rule. Returns DART_OK,
 * DART_ERR_INVAL on every unit (a DART__ENV_FAIL variable differs) or
 * DART_ERR_OTHER (MPI failure, logged).
 */
DART__HIDDEN int dart__env_agree(void);

#endif /* DART__MODULES_H */
