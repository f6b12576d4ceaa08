/*
 * Internal: communication statistics (DART_STATS) and the timeline trace
 * (DART_TRACE) of what each unit asks DART to do (observe.c, trace.c,
 * docs/profiling.md).
 *
 * Both are off by default. Off, a hook is one test of a read-mostly flag
 * that sits alone in its cache line (predicted not taken); the calls on
 * the MPI path and the waits read it twice (once for the clock at their
 * start). On, statistics read the clock only around flushes, collectives
 * and locks (the time-stamp counter where it is invariant; the trace reads
 * the system clock around every call that is not a plain copy). Every
 * thread counts into its own record (thread-local, no locks, no atomics):
 * a put, get or atomic first compares its target with the last one of its
 * kind and path (a thread-local entry at a fixed address: one compare and
 * two additions), then looks in a small direct-mapped table of targets, and
 * adds inline to the entry it finds; misses go out of line, into per kind
 * and path counters (count, bytes, time spent inside calls that may wait)
 * and a bounded hash of targets (DART_STATS_TARGETS entries; targets
 * beyond it are summed in one "other" entry). Tracing appends one
 * event per call to a bounded per-thread buffer that is written out when
 * full and at dart_exit.
 */
#ifndef DART__OBSERVE_H
#define DART__OBSERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dart_log.h"

/* What was done. Data kinds (the first five) feed the matrix. */
typedef enum {
  DART__OBS_PUT = 0,
  DART__OBS_GET,
  DART__OBS_ACC,      /* dart_accumulate[_blocking_local]              */
  DART__OBS_FETCH_OP, /* dart_fetch_and_op                             */
  DART__OBS_CAS,      /* dart_compare_and_swap                          */
  DART__OBS_FLUSH,    /* dart_flush[_all][_local[_all]]                */
  DART__OBS_BARRIER,
  DART__OBS_BCAST,
  DART__OBS_SCATTER,
  DART__OBS_GATHER,
  DART__OBS_ALLGATHER,
  DART__OBS_ALLGATHERV,
  DART__OBS_ALLTOALL,
  DART__OBS_ALLREDUCE,
  DART__OBS_REDUCE,
  DART__OBS_SEND,
  DART__OBS_RECV,
  DART__OBS_SENDRECV,
  DART__OBS_LOCK_ACQUIRE, /* dart_lock_acquire, dart_lock_try_acquire */
  DART__OBS_LOCK_RELEASE,
  DART__OBS_NKINDS
} dart__obs_kind_t;

#define DART__OBS_NDATA (DART__OBS_CAS + 1)

/* How it was done: load/store on mapped memory, MPI, or neither applies
 * (collectives, locks). */
typedef enum {
  DART__OBS_SHM = 0,
  DART__OBS_MPI,
  DART__OBS_NONE,
  DART__OBS_NPATHS
} dart__obs_path_t;

/* The flags, alone in one cache line; written only in dart_init/exit. */
typedef struct {
  int on;    /* statistics or trace                                  */
  int trace; /* trace on (every call goes to the out-of-line record)  */
  int tsc;   /* wait times in time-stamp counter ticks (statistics only) */
  char pad[64 - 3 * sizeof(int)];
} __attribute__((aligned(64))) dart__obs_flags_t;

extern dart__obs_flags_t dart__obs DART__HIDDEN;

/* 1 if the library has the hooks, 0 if built with DART_OBSERVE_HOOKS=OFF
 * (then DART_STATS and DART_TRACE are ignored with a warning). */
#ifdef DART__OBS_NO_HOOKS
#define DART__OBS_HOOKS 0
#else
#define DART__OBS_HOOKS 1
#endif
extern const int dart__obs_hooks DART__HIDDEN;

/* One target unit in a thread's matrix row. */
typedef struct {
  int32_t unit; /* global unit id, -1: empty slot */
  uint64_t ops, bytes;
} dart__obs_peer_t;

