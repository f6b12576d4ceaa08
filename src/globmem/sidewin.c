/*
 * Windows and their epochs, in one place: the one-sided component behind
 * a window, DART's rule for the memory model, the lock_all epoch every
 * window of DART lives in, and the side windows of other modules (the
 * collectives' flag words, the locality records) that are not segments.
 * Nothing outside the memory layer creates an MPI window or opens an
 * epoch (tests/layers/check_layers.sh).
 */
#include <stdlib.h>
#include <string.h>

#include "globmem/dart_segment.h"
#include "globmem/globmem_internal.h"
#include "transport/probe.h"
#include "transport/wait.h"

/*
 * Which Open MPI one-sided component carries win. Open MPI names every
 * window after its component ("rdma window 3", "ucx window 3"; osc/sm
 * windows have no name), which is the one place the choice shows. Atomics
 * pick their mechanism per segment from this (transport/atomic.c).
 */
dart__osc_t dart__window_osc(MPI_Win win)
{
  char name[MPI_MAX_OBJECT_NAME] = "";
  int len = 0;
  if (MPI_Win_get_name(win, name, &len) != MPI_SUCCESS) return DART__OSC_OTHER;
  if (strncmp(name, "rdma ", 5) == 0) return DART__OSC_OMPI_RDMA;
  if (strncmp(name, "ucx ", 4) == 0) return DART__OSC_OMPI_UCX;
  return DART__OSC_OTHER;
}

/*
 * DART needs the unified memory model on every window: the owner and node
 * peers access portions by load/store while other units use RMA, and the
 * only synchronisation between the two is the transport's flushes and
 * atomics on one side and DART's fences and barriers (a full memory
 * barrier around an MPI_Ibarrier) on the other, never a window sync
 * (the separate model's public/private copy update). Under MPI_WIN_SEPARATE
 * that would be wrong, so such a window fails the allocation.
 */
dart_ret_t dart__window_require_unified(MPI_Win win)
{
  int *model = NULL, flag = 0;
  DART__MPI(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
  if (flag && *model != MPI_WIN_UNIFIED) {
    DART_LOG_ERROR("the MPI window memory model is MPI_WIN_SEPARATE; DART "
                   "needs MPI_WIN_UNIFIED");
    return DART_ERR_OTHER;
  }
  return DART_OK;
}

/* Common setup of a new RMA window: error handler and lock_all epoch. */
dart_ret_t dart__window_open_epoch(dart__segment_t *seg)
{
  seg->osc = dart__window_osc(seg->win);
  DART__MPI(MPI_Win_set_errhandler(seg->win, MPI_ERRORS_RETURN));
  dart_ret_t ret = dart__window_require_unified(seg->win);
  if (ret != DART_OK) return ret;
  DART__MPI(MPI_Win_lock_all(MPI_MODE_NOCHECK, seg->win));
  seg->locked = true;
  return DART_OK;
}

/* Memory and window of a side window: over calloc'ed memory, or (where
 * the MPI creates no window over existing memory, dart__caps) over
 * memory of MPI's own. */
static int side_create(dart__side_window_t *sw, MPI_Comm comm, size_t bytes,
                       int disp_unit, const void *init)
{
  sw->own_memory = !dart__caps.ran || dart__caps.cap[DART__CAP_WIN_CREATE];
  int n = 0;
  int rc = MPI_Comm_size(comm, &n);
  if (rc != MPI_SUCCESS) return rc;
  dart__ompi_shm_names_before_window(n);
  if (sw->own_memory) {
    sw->mem = calloc(1, bytes);
    if (sw->mem == NULL) return MPI_ERR_NO_MEM;
    if (init != NULL) memcpy(sw->mem, init, bytes); /* before the window */
    return MPI_Win_create(sw->mem, (MPI_Aint)bytes, disp_unit, MPI_INFO_NULL,
                          comm, &sw->win);
  }
  void *base = NULL;
  rc = MPI_Win_allocate((MPI_Aint)bytes, disp_unit, MPI_INFO_NULL, comm, &base,
                        &sw->win);
  sw->mem = base;
  if (rc == MPI_SUCCESS) {
    if (init != NULL)
      memcpy(base, init, bytes);
    else
      memset(base, 0, bytes);
  }
  return rc;
}

dart_ret_t dart__side_window_create(const char *func, const char *what,
                                    MPI_Comm comm, size_t bytes, int disp_unit,
                                    const void *init, dart__side_window_t *sw)
{
  sw->win = MPI_WIN_NULL;
  sw->mem = NULL;
  sw->shared = false;
  int rc = dart__mpi_rendezvous(comm);
  if (rc == MPI_SUCCESS) {
    DART__WATCH(func, what, DART__WATCH_NONE, DART__WATCH_NONE,
                DART__WATCH_NONE, -1);
    rc = side_create(sw, comm, bytes, disp_unit, init);
    dart__watch_end();
  }
  dart_ret_t ret = DART_OK;
  if (sw->win != MPI_WIN_NULL) {
    dart__window_count_add(1);
    rc = MPI_Win_set_errhandler(sw->win, MPI_ERRORS_RETURN);
    if (rc == MPI_SUCCESS && dart__window_require_unified(sw->win) != DART_OK)
      ret = DART_ERR_OTHER;
    if (rc == MPI_SUCCESS && ret == DART_OK)
      rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, sw->win);
  }
  if (rc == MPI_SUCCESS && ret == DART_OK) return DART_OK;
  if (rc != MPI_SUCCESS) dart__mpi_log_error(func, what, rc);
  const char *hint = dart__caps_spanning_hint();
  if (hint != NULL) dart__log(DART__LOG_ERROR, func, "%s", hint);
  if (sw->win != MPI_WIN_NULL) {
    MPI_Win_free(&sw->win);
    dart__window_count_add(-1);
  }
  if (sw->own_memory) free(sw->mem);
  sw->mem = NULL;
  return DART_ERR_OTHER;
}

