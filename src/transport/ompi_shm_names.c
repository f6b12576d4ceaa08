/*
 * Open MPI 4.x (fixed in 5.0.0: open-mpi/ompi#9492, PR #9495) names the
 * per-node shared-memory file of an osc/rdma window
 * "osc_rdma.<node>.<jobid>.<cid>", where cid is the context id of the
 * window's private communicator. Context ids are unique only per process:
 * two disjoint teams with the same history get the same id, so their
 * windows created at the same time on one node open, truncate and unlink
 * one file. Seen with application-initialized Open MPI (osc/rdma in use):
 * MPI_ERR_WIN from MPI_Win_create, "Read -1 ... errno = 14" loops, hangs
 * and, with MPI_Win_allocate, wrong data (tests/locks with 4 units on
 * simulated nodes; raw-MPI reproducer: two halves of 4 ranks creating
 * windows, 12 of 13 runs failed). All window flavours are affected.
 *
 * The shmem/mmap component can instead name the file after the creating
 * process (pid plus random suffix): its variable
 * shmem_mmap_relocate_backing_file, which is changeable at run time through
 * MPI_T. DART sets it to -1 (relocate, falling back to the old place with a
 * warning if /dev/shm is unusable) in every process unless the user already
 * set it. Purely local, no communication. With it: 0 failures in 24 runs.
 * An MPI without that variable (MPICH, Open MPI 5 without the shmem/mmap
 * component) is left alone: the variable is the test, not the version.
 *
 * Only osc/rdma names its files this way. When the environment's
 * OMPI_MCA_osc (which overrides every parameter file; dart_init sets it
 * to "^rdma" when it starts Open MPI and the user did not set it) leaves
 * osc/rdma out, or the capability probe's windows (MPI_Win_create and
 * dynamic) are not osc/rdma's, nothing is set and the MPI_T session
 * (0.15-0.5 s per process at 4 units on 2 cores, measured) is skipped.
 *
 * Disjoint communicators with windows exist only with several (real or
 * simulated) nodes, whose node communicators are disjoint, or with a team
 * other than DART_TEAM_ALL. So dart_init calls this after the probe only
 * when the job spans nodes; otherwise each process calls it before it
 * takes part in its first window over existing memory or of MPI's own
 * (MPI_Win_create, _create_dynamic, _allocate) on a communicator of fewer
 * processes than the job (dart__ompi_shm_names_before_window). The file
 * of such a window is made by the communicator's first process on the
 * node, which passes its name on to the others, so its own setting is
 * what counts, and it has made the call by then. A communicator of the
 * whole job cannot share its context id with a disjoint one. Shared
 * windows (osc/sm) name their files after the creating process already.
 * A single-node program whose teams only allocate (shared windows) skips
 * the session: 0.22 s per process with 4 units on 2 cores, measured at
 * its first dart_team_create before. Setting the
 * variable in the environment before MPI_Init instead would also move
 * the files Open MPI makes at start-up to /dev/shm, where a killed job
 * leaves them behind (the fault tests saw it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dart_mpi.h"
#include "transport/osc_list.h"
#include "transport/probe.h"
#include "transport/wait.h"

void dart__ompi_unique_shm_names(void)
{
  /* Once per process: the setting outlives dart_exit, and every
   * MPI_T_init_thread/MPI_T_finalize pair costs Open MPI about 3.5 KiB
   * that it never returns (test_init_cycles, 1000 cycles). */
  static bool done;
  if (done) return;
  done = true;
  if (dart__osc_list_leaves_out(getenv("OMPI_MCA_osc"), "rdma")) return;
  const dart__caps_t *c = &dart__caps;
  if ((c->osc_create[0] != '\0' || c->osc_dynamic[0] != '\0') &&
      strcmp(c->osc_create, "rdma") != 0 && strcmp(c->osc_dynamic, "rdma") != 0)
    return; /* the probe found another component for such windows */
  int provided, idx, count, val = 0, level = MPI_THREAD_SINGLE;
  /* At the process's own level: Open MPI 4.1 lowers the level of the
   * whole process to what MPI_T_init_thread asks for (its internal locks
   * go off at MPI_THREAD_SINGLE while DART's progress thread calls MPI;
   * raw-MPI check: MPI_Query_thread gives 3 before, 0 after). */
  if (MPI_Query_thread(&level) != MPI_SUCCESS) return;
  if (MPI_T_init_thread(level, &provided) != MPI_SUCCESS) return;
  MPI_T_cvar_handle h;
  if (MPI_T_cvar_get_index("shmem_mmap_relocate_backing_file", &idx) ==
          MPI_SUCCESS &&
      MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
    if (MPI_T_cvar_read(h, &val) == MPI_SUCCESS && val == 0) {
      val = -1;
      if (MPI_T_cvar_write(h, &val) == MPI_SUCCESS)
        DART_LOG_DEBUG("Open MPI: per-process names for shared-memory "
                       "backing files (osc/rdma file name collision)");
      else
        DART_LOG_WARN("Open MPI: cannot set shmem_mmap_relocate_backing_file;"
                      " windows of disjoint teams may collide");
    }
    MPI_T_cvar_handle_free(&h);
  }
  MPI_T_finalize();
}

void dart__ompi_shm_names_before_window(int comm_size)
{
  if (comm_size < dart__g.size) dart__ompi_unique_shm_names();
}
