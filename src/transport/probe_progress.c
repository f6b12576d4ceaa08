/*
 * The progress probes of the capability probe (probe_progress.h): two
 * behaviours of the MPI's one-sided progress that DART's default paths
 * take for granted and Open MPI 4.1's osc/ucx does not provide. Both are
 * raw-MPI reproducers at the same time (docs/design.md §7.2).
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
 *  - A target that polls its own memory with MPI atomic reads
 *    (MPI_Fetch_and_op with MPI_NO_OP, then MPI_Win_flush_local) keeps a
 *    peer's MPI_Accumulate to that memory from completing for as long as
 *    it polls: osc/ucx takes a per-target lock around both and the
 *    target's own requests win it every time (DASH's
 *    AtomicTest.AtomicSignal hangs). Unit 0 polls its cell with a time
 *    budget while unit 1 adds 1 to it once unit 0 has started polling;
 *    if unit 0 never sees the 1, the owner's atomic reads of its own
 *    memory on the MPI path become CPU loads (onesided/atomics.c). A
 *    false alarm (unit 1 not scheduled within the budget) only selects
 *    that path, which is correct on any MPI with the unified model.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dart_mpi.h"
#include "transport/probe_progress.h"
#include "transport/wait.h"

#define POLL_BUDGET_NS 10000000 /* 10 ms of polling by unit 0 at most */

#define GET_WORDS DART__PROBE_GET_WORDS

static int64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

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

/* Unit 0: tells unit 1 it polls, then polls its cell mem[0] with MPI
 * atomic reads until it reads 1 or the budget is spent. */
static int poll_own(int64_t *mem, MPI_Win w)
{
  const int64_t one = 1, none = 0;
  int64_t v = 0;
  if (MPI_Put(&one, 1, MPI_INT64_T, 1, 8, 1, MPI_INT64_T, w) != MPI_SUCCESS ||
      MPI_Win_flush(1, w) != MPI_SUCCESS)
    return 0;
  (void)mem;
  int64_t end = now_ns() + POLL_BUDGET_NS;
  do {
    if (MPI_Fetch_and_op(&none, &v, MPI_INT64_T, 0, 0, MPI_NO_OP, w) !=
            MPI_SUCCESS ||
        MPI_Win_flush_local(0, w) != MPI_SUCCESS)
      return 0;
  } while (v != 1 && now_ns() < end);
  return v == 1;
}

/* Unit 1: waits until unit 0 polls (its flag in mem[1]), adds 1 to unit
 * 0's cell; returns once the add completed (after unit 0 stopped polling
 * where the MPI starves it). */
static int signal_poller(int64_t *mem, MPI_Win w)
{
  for (uint64_t it = 0; __atomic_load_n(&mem[1], __ATOMIC_ACQUIRE) == 0; it++) {
    if (it > 2000000) return 0; /* no flag at all: unit 0's put failed */
    dart__wait_poll(it);
  }
  const int64_t one = 1;
  return MPI_Accumulate(&one, 1, MPI_INT64_T, 0, 0, 1, MPI_INT64_T, MPI_SUM,
                        w) == MPI_SUCCESS &&
         MPI_Win_flush(0, w) == MPI_SUCCESS;
}

int dart__probe_self_poll(MPI_Win w, int64_t *mem, MPI_Comm comm, int rank)
{
  int ok = mem != NULL;
  if (dart__mpi_rendezvous(comm) != MPI_SUCCESS) ok = 0;
  if (ok && rank == 0) ok = poll_own(mem, w);
  if (ok && rank == 1) ok = signal_poller(mem, w);
  dart__mpi_rendezvous(comm);
  return ok;
}
