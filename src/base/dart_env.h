/* Internal: the single table of DART_* environment variables. */
#ifndef DART__ENV_H
#define DART__ENV_H

#include <stddef.h>
#include <stdio.h>

#include "dart_log.h"

/* Value kinds of environment variables. */
typedef enum {
  DART__ENV_BOOL, /* 0/1, yes/no, on/off, true/false                 */
  DART__ENV_INT,  /* decimal integer                                  */
  DART__ENV_SIZE, /* bytes, optional suffix K, M, G (powers of 1024)  */
  DART__ENV_STR,  /* free text or one of the documented keywords      */
} dart__env_kind_t;

/* Whether units must agree on a variable, and what a mismatch does
 * (runtime/env_agree.c; docs/env.md). */
typedef enum {
  DART__ENV_LOCAL, /* may differ: each unit uses its own value           */
  DART__ENV_UNIT0, /* must agree: a mismatch is reported, unit 0's value is
                    * used by every unit                                 */
  DART__ENV_FAIL,  /* must agree: a mismatch is reported, dart_init fails
                    * on every unit (DART_ERR_INVAL)                     */
} dart__env_agree_t;

/*
 * X(NAME, kind, ctype, field, default-string, agree, meaning)
 *
 * NAME is the full variable name. This table drives parsing, the
 * agreement in dart_init (agree: dart__env_agree_t), the DART_VERBOSE
 * printout at init and docs/env.md (checked by a test). Add a row here to
 * add a knob; nothing else needs to change. A variable must agree when it
 * changes what units do together: which collectives run, the memory
 * layout, the lock or progress protocol.
 */