/*
 * The inline counters: for each data kind and path (shm, mpi) the last
 * target (dart__obs_last) and a direct-mapped table of target units
 * (entry: unit & 63). An operation to the last target, or whose table
 * entry is present, is two additions; anything else (first use, a
 * collision, the trace, a quiet section, the other kinds) goes out of
 * line, which moves the last target into the table and the table entry it
 * replaces into the counters and the matrix row. Table key: the unit with
 * its top bit flipped, 0 is empty.
 */
#define DART__OBS_NSLOTS 64
typedef struct {
  uint32_t key;
  uint64_t ops, bytes, pad; /* 32 bytes: the index is a shift */
} dart__obs_slot_t;

static inline uint32_t dart__obs_key(int gunit)
{
  return (uint32_t)gunit ^ 0x80000000u;
}
/* The last target of one kind and path: unit -1 if none. */
typedef struct {
  int32_t unit;
  uint64_t ops, bytes;
} dart__obs_last_t;

/* A thread's record (observe.c). */
typedef struct dart__obs_thread {
  dart__obs_slot_t slot[DART__OBS_NDATA][2][DART__OBS_NSLOTS];
  /* the thread's dart__obs_last while it runs, NULL once it ended (then
   * folded in here) */
  dart__obs_last_t (*last)[2];
  uint64_t count[DART__OBS_NKINDS][DART__OBS_NPATHS];
  uint64_t bytes[DART__OBS_NKINDS][DART__OBS_NPATHS];
  uint64_t ns[DART__OBS_NKINDS][DART__OBS_NPATHS]; /* ticks if obs.tsc */
  dart__obs_peer_t *peers; /* open addressing, cap a power of two  */
  size_t cap, used;
  uint64_t other_ops, other_bytes; /* targets beyond the limit      */
  void *trace; /* trace buffer (trace.c)                            */
  int tid;     /* registration order in this process                */
  int quiet;   /* > 0: inside a call whose inner calls are its own   */
  struct dart__obs_thread *next;
} dart__obs_thread_t;

#ifdef DART__TLS_DEFAULT_MODEL
#define DART__OBS_TLS
#else
#define DART__OBS_TLS __attribute__((tls_model("initial-exec")))
#endif
/* The table the inline path looks in: the thread's record, or (before a
 * thread's first operation, in a quiet section) an empty one that is only
 * read, so that every lookup misses. Never NULL. */
extern __thread dart__obs_thread_t *dart__obs_self DART__OBS_TLS DART__HIDDEN;
/* The calling thread's last target per data kind and path (shm, mpi): a
 * fixed address, so that a hit is one compare and two additions. Outside a
 * thread's record (observe.c folds it in when the target changes, in a
 * quiet section, at thread exit and at dart_exit). */
extern __thread dart__obs_last_t dart__obs_last[DART__OBS_NDATA]
                                               [2] DART__OBS_TLS DART__HIDDEN;

/* Monotonic nanoseconds, never 0. */
DART__HIDDEN uint64_t dart__obs_now(void);

/* Start of a wait: the time-stamp counter if obs.tsc (statistics without
 * trace, an invariant counter), else dart__obs_now(); never 0. */
#if defined(__x86_64__)
static inline uint64_t dart__obs_t0(void)
{
  if (dart__obs.tsc) return __builtin_ia32_rdtsc() | 1u;
  return dart__obs_now();
}
#else
#define dart__obs_t0() dart__obs_now()
#endif

/*
 * Records one call of kind on path to global unit gunit (-1: none) moving
 * bytes; t0: dart__obs_t0() at its start, or 0 for a call that cannot
 * wait (a copy to mapped memory: begin = end).
 */
DART__HIDDEN void dart__obs_record(int kind, int path, int gunit, size_t bytes,
                                   uint64_t t0);

/* Kind of a collective from its public name (DART__OBS_BARRIER if none). */
DART__HIDDEN int dart__obs_coll_kind(const char *func);