/* A node-shared side window: every unit of comm (a node communicator)
 * reads the others' bytes by loads (dart__side_window_peer). No epoch:
 * only loads and stores touch it. */
dart_ret_t dart__side_window_create_shared(const char *func, const char *what,
                                           MPI_Comm comm, size_t bytes,
                                           const void *init,
                                           dart__side_window_t *sw)
{
  sw->win = MPI_WIN_NULL;
  sw->mem = NULL;
  sw->own_memory = false;
  sw->shared = true;
  void *base = NULL;
  DART__WATCH(func, what, DART__WATCH_NONE, DART__WATCH_NONE, DART__WATCH_NONE,
              -1);
  int rc = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, MPI_INFO_NULL, comm,
                                   &base, &sw->win);
  dart__watch_end();
  if (rc != MPI_SUCCESS) {
    sw->win = MPI_WIN_NULL;
    dart__mpi_log_error(func, what, rc);
    return DART_ERR_OTHER;
  }
  dart__window_count_add(1);
  sw->mem = base;
  if (init != NULL) memcpy(base, init, bytes);
  rc = MPI_Win_set_errhandler(sw->win, MPI_ERRORS_RETURN);
  if (rc == MPI_SUCCESS) return DART_OK;
  dart__mpi_log_error(func, what, rc);
  MPI_Win_free(&sw->win);
  dart__window_count_add(-1);
  sw->mem = NULL;
  return DART_ERR_OTHER;
}

/* The load/store address of rank's bytes in a node-shared side window. */
dart_ret_t dart__side_window_peer(const char *func, const char *what,
                                  const dart__side_window_t *sw, int rank,
                                  void **addr)
{
  MPI_Aint sz;
  int du;
  *addr = NULL;
  int rc = MPI_Win_shared_query(sw->win, rank, &sz, &du, addr);
  if (rc == MPI_SUCCESS) return DART_OK;
  dart__mpi_log_error(func, what, rc);
  return DART_ERR_OTHER;
}

dart_ret_t dart__side_window_free(const char *func, const char *what,
                                  dart__side_window_t *sw)
{
  if (sw->win == MPI_WIN_NULL) return DART_OK;
  int rc = sw->shared ? MPI_SUCCESS : MPI_Win_unlock_all(sw->win);
  DART__WATCH(func, what, DART__WATCH_NONE, DART__WATCH_NONE, DART__WATCH_NONE,
              -1);
  int rc2 = MPI_Win_free(&sw->win);
  dart__watch_end();
  if (rc == MPI_SUCCESS) rc = rc2;
  sw->win = MPI_WIN_NULL;
  dart__window_count_add(-1);
  if (sw->own_memory) free(sw->mem);
  sw->mem = NULL;
  if (rc == MPI_SUCCESS) return DART_OK;
  dart__mpi_log_error(func, what, rc);
  return DART_ERR_OTHER;
}