#define DART__ENV_TABLE(X)                                                     \
  X(DART_LOG_LEVEL, DART__ENV_STR, const char *, log_level, "WARN",            \
    DART__ENV_LOCAL,                                                           \
    "Log threshold: ERROR, WARN, INFO, DEBUG or TRACE (a DART_LOGLEVEL_ "      \
    "prefix is accepted). Every line is prefixed with the unit id.")           \
  X(DART_VERBOSE, DART__ENV_BOOL, int, verbose, "0", DART__ENV_LOCAL,          \
    "Print the effective value of every variable in this table on unit 0 "     \
    "during dart_init, with the probed MPI capabilities and how long each "    \
    "part of dart_init took.")                                                 \
  X(DART_SIM_NODE_SIZE, DART__ENV_INT, long, sim_node_size, "0",               \
    DART__ENV_FAIL,                                                            \
    "Simulate nodes of k consecutive units (never spanning a real node). "     \
    "1 puts every unit on its own node, so all remote traffic takes the MPI "  \
    "RMA path. 0 uses the real shared-memory node detection.")                 \
  X(DART_LOCAL_POOL_SIZE, DART__ENV_SIZE, size_t, local_pool_size, "16M",      \
    DART__ENV_UNIT0,                                                           \
    "Size per unit of the pool behind dart_memalloc (rounded up to a power "   \
    "of two). Pages are only backed by memory when touched, but MPICH spends " \
    "time proportional to the pool size of all units of a node in dart_init.") \
  X(DART_MAX_MPI_OBJECTS, DART__ENV_INT, long, max_mpi_objects, "0",           \
    DART__ENV_UNIT0,                                                           \
    "Most MPI windows plus communicators DART keeps at once per unit; "        \
    "allocations, registrations and dart_team_create return DART_ERR_NOMEM "   \
    "past it instead of letting the MPI abort. 0: 2000 with MPICH (2048 "      \
    "context ids per process), 16384 otherwise.")                              \
  X(DART_SPIN_COUNT, DART__ENV_INT, long, spin_count, "-1", DART__ENV_LOCAL,   \
    "Polls of a pending MPI request or lock flag before a waiting unit "       \
    "starts yielding its core (sched_yield, then short sleeps). -1: 200 on a " \
    "node with a CPU per unit of the job, 0 where units outnumber the "        \
    "node's CPUs (a spinning unit holds the core the unit it waits for "       \
    "needs: 4 units on 2 cores, barrier 3.7 against 2.3 us).")                 \
  X(DART_PROGRESS, DART__ENV_STR, const char *, progress, "auto",              \
    DART__ENV_LOCAL,                                                           \
    "Asynchronous progress for the RMA path: auto (a progress thread as soon " \
    "as some unit's memory is reached through MPI: a team spanning nodes, or " \
    "a registration shared by several units), thread (from dart_init on) or "  \
    "none. The thread needs MPI_THREAD_MULTIPLE; without it, waits inside "    \
    "DART still drive progress.")                                              \
  X(DART_PROGRESS_INTERVAL_US, DART__ENV_INT, long, progress_interval_us,      \
    "200", DART__ENV_LOCAL,                                                    \
    "Sleep between two polls of the DART progress thread, in "                 \
    "microseconds; up to 8 times longer while the unit itself waits in "       \
    "DART (its waits drive progress).")                                        \
  X(DART_LOCK_TAIL, DART__ENV_STR, const char *, lock_tail, "spread",          \
    DART__ENV_UNIT0,                                                           \
    "Placement of MCS lock tails: spread (round-robin over the team's units) " \
    "or unit0 (all on team unit 0, as in the original paper).")                \
  X(DART_COLL_WAIT, DART__ENV_STR, const char *, coll_wait, "auto",            \
    DART__ENV_UNIT0,                                                           \
    "How collectives and send/recv wait: yield (non-blocking MPI call and a "  \
    "waiting loop that gives the core away), block (the blocking MPI call: "   \
    "fastest for small messages, but some MPIs poll the CPU) or auto (block "  \
    "when every node runs no more units than it has CPUs; otherwise yield "    \
    "only if a short probe in dart_init finds it more than twice as fast "     \
    "with this MPI; simulated nodes count as the real node they share).")      \
  X(DART_BARRIER, DART__ENV_STR, const char *, barrier, "auto",                \
    DART__ENV_UNIT0,                                                           \
    "How dart_barrier, dart_allreduce, dart_allgather and dart_bcast on "      \
    "DART_TEAM_ALL synchronise: auto (through shared memory when every unit "  \
    "is on one node, maps every other unit's dart_memalloc pool and the node " \
    "runs at most 64 units: an arrival counter in DART's page of unit 0, and " \
    "for calls of at most 4 KiB per unit each unit's slots in front of its "   \
    "pool; otherwise MPI's collectives, waiting as DART_COLL_WAIT says) or "   \
    "mpi (always MPI's).")                                                     \
  X(DART_WATCHDOG, DART__ENV_INT, long, watchdog, "0", DART__ENV_LOCAL,        \
    "Seconds after which a unit waiting inside one DART call prints one line " \
    "saying what it waits for (call, team, segment, target unit, collective "  \
    "sequence number) and keeps waiting. 0 turns the watchdog off.")           \
  X(DART_WATCHDOG_ABORT, DART__ENV_INT, long, watchdog_abort, "0",             \
    DART__ENV_LOCAL,                                                           \
    "With the watchdog on: seconds after which such a wait ends the job (the " \
    "process exits with code 124 and the launcher stops the others). 0 "       \
    "never aborts.")                                                           \
  X(DART_USE_HWLOC, DART__ENV_BOOL, int, use_hwloc, "1", DART__ENV_LOCAL,      \
    "Use hwloc for hardware locality when DART was built with it; 0 forces "   \
    "the /proc and /sys fallback.")                                            \
  X(DART_STATS, DART__ENV_STR, const char *, stats, "0", DART__ENV_UNIT0,      \
    "Communication statistics: 0 (off), 1 (on, written to DART_STATS_FILE) "   \
    "or the file name itself. At dart_exit unit 0 writes one JSON file (per "  \
    "unit and operation kind: count, bytes, time; bytes and operations to "    \
    "each target unit; docs/profiling.md) and prints a summary on stderr.")    \
  X(DART_STATS_FILE, DART__ENV_STR, const char *, stats_file,                  \
    "dart-stats.json", DART__ENV_LOCAL,                                        \
    "File written by DART_STATS=1 (unit 0 writes it: only its value "          \
    "matters).")                                                               \
  X(DART_STATS_TARGETS, DART__ENV_INT, long, stats_targets, "4096",            \
    DART__ENV_LOCAL,                                                           \
    "Distinct target units each unit (each thread) counts separately in the "  \
    "statistics' communication matrix; operations to further targets are "     \
    "summed in one \"other\" entry. Bounds the memory per unit at any scale.") \
  X(DART_TRACE, DART__ENV_STR, const char *, trace, "", DART__ENV_UNIT0,       \
    "Timeline trace: the Chrome trace-event JSON file (Perfetto, "             \
    "chrome://tracing) written at dart_exit, one process row per unit; empty " \
    "is off. Part files <file>.part<unit> are written next to it (the "        \
    "directory must be shared by all units) and removed when merged.")         \
  X(DART_TRACE_BUFFER, DART__ENV_INT, long, trace_buffer, "65536",             \
    DART__ENV_LOCAL,                                                           \
    "Events each thread buffers (32 bytes each) before appending them to its " \
    "unit's part file.")                                                       \
  X(DASH_MAX_SHMEM_MBPS, DART__ENV_INT, long, max_shmem_mbps, "1235",          \
    DART__ENV_LOCAL,                                                           \
    "Value reported in dart_hwinfo_t.max_shmem_mbps (name kept for DASH "      \
    "compatibility).")

#define DART__ENV_FIELD(NAME, kind, ctype, field, def, agree, doc) ctype field;
typedef struct {
  DART__ENV_TABLE(DART__ENV_FIELD)
} dart__env_t;
#undef DART__ENV_FIELD

/* Effective configuration, filled by dart__env_load() in dart_init. */
extern dart__env_t dart__env DART__HIDDEN;

/* Parses all variables. Returns 0 or -1 (bad value, logged; default kept).
 */
DART__HIDDEN int dart__env_load(void);
/* Prints "NAME = value (default ...)" for every variable. */
DART__HIDDEN void dart__env_print(FILE *out);
/* Writes the Markdown reference (docs/env.md). */
DART__HIDDEN void dart__env_write_markdown(FILE *out);
/* Parses one value of kind into *field: 0, or -1 when malformed. */
DART__HIDDEN int dart__env_parse(dart__env_kind_t kind, const char *s,
                                 void *field);

#endif /* DART__ENV_H */
