/*
 * The scratch windows of the capability probe (transport/probe.h): at the
 * first dart_init of an MPI session every unit creates two windows on the
 * job's communicator, one with MPI_Win_create over private memory and one
 * with MPI_Win_create_dynamic plus an attachment (the two flavours DART
 * creates over memory it did not get from a shared window), opens their
 * epochs, and has the transport run and judge the probed RMA calls on
 * them (dart__probe_atomics, dart__probe_put); then the results are
 * agreed and the transport chooses its paths (dart__caps_decide). Whether
 * shared windows work on a node is tried here too. The memory layer owns
 * every window DART creates; the transport only issues calls on them.
 */
#include <stdlib.h>
#include <string.h>

#include "globmem/dart_segment.h"
#include "globmem/globmem_internal.h"
#include "transport/probe.h"
#include "transport/probe_progress.h"
#include "transport/wait.h"

/* The MPI_Win_create window: creation, memory model, atomics. */
static void probe_create(MPI_Comm comm, int size, int rank, int *ok)
{
  void *mine = calloc(1, dart__probe_buf_size());
  if (mine == NULL) return;
  dart__probe_buf_init(mine);
  MPI_Win w;
  int rc = MPI_Win_create(mine, (MPI_Aint)dart__probe_buf_size(), 1,
                          MPI_INFO_NULL, comm, &w);
  ok[DART__CAP_WIN_CREATE] = rc == MPI_SUCCESS;
  if (rc != MPI_SUCCESS) {
    free(mine);
    return;
  }
  MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
  int *model = NULL, flag = 0;
  ok[DART__CAP_UNIFIED] =
      MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag) == MPI_SUCCESS &&
      (!flag || *model == MPI_WIN_UNIFIED);
  dart__probe_window_component(w, dart__caps.osc_create,
                               sizeof dart__caps.osc_create);
  if (!dart__probe_component_crashes_in_cas(dart__caps.osc_create) &&
      MPI_Win_lock_all(MPI_MODE_NOCHECK, w) == MPI_SUCCESS) {
    dart__probe_atomics(w, (rank + 1) % size, ok);
    MPI_Win_unlock_all(w);
  }
  dart__mpi_rendezvous(comm); /* every origin done before the free */
  MPI_Win_free(&w);
  free(mine);
}

/* The dynamic window: creation, one attachment, a put to the neighbour. */
static void probe_dynamic(MPI_Comm comm, int size, int rank, int *ok)
{
  static int64_t cell[2];
  cell[0] = cell[1] = 0;
  MPI_Win w;
  if (MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &w) != MPI_SUCCESS) return;
  MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
  dart__probe_window_component(w, dart__caps.osc_dynamic,
                               sizeof dart__caps.osc_dynamic);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_Aint my = 0, theirs = 0;
  int rc = MPI_Win_attach(w, cell, sizeof cell);
  bool attached = rc == MPI_SUCCESS;
  if (rc == MPI_SUCCESS) rc = MPI_Get_address(cell, &my);
  /* my address goes to the left neighbour, which writes to me */
  int rc2 = MPI_Sendrecv(&my, 1, MPI_AINT, left, 0, &theirs, 1, MPI_AINT, right,
                         0, comm, MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS) rc = rc2;
  if (rc == MPI_SUCCESS) rc = MPI_Win_lock_all(MPI_MODE_NOCHECK, w);
  if (rc == MPI_SUCCESS) {
    rc = dart__probe_put(w, right, theirs, 1000 + rank);
    MPI_Win_unlock_all(w);
  }
  dart__mpi_rendezvous(comm); /* the put landed everywhere */
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  ok[DART__CAP_WIN_DYNAMIC] = rc == MPI_SUCCESS && cell[0] == 1000 + left;
  if (attached) MPI_Win_detach(w, cell);
  MPI_Win_free(&w);
}

/* A window over words int64s of private memory on comm, in a lock_all
 * epoch; NULL memory on failure. */
static int64_t *scratch_window(MPI_Comm comm, int words, MPI_Win *w)
{
  int64_t *mem = calloc((size_t)words, sizeof *mem);
  if (mem == NULL) return NULL;
  if (MPI_Win_create(mem, (MPI_Aint)(words * sizeof *mem), 1, MPI_INFO_NULL,
                     comm, w) != MPI_SUCCESS) {
    free(mem);
    return NULL;
  }
  MPI_Win_set_errhandler(*w, MPI_ERRORS_RETURN);
  if (MPI_Win_lock_all(MPI_MODE_NOCHECK, *w) != MPI_SUCCESS) {
    MPI_Win_free(w);
    free(mem);
    return NULL;
  }
  return mem;
}

static void scratch_free(int64_t *mem, MPI_Win *w)
{
  if (mem == NULL) return;
  MPI_Win_unlock_all(*w);
  MPI_Win_free(w);
  free(mem);
}

/* The progress probe (transport/probe_progress.c), on a scratch window of
 * its own. Not run where atomics are not (osc/rdma): nothing changes
 * there. */
static void probe_progress(MPI_Comm comm, int size, int rank, int *ok)
{
  if (dart__probe_component_crashes_in_cas(dart__caps.osc_create)) {
    ok[DART__CAP_GET_MOVES] = 1;
    return;
  }
  MPI_Win w = MPI_WIN_NULL;
  int64_t *mem = scratch_window(comm, DART__PROBE_GET_WORDS, &w);
  ok[DART__CAP_GET_MOVES] = dart__probe_get_moves(w, mem, comm, size, rank);
  scratch_free(mem, &w);
}

static int shared_state; /* 0: not tried, 1: works, -1: fails */

bool dart__caps_shared_windows(MPI_Comm node)
{
  if (shared_state == 0) {
    void *base = NULL;
    MPI_Win w;
    shared_state = -1;
    if (MPI_Win_allocate_shared(64, 1, MPI_INFO_NULL, node, &base, &w) ==
        MPI_SUCCESS) {
      shared_state = 1;
      MPI_Win_free(&w);
    }
  }
  return shared_state > 0;
}

void dart__caps_set_shared(bool ok)
{
  shared_state = ok ? 1 : -1;
}

dart_ret_t dart__caps_probe(MPI_Comm comm, int size, int rank)
{
  if (dart__caps.done) return DART_OK;
  dart__caps_t *c = &dart__caps;
  memset(c, 0, sizeof *c);
  int ok[DART__CAP_COUNT] = {0}, agreed[DART__CAP_COUNT];
  c->ran = size > 1;
  if (c->ran) {
    probe_create(comm, size, rank, ok);
    probe_dynamic(comm, size, rank, ok);
    probe_progress(comm, size, rank, ok);
    DART__MPI(dart__mpi_allreduce(ok, agreed, DART__CAP_COUNT, MPI_INT, MPI_MIN,
                                  comm));
  } else {
    for (int i = 0; i < DART__CAP_COUNT; i++) agreed[i] = 1;
  }
  return dart__caps_decide(agreed, shared_state > 0);
}