/* The table lookup inline (kind and path are constants at every call):
 * true if the entry was there and is counted. */
static inline bool dart__obs_hit(int kind, int path, int gunit, size_t bytes)
{
  if (kind >= DART__OBS_NDATA || path > DART__OBS_MPI) return false;
  dart__obs_last_t *l = &dart__obs_last[kind][path];
  if (__builtin_expect(l->unit == gunit, 1)) {
    l->ops++;
    l->bytes += bytes;
    return true;
  }
  dart__obs_slot_t *e =
      &dart__obs_self
           ->slot[kind][path][(uint32_t)gunit & (DART__OBS_NSLOTS - 1)];
  if (__builtin_expect(e->key != dart__obs_key(gunit), 0)) return false;
  e->ops++;
  e->bytes += bytes;
  return true;
}

/* Counts a call that cannot wait: inline if its entry is there. */
static inline void dart__obs_count(int kind, int path, int gunit, size_t bytes)
{
  if (!dart__obs_hit(kind, path, gunit, bytes))
    dart__obs_record(kind, path, gunit, bytes, 0);
}

#define DART__OBS_ON() (DART__OBS_HOOKS && __builtin_expect(dart__obs.on, 0))

/* A call that cannot wait, done (arguments evaluated only when on). */
#define DART__OBS_OP(kind, path, gunit, bytes)                                 \
  do {                                                                         \
    if (DART__OBS_ON()) dart__obs_count((kind), (path), (gunit), (bytes));     \
  } while (0)

/* Start of a call that may wait: the clock if observing, else 0. */
#define DART__OBS_T0() (DART__OBS_ON() ? dart__obs_t0() : (uint64_t)0)

/* Start of a put, get or atomic on the MPI path: the clock only for the
 * trace (the statistics time only flushes, collectives and locks). */
#define DART__OBS_T0_DATA()                                                    \
  (DART__OBS_ON() && dart__obs.trace ? dart__obs_now() : (uint64_t)0)

/* End of a call started at t0 = DART__OBS_T0() or DART__OBS_T0_DATA(). */
#define DART__OBS_END(t0, kind, path, gunit, bytes)                            \
  do {                                                                         \
    if (DART__OBS_ON()) {                                                      \
      if ((t0) != 0)                                                           \
        dart__obs_record((kind), (path), (gunit), (bytes), (t0));              \
      else                                                                     \
        dart__obs_count((kind), (path), (gunit), (bytes));                     \
    }                                                                          \
  } while (0)

/* Calls DART makes inside a lock call or dart_exit are not the
 * application's: counted as part of the outer call (QUIET(1) ... QUIET(-1)
 * around them). */
DART__HIDDEN void dart__obs_quiet(int delta);
#define DART__OBS_QUIET(delta)                                                 \
  do {                                                                         \
    if (DART__OBS_ON()) dart__obs_quiet(delta);                                \
  } while (0)

/* Module hooks (runtime/modules.c). */
DART__HIDDEN int dart__obs_init(void);
DART__HIDDEN int dart__obs_fini(void);

/* trace.c, called by observe.c. */
DART__HIDDEN int dart__trace_init(void);
DART__HIDDEN void dart__trace_event(dart__obs_thread_t *s, int kind, int path,
                                    int gunit, size_t bytes, uint64_t t0,
                                    uint64_t t1);
/* Writes a thread's buffered events to the part file and frees its buffer
 * (at thread exit and at dart_exit; the caller holds observe.c's lock). */
DART__HIDDEN void dart__trace_release(dart__obs_thread_t *s);
/* After every thread's release: closes the part file, unit 0 merges. */
DART__HIDDEN int dart__trace_fini(void);
/* Name of a kind / path as written to the files. */
DART__HIDDEN const char *dart__obs_kind_name(int kind);
DART__HIDDEN const char *dart__obs_path_name(int path);

#endif /* DART__OBSERVE_H */
