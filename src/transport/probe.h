/*
 * Internal: what the MPI underneath can do, probed at dart_init and agreed
 * by all units (transport/probe.c), and the paths DART chose from it.
 *
 * Nothing here is decided from a library name or version string. Two
 * faults cannot be probed because probing them kills the process; they
 * are recognised from the one-sided component that carries a window
 * (Open MPI names each window after it) and each is kept with its bug
 * reference in probe.c:
 *   - osc/rdma crashes in 8-byte MPI_Compare_and_swap between processes
 *     of one node (open-mpi/ompi#7967): atomics on such windows take the
 *     lock-word path;
 *   - osc/ucx aborts past 32 attachments to a dynamic window (and in the
 *     detach after the failed attach), and its region table breaks under
 *     attach/detach churn (an empty slot that the window free or a detach
 *     unmaps: SIGSEGV; detached regions that stay): registrations keep
 *     one window each;
 *   - osc/rdma holds 64 attachments (osc_rdma_max_attach): registrations
 *     take its dynamic window while every unit has some left.
 */
#ifndef DART__TRANSPORT_PROBE_H
#define DART__TRANSPORT_PROBE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>

#include <dash/dart/if/dart_types.h>

#include "dart_log.h"

/* How atomics on the MPI path are carried out (transport/atomic.c). */
typedef enum {
  /* every predefined op on every basic type by MPI's own atomics */
  DART__ATOMICS_NATIVE,
  /* the MPI got some predefined accumulate wrong: only SUM, bitwise ops,
   * REPLACE, NO_OP and compare-and-swap on 4/8-byte integers are issued
   * natively; the rest by compare-and-swap loops (4/8-byte) or under a
   * lock word (other sizes) */
  DART__ATOMICS_RESTRICTED,
  /* even those were wrong: every atomic under the target's lock word */
  DART__ATOMICS_LOCKED
} dart__atomics_mode_t;

/* One capability: what the probe checked and whether every unit passed. */
typedef enum {
  DART__CAP_WIN_SHARED,  /* MPI_Win_allocate_shared on a node            */
  DART__CAP_WIN_CREATE,  /* MPI_Win_create over private memory          */
  DART__CAP_WIN_DYNAMIC, /* MPI_Win_create_dynamic + attach + put        */
  DART__CAP_UNIFIED,     /* MPI_WIN_UNIFIED memory model                 */
  DART__CAP_ACC_INT,     /* SUM, BAND, fetch-and-op on 4/8-byte ints     */
  DART__CAP_CAS,         /* compare-and-swap on 4/8-byte ints            */
  DART__CAP_ACC_SMALL,   /* SUM on 1/2-byte ints, neighbours untouched   */
  DART__CAP_ACC_FP,      /* SUM and fetch-and-op on float/double         */
  DART__CAP_ACC_LDOUBLE, /* SUM on long double                           */
  DART__CAP_ACC_MINMAX,  /* MIN, MAX, PROD on 4/8-byte ints              */
  DART__CAP_GET_MOVES,   /* an MPI_Rget lands while its origin waits in a
                            collective (without a call on its request)   */
  DART__CAP_COUNT
} dart__cap_t;

typedef struct {
  bool done;                 /* probed (once per MPI session)           */
  bool ran;                  /* the window probes ran (more than 1 unit) */
  bool cap[DART__CAP_COUNT]; /* agreed over all units                   */
  char osc_create[24];       /* component name of the probe windows, as */
  char osc_dynamic[24];      /* the MPI reports it ("" if none)         */
  int attach_limit;          /* known attachment limit, 0: none known   */
  dart__atomics_mode_t atomics;
  bool register_dynamic; /* registrations attach to a dynamic window */
  bool register_limited; /* ... while attachments last (attach_limit) */
} dart__caps_t;

extern dart__caps_t dart__caps DART__HIDDEN;

/*
 * The transport's part of the probe, run by the memory layer on the
 * scratch windows it creates (globmem/probe_windows.c): the probe buffer
 * (each unit's is the target of its left neighbour; size and initial
 * contents), every probed atomic issued on the target tgt of w (in a
 * lock_all epoch), read back and judged into ok[DART__CAP_*], one put of
 * v at (tgt, disp) flushed (MPI error code), the component's name of a
 * window and whether it crashes in compare-and-swap (then no atomics are
 * probed). dart__caps_decide takes the agreed results (and whether
 * shared windows work), chooses the paths and marks the probe done;
 * DART_ERR_OTHER, with one line naming what to change, when no window
 * over existing memory can be created between units.
 */
DART__HIDDEN size_t dart__probe_buf_size(void);
DART__HIDDEN void dart__probe_buf_init(void *buf);
DART__HIDDEN void dart__probe_atomics(MPI_Win w, int tgt, int *ok);
DART__HIDDEN int dart__probe_put(MPI_Win w, int tgt, MPI_Aint disp, int64_t v);
DART__HIDDEN void dart__probe_window_component(MPI_Win win, char *out,
                                               size_t n);
DART__HIDDEN bool dart__probe_component_crashes_in_cas(const char *osc);
DART__HIDDEN dart_ret_t dart__caps_decide(const int *agreed, bool shared);

/* Whether MPI atomics between nodes can deadlock inside the MPI without
 * a progress thread (a known fault recognised from the component). */
DART__HIDDEN bool dart__caps_atomics_need_progress(void);

/* Why windows spanning nodes may fail and what to set (Open MPI started
 * by the application under Debian's defaults: only osc/rdma between
 * nodes), or NULL where that does not apply. */
DART__HIDDEN const char *dart__caps_spanning_hint(void);

/* Prints the capability table and the chosen paths (DART_VERBOSE). */
DART__HIDDEN void dart__caps_print(FILE *out);

/*
 * Thread level DART asks for when it initializes MPI itself, given the
 * level it wants: MPI_THREAD_MULTIPLE unless the one-sided component
 * selected for the job refuses windows at that level (read from MPI_T
 * before MPI_Init; see probe.c). Logs why when it lowers the level.
 */
DART__HIDDEN int dart__caps_thread_level(int wanted);

/* Ends the MPI_T session dart__caps_thread_level opened; after MPI_Init. */
DART__HIDDEN void dart__caps_mpit_close(void);

#endif /* DART__TRANSPORT_PROBE_H */
