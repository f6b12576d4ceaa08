/*
 * The budget of MPI windows and communicators (DART_MAX_MPI_OBJECTS):
 * MPICH aborts when a process runs out of its 2048 context ids, so DART
 * counts what it creates (segment windows, side windows, team
 * communicators) and refuses to go past the budget. Part of the memory
 * layer, which creates every window; the runtime counts its team
 * communicators here too.
 */
#include <limits.h>

#include "globmem/dart_segment.h"
#include "globmem/globmem_internal.h"
#include "transport/probe.h"

static int dart__live_windows;

int dart__globmem_live_windows(void)
{
  return __atomic_load_n(&dart__live_windows, __ATOMIC_RELAXED);
}

static int dart__live_comms; /* communicators of DART's teams */

void dart__window_count_add(int delta)
{
  __atomic_add_fetch(&dart__live_windows, delta, __ATOMIC_RELAXED);
}

void dart__mpi_objects_add(int n)
{
  __atomic_add_fetch(&dart__live_comms, n, __ATOMIC_RELAXED);
}

static int objects_limit(void)
{
  if (dart__env.max_mpi_objects > 0)
    return dart__env.max_mpi_objects > INT_MAX ? INT_MAX
                                               : (int)dart__env.max_mpi_objects;
  /* MPICH has ~2,000 context ids per process, and the registration scheme
   * where registrations share a dynamic window keeps windows few; where
   * each registration needs a window of its own (Open MPI's osc/ucx), the
   * MPI holds them by the ten thousand (docs/design.md 2). */
  return dart__caps.register_dynamic ? 2000 : 16384;
}

int dart__mpi_objects_left(void)
{
  return objects_limit() -
         __atomic_load_n(&dart__live_windows, __ATOMIC_RELAXED) -
         __atomic_load_n(&dart__live_comms, __ATOMIC_RELAXED);
}

dart_ret_t dart__mpi_objects_refuse(const char *func, int need)
{
  dart__log(DART__LOG_ERROR, func,
            "limit of %d MPI windows and communicators reached (%d windows, "
            "%d communicators live, %d more needed; DART_MAX_MPI_OBJECTS)",
            objects_limit(), dart__globmem_live_windows(),
            __atomic_load_n(&dart__live_comms, __ATOMIC_RELAXED), need);
  return DART_ERR_NOMEM;
}
