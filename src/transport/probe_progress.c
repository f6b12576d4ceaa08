/*
 * The progress probe of the capability probe (probe_progress.h): a
 * behaviour of the MPI's one-sided progress that DART's default paths
 * take for granted and Open MPI 4.1's osc/ucx does not provide; a raw-MPI
 * reproducer at the same time (docs/design.md §7.2).
 *
 *  - A request-based get moves only inside calls on its request: after
 *    MPI_Rget of 64 KiB from a neighbour and a barrier (both units inside
 *    MPI the whole time), osc/ucx has delivered none or part of the data;
 *    one MPI_Test on the request moves more, MPI_Wait all. MPI allows
 *    this (the data is defined after completion only), but DASH's halo
 *    tests read halos after an asynchronous update and a barrier without
 *    waiting. Where the probe sees it, dart_barrier completes the
 *    caller's pending get handles on the team's memory first
 *    (transport/handles.c).
 *
 * A second probe (until 2026-11-28) checked whether a peer's accumulate
 * lands while the target polls its own memory with MPI atomic reads
 * (osc/ucx: never, DASH's AtomicTest.AtomicSignal hung). Its "no" needed
 * a 10 ms polling budget, 20-28 ms of dart_init with 4 units on 2 cores;
 * the owner's atomic reads of its own memory are now CPU loads after
 * driving progress on every MPI with the unified model
 * (onesided/atomics.c, own_read), so nothing depends on it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dart_mpi.h"
#include "transport/probe_progress.h"
#include "transport/wait.h"

#define GET_WORDS DART__PROBE_GET_WORDS

int dart__probe_get_moves(MPI_Win w, int64_t *mem, MPI_Comm comm, int size,
                          int rank)
{
  int64_t *dst = calloc(GET_WORDS, sizeof *dst);
  int ok = mem != NULL && dst != NULL;
  int right = (rank + 1) % size;
  if (mem != NULL)
    for (int i = 0; i < GET_WORDS; i++) mem[i] = 1000 + rank;
  if (dart__mpi_rendezvous(comm) != MPI_SUCCESS) ok = 0;
  if (ok) {
    MPI_Request req;
    ok = MPI_Rget(dst, GET_WORDS, MPI_INT64_T, right, 0, GET_WORDS, MPI_INT64_T,
                  w, &req) == MPI_SUCCESS;
    /* a collective, inside MPI on every unit: nothing calls on req */
    if (dart__mpi_rendezvous(comm) != MPI_SUCCESS) ok = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    for (int i = 0; ok && i < GET_WORDS; i++)
      if (__atomic_load_n(&dst[i], __ATOMIC_RELAXED) != 1000 + right) ok = 0;
    if (req != MPI_REQUEST_NULL && MPI_Wait(&req, MPI_STATUS_IGNORE) != 0)
      ok = 0;
  }
  dart__mpi_rendezvous(comm); /* every get done before the free */
  free(dst);
  return ok;
}
